//! The first screen's data, written into the page by the server: a frame opened at `/frame`
//! with a fresh session code shows the campaign's first merchants in its very first paint,
//! before the WASM has loaded and the code has been exchanged (docs/webframe.md, "The first
//! screen"). Without it the list would wait for the WASM, its hydration, the exchange and an
//! API read, which on a throttled phone is two seconds after the page itself.
//!
//! The server (`server/src/frame/first_page.rs`) provides the page as [`FirstPage`]: the
//! answer `GET /v2/merchants` gives for the session's campaign, never a bearer. The shell
//! writes it into the head as a JSON data block, which the browser reads once, when the list
//! is first made, so both sides render the same list and hydration keeps it.

use leptos::prelude::*;
use serde::de::DeserializeOwned;

use crate::wire::Envelope;

/// The first page of the campaign's merchants as the API answers it (its JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstPage(pub String);

/// The id of the data block in the page's head.
const ELEMENT_ID: &str = "boxoffice-first-page";

/// The data block of the page's head, when the server provided a first page.
#[component]
pub fn FirstPageData() -> impl IntoView {
    // `<` appears in JSON only inside strings, where `\u003c` means the same; so no text of a
    // merchant's can close the element.
    use_context::<FirstPage>().map(|FirstPage(json)| {
        let json = json.replace('<', "\\u003c");
        view! {
            <script type="application/json" id=ELEMENT_ID nonce=leptos::nonce::use_nonce() inner_html=json></script>
        }
    })
}

/// Whether this page came with a first page (on both sides, until the list takes it).
pub fn present() -> bool {
    json(false).is_some()
}

/// The first page, decoded; in the browser only once, so a list made again later (the
/// customer coming back to it) reads afresh from the API.
pub fn take<T: DeserializeOwned>() -> Option<Envelope<Vec<T>>> {
    crate::frame::api::decode(&json(true)?)
}

/// The first page's JSON: on the server its context, in the browser the data block (taken out
/// of the page when `take`).
#[cfg_attr(not(feature = "hydrate"), allow(unused_variables))]
fn json(take: bool) -> Option<String> {
    #[cfg(feature = "ssr")]
    return use_context::<FirstPage>().map(|FirstPage(json)| json);
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    return {
        let element = web_sys::window()?
            .document()?
            .get_element_by_id(ELEMENT_ID)?;
        let text = element.text_content();
        if take {
            element.remove();
        }
        text
    };
    #[allow(unreachable_code)]
    None
}
