//! The frame's first screen, rendered with its data (`app::frame::first_page`): a page opened
//! at `/frame` with a session code that is fresh, unredeemed and for a webframe carries the
//! first page of its campaign's merchants, exactly as `GET /v2/merchants` would answer the
//! bearer the code is about to become. The code is only looked at, never redeemed here (the
//! frame redeems it once it runs), and no bearer is written into the page (interface.md,
//! "Public bearers are not placed in … HTML"). Anything else (a deep link the frame will
//! follow, as `app::frame::deep_link` reads it; an identity handoff; a used or expired code)
//! renders as before: the frame's loading state.

use app::frame::{
    deep_link::DeepLink, first_page::FirstPage, language::page_locale, screens::merchants::PAGE,
};
use axum::http::{HeaderMap, Uri};
use chrono::Utc;

use crate::{
    api::merchants::merchant_list_page,
    error::{Error, ProblemType},
    http::{campaign, cursor::PageParams},
    state::AppState,
    store::{Session, SessionMode},
};

/// The first page of merchants for the frame page at `uri`, opened with the code of
/// `session`, if it is the list and the code is a fresh webframe code.
pub async fn first_page(
    state: &AppState,
    uri: &Uri,
    headers: &HeaderMap,
    session: &Session,
) -> Result<Option<FirstPage>, Error> {
    if uri.path().trim_end_matches('/') != "/frame" {
        return Ok(None);
    }
    let query = uri.query().unwrap_or_default();
    // The frame follows a deep link away from the list at once; the list is for the others.
    let deep_link = DeepLink::parse(|name| {
        form_urlencoded::parse(query.as_bytes())
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    })
    .is_some();
    let fresh = session.mode == SessionMode::Webframe
        && session.redeemed_at.is_none()
        && session.code_expires_at > Utc::now();
    if !fresh || deep_link {
        return Ok(None);
    }
    let (Some(client), Some(campaign_id)) = (session.partner_client_id, session.campaign_id) else {
        return Ok(None);
    };
    let store = state.store.as_ref();
    if !state
        .authn
        .auth
        .client_may_use_campaign(store, client, campaign_id)
        .await?
    {
        return Ok(None);
    }
    match campaign::existing(state, campaign_id).await {
        Ok(_) => {}
        Err(err) if err.kind() == ProblemType::CampaignNotFound => return Ok(None),
        Err(err) => return Err(err),
    }
    let locale = page_locale(Some(query), headers);
    let params = PageParams {
        limit: Some(PAGE),
        next_token: None,
    };
    let page = merchant_list_page(state, campaign_id, &params, locale).await?;
    let json = String::from_utf8(page.into_json()).map_err(anyhow::Error::from)?;
    Ok(Some(FirstPage(json)))
}
