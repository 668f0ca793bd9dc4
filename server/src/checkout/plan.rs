//! From a basket and a date to what a reservation takes: the products, the merchant, the
//! visit in the merchant's zone, each line's day, slot and price. Reads only; the reservation
//! transaction (`reserve`) then takes the capacity.
//!
//! Checks come in the order of the checkout's error table (docs/api-checkout.md): `resolve`
//! checks the products (unknown, outside the campaign, across merchants or providers), then
//! the date and time; `Resolved::price` the prices, slots and places. The basket's own shape is
//! checked before (`basket::check_request`).

use app::wire::{CheckoutRequest, Locale};
use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::answers::{self, StoredAnswer};
use super::visit::{Visit, VisitInput};
use super::Commerce;
use crate::{
    error::{Error, ProblemType, Result},
    settlement::sold::Sold,
    store::{CalendarDay, CheckoutLineRecord, Merchant, Product, Store, Timeslot},
    time::{local_date, local_to_utc},
};

/// One line, resolved.
#[derive(Debug, Clone)]
pub struct PlannedLine {
    pub product: Product,
    pub title: String,
    pub quantity: u32,
    /// The day its capacity is taken on.
    pub day: NaiveDate,
    pub timeslot: Option<Timeslot>,
    pub unit_price: Decimal,
    pub list_price: Decimal,
    /// Places the line's group had left on `day` when planned; `None` when unlimited or not
    /// read. Only a hint: the reservation decides.
    pub day_left: Option<i64>,
}

/// A basket ready to be reserved.
#[derive(Debug, Clone)]
pub struct Plan {
    pub merchant: Merchant,
    pub zone: Tz,
    pub provider: String,
    pub visit_date: NaiveDate,
    pub lines: Vec<PlannedLine>,
    pub requires_shipping_address: bool,
    /// The answers to the basket's booking questions (`Resolved::answers`).
    pub answers: Vec<StoredAnswer>,
}

impl Plan {
    /// The slot of the visit, when a line has one (all timeslotted lines share the time).
    pub fn timeslot(&self) -> Option<&Timeslot> {
        self.lines.iter().find_map(|l| l.timeslot.as_ref())
    }

    /// Counts the places `freed` holds (a hold that ends in the reservation's transaction,
    /// `checkout::rehold`) as left, on the days and slots it holds them, for
    /// [`Plan::short_of_places`]. `visit_date` is the freed checkout's day, for lines without
    /// one of their own.
    pub fn count_as_left(&mut self, freed: &[CheckoutLineRecord], visit_date: NaiveDate) {
        for line in &mut self.lines {
            for f in freed {
                let quantity = i64::from(f.quantity.max(0));
                let same_day = f.availability_group_id == line.product.availability_group_id
                    && f.visit_date.unwrap_or(visit_date) == line.day;
                if let (true, Some(left)) = (same_day, line.day_left.as_mut()) {
                    *left += quantity;
                }
                if let Some(slot) = line
                    .timeslot
                    .as_mut()
                    .filter(|s| Some(s.timeslot_id) == f.timeslot_id)
                {
                    slot.reserved -= i32::try_from(quantity).unwrap_or(0);
                }
            }
        }
    }

    /// Why the basket surely cannot be held, judged from the places read while planning: a
    /// day or slot it needs more places of than were left. Places come back only by expiry,
    /// cancellation or a raised capacity, so a refusal here is what the reservation would have
    /// answered a moment later; a basket that passes may still be refused by the reservation.
    pub fn short_of_places(&self) -> Option<String> {
        let takes: Vec<Take> = self
            .lines
            .iter()
            .map(|l| Take {
                group: l.product.availability_group_id,
                day: l.day,
                quantity: l.quantity,
                day_left: l.day_left,
                slot: l.timeslot.as_ref().map(|s| {
                    let left = s.capacity.map(|c| i64::from(c) - i64::from(s.reserved));
                    (s.timeslot_id, left)
                }),
            })
            .collect();
        shortage(&takes)
    }
}

/// What one line takes, with the places its day and slot had left when planned (`None`:
/// unlimited or not read).
#[derive(Debug, Clone, Copy)]
struct Take {
    group: Uuid,
    day: NaiveDate,
    quantity: u32,
    day_left: Option<i64>,
    slot: Option<(Uuid, Option<i64>)>,
}

