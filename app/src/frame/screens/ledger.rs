//! The customer's loyalty points, newest first: per entry what it was for and when, the
//! points and the balance after it, in two columns that fit a 320 px phone in any language.

use leptos::prelude::*;

use crate::{
    format,
    frame::api::{ledger_path, Api},
    frame::ui::{
        heading::ScreenTitle,
        load::{prefetch_once, Prefetch},
        notice::Empty,
        paging::{PageFooter, Paged},
    },
    i18n::{t, td_string, use_i18n, Locale},
    wire::{LoyaltyEntry, LoyaltyKind},
};

const PAGE: u32 = 20;

/// Starts reading the first page of the customer's ledger (the route's `data()`).
pub fn ledger_first_page() -> Prefetch {
    let api = Api::new();
    prefetch_once(move || api.text(ledger_path(PAGE, None)))
}

#[component]
pub fn LedgerScreen(first: Prefetch) -> impl IntoView {
    let i18n = use_i18n();
    let entries = Paged::listing_from(first, |api, next| api.ledger(PAGE, next), || {});
    let has_rows = move || entries.items.with(|e| !e.is_empty());
    view! {
        <ScreenTitle>{t!(i18n, ledger.title)}</ScreenTitle>
        <Show when=has_rows>
            <div class="table-wrap">
                <table class="ledger">
                    <caption>{t!(i18n, ledger.caption)}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{t!(i18n, ledger.description)}</th>
                            <th scope="col" class="number">{t!(i18n, ledger.points)}</th>
                        </tr>
                    </thead>
                    <tbody>
                        <For each=move || entries.items.get() key=move |e| entries.key(e.id) let:entry>
                            <tr>
                                <td>
                                    <span class="entry-main">{
                                        let entry = entry.clone();
                                        move || {
                                            let [before, reference, after] = described(i18n.get_locale(), &entry);
                                            view! { {before}<span class="reference">{reference}</span>{after} }
                                        }
                                    }</span>
                                    <time class="entry-sub" datetime=format::customers_day(entry.occurred_at).to_string()>
                                        {move || format::date_medium(i18n.get_locale(), format::customers_day(entry.occurred_at))}
                                    </time>
                                </td>
                                <td class="number">
                                    <span class="entry-main" class:earn={entry.points > 0}>
                                        {move || {
                                            let points = format::decimal(i18n.get_locale(), entry.points.into(), 0);
                                            if entry.points > 0 { format!("+{points}") } else { points }
                                        }}
                                    </span>
                                    <span class="entry-sub">
                                        {move || {
                                            let balance = format::decimal(i18n.get_locale(), entry.balance_after.into(), 0);
                                            td_string!(i18n.get_locale(), ledger.balance_after, points = balance).to_string()
                                        }}
                                    </span>
                                </td>
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

/// What an entry was for, in the customer's language, as the text before an order's reference,
/// the reference and the text after it (the screen keeps the reference whole when it wraps).
/// The stored description is English, so the points an order earned are named from the entry's
/// kind and order instead; any other entry is its description alone.
fn described(locale: Locale, entry: &LoyaltyEntry) -> [String; 3] {
    const MARK: &str = "\u{1}";
    match (entry.kind, &entry.order_display_id) {
        (LoyaltyKind::Earn, Some(reference)) => {
            let text = td_string!(locale, ledger.earned_for_order, reference = MARK).to_string();
            let (before, after) = text.split_once(MARK).unwrap_or((&text, ""));
            [before.to_owned(), reference.clone(), after.to_owned()]
        }
        _ => [entry.description.clone(), String::new(), String::new()],
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use uuid::Uuid;

    use super::*;

    fn entry(kind: LoyaltyKind, order_display_id: Option<&str>) -> LoyaltyEntry {
        LoyaltyEntry {
            id: Uuid::nil(),
            occurred_at: Utc::now(),
            kind,
            points: 18,
            balance_after: 18,
            description: "Order BX-7K3M-9Q2P".into(),
            order_id: order_display_id.map(|_| Uuid::nil()),
            order_display_id: order_display_id.map(Into::into),
        }
    }

    #[test]
    fn an_orders_points_are_named_in_the_customers_language() {
        let earned = entry(LoyaltyKind::Earn, Some("BX-7K3M-9Q2P"));
        assert_eq!(
            described(Locale::nl_NL, &earned),
            ["Punten voor bestelling ", "BX-7K3M-9Q2P", ""]
        );
        assert_eq!(
            described(Locale::de_DE, &earned),
            ["Punkte für Bestellung ", "BX-7K3M-9Q2P", ""]
        );
    }

    #[test]
    fn any_other_entry_keeps_its_stored_description() {
        let adjusted = entry(LoyaltyKind::Adjust, None);
        assert_eq!(
            described(Locale::nl_NL, &adjusted),
            ["Order BX-7K3M-9Q2P", "", ""]
        );
    }
}
