//! docs/operator-first-start.md kept true: its `sh` blocks, run in order by bash against a
//! fresh server with the operator API on (as an operator following the page would), build a
//! catalog and a partner client, and the partner's first calls find the product on sale.

use crate::docs_steps::{assert_prints_in_order, problems_in, run, script_of, tools_present};
use crate::helpers::{spawn_app, ADMIN_TOKEN};
use crate::partner_fixtures::{shift, today_in};

const PAGE: &str = "docs/operator-first-start.md";
const DOC: &str = include_str!("../../../docs/operator-first-start.md");

/// What the page's steps must print, in this order (ids, secrets and dates differ from run to
/// run; these parts do not).
const EXPECTED: [&str; 10] = [
    r#""name":"Summer in Utrecht","loyalty_points_per_unit":"1""#,
    r#""name":"Kasteel De Haar","timezone":"Europe/Amsterdam","currency":"EUR""#,
    r#""title":"Rondleiding kasteel","sku":"HAAR-TOUR","requires_timeslot":true"#,
    r#"{"days_written":91}"#,
    // Three windows on each of the 91 days.
    r#"{"timeslots_written":273,"skipped":[]}"#,
    r#""client_id":"utrecht-days","campaign_ids":[""#,
    r#""client_secret":""#,
    r#""webhook_secret":"whsec_"#,
    r#"{"token_type":"Bearer","expires_in":900}"#,
    r#"{"title":"Castle tour","sku":"HAAR-TOUR","requires_timeslot":true,"unit_price":{"value":"19.50","currency":"EUR"},"first_available_date":"#,
];

#[tokio::test]
async fn the_curl_steps_of_docs_operator_first_start_md_build_a_catalog_a_partner_can_sell() {
    if !tools_present(PAGE, &["curl", "jq"]) {
        return;
    }
    let app = spawn_app().await;
    let script = script_of(
        DOC,
        &[
            (
                "BASE=http://127.0.0.1:3000",
                format!("BASE={}", app.base_url),
            ),
            ("ADMIN=operator-secret", format!("ADMIN={ADMIN_TOKEN}")),
        ],
    );
    let printed = run(script, None).await;

    assert_prints_in_order(PAGE, &printed, &EXPECTED);
    assert_eq!(problems_in(&printed), Vec::<&str>::new(), "{printed}");
    // On sale from the calendar's first day: today, or tomorrow once today's last slot began.
    let first = printed
        .rsplit(r#""first_available_date":""#)
        .next()
        .and_then(|rest| rest.get(..10))
        .unwrap();
    let today = today_in("Europe/Amsterdam");
    assert!(
        [today, shift(today, 1)]
            .map(|d| d.to_string())
            .contains(&first.to_owned()),
        "first on sale {first}, today is {today}"
    );
}
