//! The choice a deep link makes (docs/webframe.md, "Deep links to a choice"): the product
//! route's `date` (YYYY-MM-DD), `timeslot` (HH:MM, the merchant's local time) and `quantities`
//! (`product_id:n,…`), judged against the product. What is valid is chosen on the product
//! screen (`follow`); what is not is left for the customer to choose, with a message. A link
//! that makes every choice its product needs goes straight on to the reservation (and so to
//! the checkout's review).

use chrono::{NaiveDate, NaiveTime};
use uuid::Uuid;

use super::CHOICE;
use crate::wire::{BasketLine, Product, TimeslotEntry};

/// What a deep link chose for one product.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkedChoice {
    pub date: Option<NaiveDate>,
    pub time: Option<NaiveTime>,
    /// Every product of the basket's group with its quantity (0 for those the link left out).
    pub quantities: Option<Vec<(Uuid, u32)>>,
    /// A parameter was given but could not be used (malformed, in the past, another
    /// merchant's product, over the basket limit): the customer is told.
    pub flawed: bool,
}

impl LinkedChoice {
    /// The link's choice for `group` (the chosen product first), read through `param`; `None`
    /// when the link chooses nothing. A date or time the product has no use for (a product
    /// without a date, a day without entry times) is not a flaw: there is nothing to choose.
    pub fn parse(
        param: impl Fn(&str) -> Option<String>,
        group: &[Product],
        today: NaiveDate,
    ) -> Option<Self> {
        let given = |name: &str| param(name).filter(|v| !v.trim().is_empty());
        let [date, time, quantities] = CHOICE.map(given);
        if date.is_none() && time.is_none() && quantities.is_none() {
            return None;
        }
        let chosen = group.first()?;
        let mut link = LinkedChoice::default();
        if !chosen.no_date {
            if let Some(text) = date {
                link.date = NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
                    .ok()
                    .filter(|day| *day >= today);
                link.flawed |= link.date.is_none();
            }
            if let Some(text) = time.filter(|_| chosen.requires_timeslot) {
                link.time = NaiveTime::parse_from_str(text.trim(), "%H:%M")
                    .ok()
                    .filter(|_| link.date.is_some());
                link.flawed |= link.time.is_none();
            }
        }
        if let Some(text) = quantities {
            match quantities_of(&text, group) {
                Some(lines) => link.quantities = Some(lines),
                None => link.flawed = true,
            }
        }
        Some(link)
    }

    /// Whether the link made every choice `chosen` needs before it can be reserved.
    pub fn complete(&self, chosen: &Product) -> bool {
        let when = chosen.no_date
            || (self.date.is_some() && (!chosen.requires_timeslot || self.time.is_some()));
        let some_tickets = self
            .quantities
            .as_ref()
            .is_some_and(|lines| lines.iter().any(|(_, n)| *n > 0));
        !self.flawed && when && some_tickets
    }

    /// The entry time the link names among a day's `slots`, if it is there and open.
    pub fn slot<'a>(&self, slots: &'a [TimeslotEntry]) -> Option<&'a TimeslotEntry> {
        let time = self.time?;
        slots
            .iter()
            .find(|slot| slot.available && slot.start_time.time() == time)
    }
}

