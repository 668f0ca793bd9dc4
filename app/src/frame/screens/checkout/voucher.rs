//! Vouchers on a reservation. The server prices them, so adding a code makes a new
//! reservation of the same basket with the codes; only when that one holds is the old one
//! released, so the customer never loses their places to a voucher.

use leptos::prelude::*;
use leptos_router::{hooks::use_navigate, NavigateOptions};

use crate::{
    frame::{
        api::{Api, ApiError},
        ui::{funnel, words::problem_text, write::write},
    },
    i18n::{t, td_string, use_i18n},
    wire::{BasketLine, Checkout, CheckoutRequest},
};

/// The basket of `checkout` again, with `voucher_codes`.
pub fn repriced(checkout: &Checkout, voucher_codes: Vec<String>) -> CheckoutRequest {
    let date = checkout
        .lines
        .iter()
        .find_map(|line| line.timeslot.as_ref())
        .map_or_else(
            || checkout.visit_date.to_string(),
            |slot| slot.start_time.to_rfc3339(),
        );
    CheckoutRequest {
        date,
        flexible_date: checkout.flexible_date,
        lines: checkout
            .lines
            .iter()
            .map(|line| BasketLine {
                product_id: line.product_id,
                quantity: line.quantity,
            })
            .collect(),
        voucher_codes,
        external_reference: checkout.external_reference.clone(),
        replaces: Some(checkout.checkout_id),
        #[cfg(feature = "ssr")]
        buyer: None,
        #[cfg(feature = "ssr")]
        answers: Vec::new(),
        attribution: checkout.attribution.clone(),
    }
}

/// Whether `checkout` carries the voucher `code`.
fn applies(checkout: &Checkout, code: &str) -> bool {
    checkout
        .vouchers
        .iter()
        .any(|v| v.code.eq_ignore_ascii_case(code))
}

#[component]
pub fn VoucherForm(checkout: Checkout, message: RwSignal<Option<String>>) -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let navigate = use_navigate();
    let code = RwSignal::new(String::new());
    let old = checkout.checkout_id;
    // Reserves the basket again with the codes (`entered` the one just typed); the old
    // reservation is released only once the new one holds with the voucher.
    let applying = write(move |(request, entered): &(CheckoutRequest, String)| {
        let (request, entered) = (request.clone(), entered.clone());
        let navigate = navigate.clone();
        async move {
            let locale = i18n.get_locale_untracked();
            match api.reserve(&request).await {
                Ok(new) if applies(&new, &entered) => {
                    let _ = api.release(old).await;
                    message.set(Some(
                        td_string!(locale, checkout.voucher_applied, code = entered.as_str())
                            .to_string(),
                    ));
                    code.set(String::new());
                    navigate(
                        &format!("/frame/checkout/{}", new.checkout_id),
                        NavigateOptions {
                            replace: true,
                            ..Default::default()
                        },
                    );
                }
                // An unknown code is ignored by the server: keep the first reservation.
                Ok(new) => {
                    let _ = api.release(new.checkout_id).await;
                    message.set(Some(
                        td_string!(locale, checkout.voucher_rejected, code = entered.as_str())
                            .to_string(),
                    ));
                }
                Err(ApiError::Expired) => {}
                Err(error) => {
                    funnel::refused(&error);
                    message.set(Some(problem_text(locale, &error)))
                }
            }
        }
    });
    let busy = applying.pending();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let entered = code.get_untracked().trim().to_uppercase();
        if entered.is_empty() || busy.get_untracked() {
            return;
        }
        let locale = i18n.get_locale_untracked();
        if applies(&checkout, &entered) {
            message.set(Some(
                td_string!(locale, checkout.voucher_applied, code = entered.as_str()).to_string(),
            ));
            return;
        }
        let mut codes: Vec<String> = checkout.vouchers.iter().map(|v| v.code.clone()).collect();
        codes.push(entered.clone());
        applying.dispatch_local((repriced(&checkout, codes), entered));
    };
    view! {
        <form class="voucher" on:submit=on_submit>
            <label for="voucher-code">{t!(i18n, checkout.voucher_label)}</label>
            <div class="search-row">
                <input
                    id="voucher-code"
                    type="text"
                    autocomplete="off"
                    autocapitalize="characters"
                    prop:value=move || code.get()
                    on:input=move |ev| code.set(event_target_value(&ev))
                />
                <button type="submit" class="button secondary" aria-disabled=move || busy.get().then_some("true")>
                    {t!(i18n, checkout.voucher_apply)}
                </button>
            </div>
        </form>
    }
}