/// The first day or slot the lines together need more places of than were left; lines of one
/// group and day (or one slot) are summed, as the reservation sums them.
fn shortage(takes: &[Take]) -> Option<String> {
    let mut days: Vec<((Uuid, NaiveDate), u32, Option<i64>)> = Vec::new();
    let mut slots: Vec<(Uuid, u32, Option<i64>)> = Vec::new();
    for t in takes {
        let key = (t.group, t.day);
        match days.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, q, _)) => *q += t.quantity,
            None => days.push((key, t.quantity, t.day_left)),
        }
        if let Some((slot, left)) = t.slot {
            match slots.iter_mut().find(|(id, _, _)| *id == slot) {
                Some((_, q, _)) => *q += t.quantity,
                None => slots.push((slot, t.quantity, left)),
            }
        }
    }
    let short = |quantity: u32, left: Option<i64>| left.is_some_and(|n| i64::from(quantity) > n);
    if let Some(((_, day), quantity, _)) = days.iter().find(|(_, q, left)| short(*q, *left)) {
        return Some(format!("fewer than {quantity} places are left on {day}"));
    }
    slots
        .iter()
        .find(|(_, q, left)| short(*q, *left))
        .map(|(_, quantity, _)| {
            format!("fewer than {quantity} places are left in the chosen timeslot")
        })
}

/// 400 `checkout-shipping-address-required`.
pub fn shipping_address_required() -> Error {
    Error::new(
        ProblemType::CheckoutShippingAddressRequired,
        "The basket holds a physical product: send shipping_address.",
    )
}

fn line_invalid(index: usize, message: String) -> Error {
    let mut error = Error::new(ProblemType::CheckoutBasketLineInvalid, message.clone());
    if let Error::Problem { errors, .. } = &mut error {
        errors.push(app::wire::FieldError::new(
            format!("lines[{index}].product_id"),
            "invalid",
            message,
        ));
    }
    error
}

/// A basket's products, merchant and visit, with every 400 of the checkout's error table
/// checked (products, date and time); [`Resolved::price`] then reads what may answer 422: the
/// day's prices and places, and the slots.
pub struct Resolved {
    /// Each line's product and quantity, in the basket's order.
    products: Vec<(Product, u32)>,
    merchant: Merchant,
    zone: Tz,
    today: NaiveDate,
    visit: Visit,
    visit_date: NaiveDate,
    pub requires_shipping_address: bool,
}

/// A day the caller read before the plan (the express checkout reads its first day with
/// its key's state, in one query): the plan takes it instead of reading it again.
pub struct ReadDay {
    pub product_id: Uuid,
    pub day: NaiveDate,
    pub priced: Option<CalendarDay>,
}

/// Resolves and prices `request` in `campaign_id` at `now`: [`resolve`], then
/// [`Resolved::price`].
pub async fn plan(
    state: &Commerce,
    campaign_id: Uuid,
    locale: Locale,
    request: &CheckoutRequest,
    now: DateTime<Utc>,
) -> Result<Plan> {
    let resolved = resolve(state, campaign_id, request, now).await?;
    let answers = resolved.answers(&request.answers, false)?;
    let mut plan = resolved.price(state, None, locale, now).await?;
    plan.answers = answers;
    Ok(plan)
}

