//! The server's priced review of a reservation: lines, surcharges, discounts and the total,
//! exactly as the API computed them (never summed in the browser).

use leptos::prelude::*;

use crate::{
    format,
    frame::ui::price::{Amount, PerTicketCosts},
    i18n::{t, td_string, use_i18n},
    wire::Checkout,
};

#[component]
pub fn Review(checkout: Checkout) -> impl IntoView {
    let i18n = use_i18n();
    let visit = checkout.visit_date;
    let slot = checkout.lines.iter().find_map(|l| l.timeslot.clone());
    let totals = checkout.totals.clone();
    let show = |m: &crate::wire::Money| !m.value.is_zero();
    view! {
        <section class="review" aria-labelledby="review-title">
            <h2 id="review-title">{t!(i18n, checkout.review)}</h2>
            <p class="visit">
                {move || {
                    let locale = i18n.get_locale();
                    td_string!(locale, checkout.visit_date, date = format::date_long(locale, visit)).to_string()
                }}
            </p>
            {slot.map(|slot| view! {
                <p class="visit">
                    {move || {
                        let locale = i18n.get_locale();
                        let time = format::time_range(locale, &slot.start_time, &slot.end_time);
                        td_string!(locale, checkout.entry_time, time).to_string()
                    }}
                </p>
            })}
            <dl class="lines">
                {checkout
                    .lines
                    .into_iter()
                    .map(|line| {
                        let title = line.title.clone();
                        let quantity = line.quantity;
                        let costs = view! { <PerTicketCosts money=line.booking_costs.clone()/> };
                        let flexible = (checkout.flexible_date && !line.visit_guarantee_cost.value.is_zero()).then(|| {
                            let cost = line.visit_guarantee_cost.clone();
                            view! {
                                <span class="hint">
                                    {t!(i18n, checkout.flexible_costs)} ": "
                                    {move || {
                                        let locale = i18n.get_locale();
                                        td_string!(locale, product.flexible_cost, price = format::money(locale, &cost)).to_string()
                                    }}
                                </span>
                            }
                        });
                        view! {
                            <div class="line">
                                <dt>
                                    {move || td_string!(i18n.get_locale(), checkout.line, quantity, title = title.as_str()).to_string()}
                                    {costs}
                                    {flexible}
                                </dt>
                                <dd><Amount money=line.line_total.clone()/></dd>
                            </div>
                        }
                    })
                    .collect_view()}
            </dl>
            <dl class="totals">
                <div class="line">
                    <dt>{t!(i18n, checkout.subtotal)}</dt>
                    <dd><Amount money=totals.subtotal.clone()/></dd>
                </div>
                {checkout
                    .vouchers
                    .into_iter()
                    .map(|voucher| {
                        let code = voucher.code.clone();
                        view! {
                            <div class="line discount">
                                <dt>{move || td_string!(i18n.get_locale(), checkout.voucher, code = code.as_str()).to_string()}</dt>
                                <dd>"−" <Amount money=voucher.discount.clone()/></dd>
                            </div>
                        }
                    })
                    .collect_view()}
                {show(&totals.membership_discount).then(|| view! {
                    <div class="line discount">
                        <dt>{t!(i18n, checkout.membership)}</dt>
                        <dd>"−" <Amount money=totals.membership_discount.clone()/></dd>
                    </div>
                })}
                {show(&totals.wallet_applied).then(|| view! {
                    <div class="line discount">
                        <dt>{t!(i18n, checkout.wallet)}</dt>
                        <dd>"−" <Amount money=totals.wallet_applied.clone()/></dd>
                    </div>
                })}
                <div class="line total">
                    <dt>{t!(i18n, checkout.total)}</dt>
                    <dd data-testid="total"><Amount money=totals.total.clone()/></dd>
                </div>
            </dl>
        </section>
    }
}
