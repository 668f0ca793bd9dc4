//! A party's statement of one month (docs/settlement.md, "Statements"): its ledger entries
//! booked in the month (in `BOXOFFICE_SETTLEMENT_TIMEZONE`), summed per sku and currency, as
//! a document of its own (JSON or CSV) that is the same bytes every time it is asked for, so
//! its detached signature can be checked against any copy.

use std::collections::BTreeMap;

use app::wire::{EntryKind, LedgerEntry};
use chrono::{DateTime, Datelike, NaiveDate, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use serde::Serialize;
use uuid::Uuid;

use super::cents;
use crate::store::{CancelledCount, LedgerFilter};

/// Whose statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Party {
    Partner(Uuid),
    Merchant(Uuid),
    Platform,
}

impl std::str::FromStr for Party {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let id = |rest: &str| {
            rest.parse::<Uuid>()
                .map_err(|_| format!("{rest:?} is not a UUID"))
        };
        match s.split_once(':') {
            Some(("partner", rest)) => id(rest).map(Party::Partner),
            Some(("merchant", rest)) => id(rest).map(Party::Merchant),
            None if s == "platform" => Ok(Party::Platform),
            _ => Err(
                "party is partner:{partner_client_id}, merchant:{merchant_id} or platform".into(),
            ),
        }
    }
}

impl std::fmt::Display for Party {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Party::Partner(id) => write!(f, "partner:{id}"),
            Party::Merchant(id) => write!(f, "merchant:{id}"),
            Party::Platform => f.write_str("platform"),
        }
    }
}

/// A calendar month in the settlement zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    first_day: NaiveDate,
}

impl std::str::FromStr for Period {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let wrong = || format!("period is a month as YYYY-MM, not {s:?}");
        let (year, month) = s.split_once('-').ok_or_else(wrong)?;
        if year.len() != 4 || month.len() != 2 {
            return Err(wrong());
        }
        let first_day = NaiveDate::from_ymd_opt(
            year.parse().map_err(|_| wrong())?,
            month.parse().map_err(|_| wrong())?,
            1,
        )
        .ok_or_else(wrong)?;
        Ok(Period { first_day })
    }
}

impl Period {
    fn next(&self) -> NaiveDate {
        let d = self.first_day;
        if d.month() == 12 {
            NaiveDate::from_ymd_opt(d.year() + 1, 1, 1)
        } else {
            NaiveDate::from_ymd_opt(d.year(), d.month() + 1, 1)
        }
        .expect("the first of a month")
    }

    /// Its start and end (exclusive) in `zone`: local midnights, whatever their offsets.
    pub fn bounds(&self, zone: Tz) -> (DateTime<Tz>, DateTime<Tz>) {
        let midnight = |day: NaiveDate| {
            let local = day.and_hms_opt(0, 0, 0).expect("midnight");
            // A zone that skips midnight starts the day at its first instant after.
            zone.from_local_datetime(&local)
                .earliest()
                .or_else(|| {
                    zone.from_local_datetime(&(local + chrono::Duration::hours(1)))
                        .earliest()
                })
                .expect("a day starts within its first hour")
        };
        (midnight(self.first_day), midnight(self.next()))
    }

    pub fn label(&self) -> String {
        self.first_day.format("%Y-%m").to_string()
    }
}

/// The entries `party` reads for `period`.
pub fn filter(party: Party, period: Period, zone: Tz) -> LedgerFilter {
    let (from, to) = period.bounds(zone);
    let mut filter = LedgerFilter {
        from: Some(from.with_timezone(&Utc)),
        to: Some(to.with_timezone(&Utc)),
        ..LedgerFilter::default()
    };
    match party {
        Party::Partner(id) => filter.partner_client_id = Some(id),
        Party::Merchant(id) => filter.merchant_id = Some(id),
        Party::Platform => {}
    }
    filter
}

/// VAT of one rate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RateTotal {
    #[serde(with = "rust_decimal::serde::str")]
    pub rate_percent: Decimal,
    #[serde(with = "rust_decimal::serde::str")]
    pub amount: Decimal,
}

/// One sku in one currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub sku: String,
    pub currency: String,
    pub tickets_sold: u64,
    pub tickets_cancelled: u64,
    /// Sales and date changes' differences.
    #[serde(with = "rust_decimal::serde::str")]
    pub gross_sales: Decimal,
    /// Negative.
    #[serde(with = "rust_decimal::serde::str")]
    pub refunds: Decimal,
    #[serde(with = "rust_decimal::serde::str")]
    pub net: Decimal,
    pub tax: Vec<RateTotal>,
    #[serde(with = "rust_decimal::serde::str")]
    pub commission: Decimal,
    #[serde(with = "rust_decimal::serde::str")]
    pub platform_fee: Decimal,
    #[serde(with = "rust_decimal::serde::str")]
    pub payout: Decimal,
}

/// A statement: the document signed and served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Statement {
    pub party: String,
    pub period: String,
    pub timezone: String,
    pub from: String,
    pub to: String,
    /// Whether the month has ended in the settlement zone: then nothing changes it again.
    pub closed: bool,
    pub entries: u64,
    pub rows: Vec<Row>,
}

