//! The customer's loyalty points, newest first.

use leptos::prelude::*;

use crate::{
    format,
    frame::ui::{
        heading::ScreenTitle,
        notice::Empty,
        paging::{PageFooter, Paged},
    },
    i18n::{t, use_i18n},
    wire::LoyaltyEntry,
};

const PAGE: u32 = 20;

#[component]
pub fn LedgerScreen() -> impl IntoView {
    let i18n = use_i18n();
    let entries = Paged::<LoyaltyEntry>::listing(
        || format!("/v2/me/loyalty/ledger/entries?limit={PAGE}"),
        || {},
    );
    let has_rows = move || entries.items.with(|e| !e.is_empty());
    view! {
        <ScreenTitle>{t!(i18n, ledger.title)}</ScreenTitle>
        <Show when=has_rows>
            <div class="table-wrap">
                <table class="ledger">
                    <caption>{t!(i18n, ledger.caption)}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{t!(i18n, ledger.date)}</th>
                            <th scope="col">{t!(i18n, ledger.description)}</th>
                            <th scope="col" class="number">{t!(i18n, ledger.points)}</th>
                            <th scope="col" class="number">{t!(i18n, ledger.balance)}</th>
                        </tr>
                    </thead>
                    <tbody>
                        <For each=move || entries.items.get() key=|e| e.id let:entry>
                            <tr>
                                <td>{move || format::date_medium(i18n.get_locale(), entry.occurred_at.date_naive())}</td>
                                <td>{entry.description.clone()}</td>
                                <td class="number" class:earn={entry.points > 0}>
                                    {move || {
                                        let points = format::decimal(i18n.get_locale(), entry.points.into(), 0);
                                        if entry.points > 0 { format!("+{points}") } else { points }
                                    }}
                                </td>
                                <td class="number">{move || format::decimal(i18n.get_locale(), entry.balance_after.into(), 0)}</td>
                            </tr>
                        </For>
                    </tbody>
                </table>
            </div>
        </Show>
        {move || entries.is_empty().then(|| view! { <Empty>{t!(i18n, ledger.empty)}</Empty> })}
        <PageFooter paged=entries/>
    }
}