/// The products of `request` (a basket `basket::check_request` passed) in `campaign_id`, their
/// merchant and the visit in the merchant's zone.
pub async fn resolve(
    state: &Commerce,
    campaign_id: Uuid,
    request: &CheckoutRequest,
    now: DateTime<Utc>,
) -> Result<Resolved> {
    let Some(input) = VisitInput::parse(&request.date) else {
        return Err(Error::invalid_field(
            "date",
            "invalid",
            "date must be an ISO 8601 date-time (or YYYY-MM-DD for products without timeslots)",
        ));
    };

    // Products and merchants are definitions, read from this node's copies; the day's
    // prices and places (`price`) are always read from the store.
    let (store, definitions) = (state.store.as_ref(), &state.catalog.definitions);
    let mut products = Vec::with_capacity(request.lines.len());
    for (i, line) in request.lines.iter().enumerate() {
        let product = definitions
            .product(store, line.product_id)
            .await?
            .filter(|p| p.campaign_ids.contains(&campaign_id))
            .ok_or_else(|| {
                line_invalid(
                    i,
                    format!(
                        "lines[{i}]: product {} is not sold in this campaign",
                        line.product_id
                    ),
                )
            })?;
        products.push((product, line.quantity));
    }
    let first = &products[0].0;
    if products
        .iter()
        .any(|(p, _)| p.merchant_id != first.merchant_id)
    {
        return Err(Error::new(
            ProblemType::CheckoutBasketSpansMerchants,
            "The basket holds products of more than one merchant; make one checkout per merchant.",
        ));
    }
    if products.iter().any(|(p, _)| p.provider != first.provider) {
        return Err(Error::new(
            ProblemType::CheckoutBasketSpansProviders,
            "The basket holds products of more than one fulfilment provider; make one checkout per provider.",
        ));
    }
    let merchant = definitions
        .merchant(store, first.merchant_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("product {} has no merchant", first.product_id))?;
    let zone = merchant.zone()?;
    let today = local_date(zone, now);
    let visit = Visit::resolve(input, zone);

    let dated = products.iter().any(|(p, _)| !p.no_date);
    if products.iter().any(|(p, _)| p.requires_timeslot) && visit.slot_time().is_none() {
        return Err(Error::new(
            ProblemType::CheckoutTimeslotRequired,
            "A timeslotted product needs the slot's start time in date (midnight is never a slot).",
        ));
    }
    if dated && visit.date < today {
        return Err(Error::new(
            ProblemType::CheckoutDateInPast,
            format!(
                "{} is in the past in the merchant's time zone ({}); today there is {today}.",
                visit.date, merchant.timezone
            ),
        ));
    }
    Ok(Resolved {
        requires_shipping_address: products.iter().any(|(p, _)| p.physical_product),
        visit_date: if dated { visit.date } else { today },
        products,
        merchant,
        zone,
        today,
        visit,
    })
}

impl Resolved {
    /// `given` checked against the basket's questions (400), and when `require`, every
    /// required one answered (422 `checkout-answer-required`): after the products, date and
    /// time, before prices, as the error table orders them.
    pub fn answers(&self, given: &[app::wire::Answer], require: bool) -> Result<Vec<StoredAnswer>> {
        let lines = answers::lines(&self.products);
        let answers = answers::resolve(&lines, given)?;
        if require {
            answers::require(&lines, &answers)?;
        }
        Ok(answers)
    }

    /// The product and day the plan reads first, when it reads a day at all: the first
    /// dated line's.
    pub fn first_day(&self) -> Option<(Uuid, NaiveDate)> {
        self.products
            .iter()
            .find(|(product, _)| !product.no_date)
            .map(|(product, _)| (product.product_id, self.visit_date))
    }

    /// Each line's day, slot and price, read from the store (a day in `read` is not read
    /// again).
    pub async fn price(
        self,
        state: &Commerce,
        read: Option<ReadDay>,
        locale: Locale,
        now: DateTime<Utc>,
    ) -> Result<Plan> {
        let store = state.store.as_ref();
        let mut lines = Vec::with_capacity(self.products.len());
        for (product, quantity) in self.products {
            let day = if product.no_date {
                self.today
            } else {
                self.visit_date
            };
            let timeslot = if product.requires_timeslot {
                Some(slot_at(store, &product, self.zone, day, self.visit, now).await?)
            } else {
                None
            };
            let (unit_price, list_price, day_left) = if product.no_date {
                (product.unit_price, product.list_price, None)
            } else {
                day_price(store, read.as_ref(), &product, day).await?
            };
            // What the customer pays for the catalog's prices (VAT added when they are
            // without it), as the catalog showed them.
            let sold = Sold::of(&self.merchant, product.product_id);
            lines.push(PlannedLine {
                title: product.localized(locale).title.to_owned(),
                quantity,
                day,
                timeslot,
                unit_price: sold.price(unit_price),
                list_price: sold.price(list_price),
                day_left,
                product: sold.product(product),
            });
        }
        Ok(Plan {
            provider: lines[0].product.provider.clone(),
            requires_shipping_address: self.requires_shipping_address,
            merchant: self.merchant,
            zone: self.zone,
            visit_date: self.visit_date,
            lines,
            answers: Vec::new(),
        })
    }
}