/// `party`'s statement of `period` from its `entries` and the tickets cancelled in it.
pub fn statement(
    party: Party,
    period: Period,
    zone: Tz,
    entries: &[LedgerEntry],
    cancelled: &[CancelledCount],
    now: DateTime<Utc>,
) -> Statement {
    let (from, to) = period.bounds(zone);
    let mut rows: BTreeMap<(String, String), Row> = BTreeMap::new();
    for e in entries {
        let r = row(&mut rows, &e.sku, &e.currency);
        match e.kind {
            EntryKind::Sale => {
                r.tickets_sold += e.ticket_ids.len() as u64;
                r.gross_sales += e.gross;
            }
            EntryKind::Rebooking => r.gross_sales += e.gross,
            EntryKind::Refund => r.refunds += e.gross,
        }
        r.net += e.net;
        for t in &e.tax {
            match r.tax.iter_mut().find(|x| x.rate_percent == t.rate_percent) {
                Some(x) => x.amount += t.amount,
                None => r.tax.push(RateTotal {
                    rate_percent: t.rate_percent.normalize(),
                    amount: t.amount,
                }),
            }
        }
        r.commission += e.commission;
        r.platform_fee += e.platform_fee;
        r.payout += e.merchant_payout;
    }
    for c in cancelled {
        let r = row(&mut rows, &c.sku, &c.currency);
        r.tickets_cancelled += c.tickets.max(0) as u64;
    }
    let rows = rows
        .into_values()
        .map(|mut r| {
            for x in [
                &mut r.gross_sales,
                &mut r.refunds,
                &mut r.net,
                &mut r.commission,
                &mut r.platform_fee,
                &mut r.payout,
            ] {
                *x = cents(*x);
            }
            r.tax.sort_by_key(|t| t.rate_percent);
            for t in &mut r.tax {
                t.amount = cents(t.amount);
            }
            r
        })
        .collect();
    Statement {
        party: party.to_string(),
        period: period.label(),
        timezone: zone.name().to_owned(),
        from: from.to_rfc3339_opts(SecondsFormat::Secs, false),
        to: to.to_rfc3339_opts(SecondsFormat::Secs, false),
        closed: now >= to.with_timezone(&Utc),
        entries: entries.len() as u64,
        rows,
    }
}

/// The row of `sku` in `currency`, begun at zero.
fn row<'a>(
    rows: &'a mut BTreeMap<(String, String), Row>,
    sku: &str,
    currency: &str,
) -> &'a mut Row {
    rows.entry((sku.to_owned(), currency.to_owned()))
        .or_insert_with(|| Row {
            sku: sku.to_owned(),
            currency: currency.to_owned(),
            tickets_sold: 0,
            tickets_cancelled: 0,
            gross_sales: Decimal::ZERO,
            refunds: Decimal::ZERO,
            net: Decimal::ZERO,
            tax: Vec::new(),
            commission: Decimal::ZERO,
            platform_fee: Decimal::ZERO,
            payout: Decimal::ZERO,
        })
}

/// The statement as CSV: one line per row, a `tax_<rate>` column per rate any row has (in
/// rate order; empty where a row has none), amounts with two decimals.
pub fn csv(statement: &Statement) -> anyhow::Result<Vec<u8>> {
    let mut rates: Vec<Decimal> = statement
        .rows
        .iter()
        .flat_map(|r| r.tax.iter().map(|t| t.rate_percent))
        .collect();
    rates.sort();
    rates.dedup();
    let mut out = ::csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = [
        "sku",
        "currency",
        "tickets_sold",
        "tickets_cancelled",
        "gross_sales",
        "refunds",
        "net",
    ]
    .map(String::from)
    .to_vec();
    header.extend(rates.iter().map(|r| format!("tax_{r}")));
    header.extend(["commission", "platform_fee", "payout"].map(String::from));
    out.write_record(&header)?;
    for r in &statement.rows {
        let mut record = vec![
            r.sku.clone(),
            r.currency.clone(),
            r.tickets_sold.to_string(),
            r.tickets_cancelled.to_string(),
            r.gross_sales.to_string(),
            r.refunds.to_string(),
            r.net.to_string(),
        ];
        record.extend(rates.iter().map(|rate| {
            r.tax
                .iter()
                .find(|t| t.rate_percent == *rate)
                .map(|t| t.amount.to_string())
                .unwrap_or_default()
        }));
        record.extend([
            r.commission.to_string(),
            r.platform_fee.to_string(),
            r.payout.to_string(),
        ]);
        out.write_record(&record)?;
    }
    Ok(out.into_inner()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_month_runs_from_local_midnight_to_local_midnight_across_a_clock_change() {
        let period: Period = "2026-10".parse().unwrap();
        let (from, to) = period.bounds(chrono_tz::Europe::Amsterdam);
        // October starts in summer time (+02:00) and ends in winter time (+01:00).
        assert_eq!(from.to_rfc3339(), "2026-10-01T00:00:00+02:00");
        assert_eq!(to.to_rfc3339(), "2026-11-01T00:00:00+01:00");
        let december: Period = "2026-12".parse().unwrap();
        assert_eq!(
            december.bounds(chrono_tz::UTC).1.to_rfc3339(),
            "2027-01-01T00:00:00+00:00"
        );
    }

    #[test]
    fn parties_and_periods_read_only_their_forms() {
        assert_eq!("platform".parse::<Party>(), Ok(Party::Platform));
        let id = Uuid::from_u128(7);
        assert_eq!(
            format!("partner:{id}").parse::<Party>(),
            Ok(Party::Partner(id))
        );
        assert!("partner:7".parse::<Party>().is_err());
        assert!("shop:x".parse::<Party>().is_err());
        for bad in ["2026-13", "2026-1", "26-01", "2026/01", ""] {
            assert!(bad.parse::<Period>().is_err(), "{bad}");
        }
    }
}