/// `product_id:n,…` over `group`: every product of the group with its quantity, or `None` when
/// a part is malformed, names a product outside the group or twice, exceeds the basket's limit
/// per line, or the whole asks for no ticket.
fn quantities_of(text: &str, group: &[Product]) -> Option<Vec<(Uuid, u32)>> {
    let mut lines: Vec<(Uuid, u32)> = group.iter().map(|p| (p.id, 0)).collect();
    let mut named = Vec::new();
    for part in text.split(',') {
        let (id, n) = part.trim().split_once(':')?;
        let id: Uuid = id.trim().parse().ok()?;
        let n: u32 = n
            .trim()
            .parse()
            .ok()
            .filter(|n| *n <= BasketLine::MAX_QUANTITY)?;
        if named.contains(&id) {
            return None;
        }
        named.push(id);
        lines.iter_mut().find(|(p, _)| *p == id)?.1 = n;
    }
    lines.iter().any(|(_, n)| *n > 0).then_some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(id: u128, no_date: bool, timed: bool) -> Product {
        serde_json::from_value(serde_json::json!({
            "id": Uuid::from_u128(id), "title": "T", "product_type": "TICKET",
            "physical_product": false, "sku": "S",
            "unit_price": {"value": "1.00", "currency": "EUR"},
            "list_price": {"value": "1.00", "currency": "EUR"},
            "booking_costs": {"value": "0.00", "currency": "EUR"},
            "visit_guarantee_cost": {"value": "0.00", "currency": "EUR"},
            "no_date": no_date, "requires_timeslot": timed, "sold_out": false, "conditions": ""
        }))
        .unwrap()
    }

    fn link(params: &[(&str, &str)], group: &[Product]) -> Option<LinkedChoice> {
        let today = NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
        let lookup = |name: &str| {
            params
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        };
        LinkedChoice::parse(lookup, group, today)
    }

    #[test]
    fn a_whole_choice_is_complete() {
        let group = [product(1, false, true), product(2, false, true)];
        let quantities = format!("{}:2,{}:1", Uuid::from_u128(1), Uuid::from_u128(2));
        let chosen = link(
            &[
                ("date", "2026-12-07"),
                ("timeslot", "09:30"),
                ("quantities", &quantities),
            ],
            &group,
        )
        .unwrap();
        assert_eq!(chosen.date, NaiveDate::from_ymd_opt(2026, 12, 7));
        assert_eq!(chosen.time, NaiveTime::from_hms_opt(9, 30, 0));
        assert_eq!(
            chosen.quantities,
            Some(vec![(Uuid::from_u128(1), 2), (Uuid::from_u128(2), 1)])
        );
        assert!(!chosen.flawed);
        assert!(chosen.complete(&group[0]));
    }

    #[test]
    fn a_partial_choice_is_made_but_not_reserved() {
        let group = [product(1, false, true)];
        let chosen = link(&[("date", "2026-12-07")], &group).unwrap();
        assert_eq!(chosen.date, NaiveDate::from_ymd_opt(2026, 12, 7));
        assert!(!chosen.flawed);
        assert!(!chosen.complete(&group[0]));
        assert_eq!(link(&[("utm_source", "x")], &group), None);
    }

    #[test]
    fn what_cannot_be_chosen_is_a_flaw_the_customer_is_told() {
        let group = [product(1, false, true)];
        let one = Uuid::from_u128(1);
        for params in [
            vec![("date", "2026-11-25")],
            vec![("date", "7-12-2026")],
            vec![("date", "2026-12-07"), ("timeslot", "9h30")],
            vec![("timeslot", "09:30")],
            vec![("quantities", "nonsense")],
            vec![("quantities", &*format!("{}:1", Uuid::from_u128(9)))],
            vec![("quantities", &*format!("{one}:51"))],
            vec![("quantities", &*format!("{one}:1,{one}:2"))],
            vec![("quantities", &*format!("{one}:0"))],
        ] {
            let chosen = link(&params, &group).unwrap();
            assert!(chosen.flawed, "{params:?}");
            assert!(!chosen.complete(&group[0]), "{params:?}");
        }
    }

    #[test]
    fn a_product_without_a_date_needs_only_quantities() {
        let group = [product(1, true, false)];
        let quantities = format!("{}:3", Uuid::from_u128(1));
        let chosen = link(
            &[("date", "2026-12-07"), ("quantities", &quantities)],
            &group,
        )
        .unwrap();
        assert_eq!(chosen.date, None);
        assert!(chosen.complete(&group[0]));
    }

    #[test]
    fn the_linked_time_is_an_open_slot_of_the_day() {
        let group = [product(1, false, true)];
        let chosen = link(&[("date", "2026-12-07"), ("timeslot", "10:00")], &group).unwrap();
        let slot = |start: &str, available: bool| -> TimeslotEntry {
            serde_json::from_value(serde_json::json!({
                "timeslot_id": Uuid::new_v4(), "start_time": start,
                "end_time": "2026-12-07T18:00:00+01:00", "remaining": 3, "available": available
            }))
            .unwrap()
        };
        let slots = [
            slot("2026-12-07T09:00:00+01:00", true),
            slot("2026-12-07T10:00:00+01:00", true),
        ];
        assert_eq!(chosen.slot(&slots), Some(&slots[1]));
        let full = [slot("2026-12-07T10:00:00+01:00", false)];
        assert_eq!(chosen.slot(&full), None);
    }
}