/// The product's prices on `day` and the places its group has left then (`None`: unlimited).
/// A product with a calendar is sold only on its calendar's days; one without is sold every
/// day at its own prices. The day is read first: it is there for nearly every basket.
async fn day_price(
    store: &dyn Store,
    read: Option<&ReadDay>,
    product: &Product,
    day: NaiveDate,
) -> Result<(Decimal, Decimal, Option<i64>)> {
    let priced = match read.filter(|r| r.product_id == product.product_id && r.day == day) {
        Some(read) => read.priced.clone(),
        None => store
            .calendar(product.product_id, day, day)
            .await?
            .into_iter()
            .next(),
    };
    if let Some(d) = priced {
        let left = d.capacity.map(|c| i64::from(c) - i64::from(d.reserved));
        return Ok((d.price, d.list_price, left));
    }
    if store
        .products_with_calendar(&[product.product_id])
        .await?
        .is_empty()
    {
        return Ok((product.unit_price, product.list_price, None));
    }
    Err(Error::new(
        ProblemType::CheckoutProductNotPriceable,
        format!(
            "Product {} is not sold on {day}; offer another date.",
            product.product_id
        ),
    ))
}

/// The slot of the product's group that starts at the visit's local time and has not started.
async fn slot_at(
    store: &dyn Store,
    product: &Product,
    zone: Tz,
    day: NaiveDate,
    visit: Visit,
    now: DateTime<Utc>,
) -> Result<Timeslot> {
    let not_fulfillable = |why: String| Error::new(ProblemType::CheckoutProductNotFulfillable, why);
    let time = visit.slot_time().expect("checked by the caller");
    let start = local_to_utc(zone, day, time)
        .ok_or_else(|| not_fulfillable(format!("{day} {time} does not exist in {zone}")))?;
    let slot = store
        .timeslots(product.availability_group_id, day, day)
        .await?
        .into_iter()
        .find(|s| s.start_time == start)
        .ok_or_else(|| {
            not_fulfillable(format!(
                "No timeslot of product {} starts at {time} on {day}; offer one from POST /v2/fulfillment/timeslots.",
                product.product_id
            ))
        })?;
    if slot.start_time <= now {
        return Err(not_fulfillable(format!(
            "The timeslot at {time} on {day} has already started."
        )));
    }
    Ok(slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(group: u128, quantity: u32, day_left: Option<i64>) -> Take {
        Take {
            group: Uuid::from_u128(group),
            day: NaiveDate::from_ymd_opt(2026, 12, 24).unwrap(),
            quantity,
            day_left,
            slot: None,
        }
    }

    #[test]
    fn a_basket_is_short_only_when_a_day_or_slot_has_fewer_places_than_it_takes() {
        assert_eq!(shortage(&[]), None);
        assert_eq!(shortage(&[take(1, 3, Some(3))]), None, "exactly enough");
        assert_eq!(shortage(&[take(1, 9, None)]), None, "unlimited");
        assert_eq!(
            shortage(&[take(1, 4, Some(3))]).as_deref(),
            Some("fewer than 4 places are left on 2026-12-24")
        );
        // Two lines of one group add up; lines of other groups do not.
        assert!(shortage(&[take(1, 2, Some(3)), take(1, 2, Some(3))]).is_some());
        assert_eq!(shortage(&[take(1, 2, Some(3)), take(2, 2, Some(3))]), None);
        // A slot is checked on its own places, summed over its lines.
        let slotted = |quantity, left| Take {
            slot: Some((Uuid::from_u128(9), left)),
            ..take(1, quantity, None)
        };
        assert_eq!(shortage(&[slotted(2, Some(4)), slotted(2, Some(4))]), None);
        assert_eq!(
            shortage(&[slotted(2, Some(3)), slotted(2, Some(3))]).as_deref(),
            Some("fewer than 4 places are left in the chosen timeslot")
        );
        assert_eq!(shortage(&[slotted(5, None)]), None);
    }
}
