//! The entry points the fuzz targets in `fuzz/` drive (cargo-fuzz; docs/development.md,
//! "Fuzzing"): what an anonymous caller's bytes reach before anything is looked up. Each must
//! answer, for any input, without panicking; where it accepts, what it accepted must survive
//! its own round trip. The unit tests below drive each with generated inputs (proptest, seeded),
//! so the test command fuzzes them on every run in its ordinary build, without libFuzzer.

use app::wire::{CheckoutRequest, ExpressCheckoutRequest, Locale};
use chrono_tz::Tz;
use uuid::Uuid;

use crate::{
    checkout::{
        basket,
        visit::{Visit, VisitInput},
    },
    http::{
        cursor::{CursorSigner, Scope},
        extract::parse_json,
    },
};

/// A `next_token` as a client sends it back: decoded against a scope, never trusted.
pub fn cursor(data: &[u8]) {
    let Ok(token) = std::str::from_utf8(data) else {
        return;
    };
    let (signer, scope) = cursor_signer();
    if let Ok(position) = signer.decode::<(String, Uuid)>(&scope, token) {
        // Only a token this signer made decodes, and it decodes to what it carried.
        let again = signer.encode(&scope, &position);
        assert_eq!(
            signer.decode::<(String, Uuid)>(&scope, &again).ok(),
            Some(position)
        );
    }
}

/// The signer and the scope the `cursor` target decodes against.
fn cursor_signer() -> (CursorSigner, Scope<'static>) {
    let signer = CursorSigner::new(b"fuzzing cursor key".to_vec());
    let scope = Scope {
        endpoint: "/v2/merchants",
        filters: "campaign_id=",
        limit: 20,
    };
    (signer, scope)
}

/// A checkout's `date`, parsed and placed in zones with DST gaps, folds and far offsets.
pub fn visit_date(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(input) = VisitInput::parse(text) {
        for zone in [
            Tz::Europe__Amsterdam,
            Tz::Pacific__Kiritimati,
            Tz::Pacific__Pago_Pago,
        ] {
            let visit = Visit::resolve(input, zone);
            let _ = visit.slot_time();
        }
    }
}

/// An `Accept-Language` header: always some supported language.
pub fn accept_language(data: &[u8]) {
    let header = String::from_utf8_lossy(data);
    let locale = Locale::negotiate(Some(&header));
    assert!(Locale::ALL.contains(&locale));
}

/// A checkout's body: decoded as the two checkout requests, and when it decodes, the basket
/// checked, as the handlers do before anything is looked up.
pub fn request_body(data: &[u8]) {
    if let Ok(request) = parse_json::<ExpressCheckoutRequest>(data).map_err(basket::line_problem) {
        let (basket_request, _) = request.split();
        let _ = basket::check_request(&basket_request);
    }
    if let Ok(request) = parse_json::<CheckoutRequest>(data).map_err(basket::line_problem) {
        let _ = basket::check_request(&request);
    }
}

#[cfg(test)]
mod tests {
    //! Each target on the inputs libFuzzer would start from and on what proptest makes of them:
    //! the files of its corpus in `fuzz/corpus/<target>/` (when `fuzz/run.sh` left one) and its
    //! seeds, each once; then generated inputs, drawn from three sources alike: a seed or
    //! corpus file with a few bytes edited, text from the grammar of what the target parses,
    //! and plain bytes. The seed is fixed, so a failure repeats; `PROPTEST_CASES` and
    //! `PROPTEST_RNG_SEED` make a longer or another hunt (docs/development.md, "Fuzzing").

    use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
    use proptest::{
        collection::vec,
        prelude::*,
        sample::{select, Index},
        string::string_regex,
        test_runner::{Config, RngSeed, TestError, TestRunner},
    };
    use serde_json::{Map, Value};

    use super::*;

    /// Generated inputs per target and run (well under a second each in a debug build).
    const CASES: u32 = 5_000;

    /// Runs `target` on its corpus and seeds, then on `CASES` generated inputs; on a failure,
    /// panics with the smallest failing input proptest found, escaped.
    fn drive(name: &str, target: fn(&[u8]), seeds: &[&[u8]], grammar: BoxedStrategy<Vec<u8>>) {
        let mut pool: Vec<Vec<u8>> = seeds.iter().map(|seed| seed.to_vec()).collect();
        pool.extend(corpus(name));
        for input in &pool {
            target(input);
        }
        let inputs = prop_oneof![
            4 => edited(pool),
            4 => grammar,
            2 => vec(any::<u8>(), 0..96),
        ];
        let mut config = Config::default();
        if std::env::var_os("PROPTEST_CASES").is_none() {
            config.cases = CASES;
        }
        if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
            config.rng_seed = RngSeed::Fixed(18);
        }
        config.failure_persistence = None;
        let outcome = TestRunner::new(config).run(&inputs, |input| {
            target(&input);
            Ok(())
        });
        match outcome {
            Ok(()) => {}
            Err(TestError::Fail(why, input)) => {
                panic!("{name} failed ({why}) on b\"{}\"", input.escape_ascii())
            }
            Err(TestError::Abort(why)) => panic!("{name}: proptest gave up: {why}"),
        }
    }

    /// The files libFuzzer kept for `name`, in name order; none in a fresh clone.
    fn corpus(name: &str) -> Vec<Vec<u8>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/corpus")
            .join(name);
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut paths: Vec<_> = entries.flatten().map(|entry| entry.path()).collect();
        paths.sort();
        paths
            .iter()
            .filter_map(|path| std::fs::read(path).ok())
            .collect()
    }

    /// One of `pool` with one to three edits: a byte replaced or inserted, the rest cut off, or
    /// the rest repeated.
    fn edited(pool: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
        (
            select(pool),
            vec((0..4u8, any::<Index>(), any::<u8>()), 1..4),
        )
            .prop_map(|(mut bytes, edits)| {
                for (edit, at, byte) in edits {
                    if bytes.is_empty() {
                        bytes.push(byte);
                        continue;
                    }
                    let at = at.index(bytes.len());
                    match edit {
                        0 => bytes[at] = byte,
                        1 => bytes.insert(at, byte),
                        2 => bytes.truncate(at),
                        _ => bytes.extend_from_within(at..),
                    }
                }
                bytes
            })
    }

    /// Text matching `regex`, as bytes.
    fn text(regex: &str) -> BoxedStrategy<Vec<u8>> {
        string_regex(regex)
            .expect("a valid regex")
            .prop_map(String::into_bytes)
            .boxed()
    }

    /// The grammar of a visit date: ISO dates and times, with odd widths and offsets.
    const VISIT_DATE: &str = r"[+-]?[0-9]{1,6}-[0-9]{1,2}-[0-9]{1,2}(T[0-9]{1,2}(:[0-9]{1,2}(:[0-9]{1,2}(\.[0-9]{0,12})?)?)?(Z|[+-][0-9]{1,2}(:?[0-9]{1,2})?)?)?";

    #[test]
    fn a_cursor_of_any_bytes_is_refused_or_is_one_we_made() {
        let (signer, scope) = cursor_signer();
        let made = signer.encode(&scope, &("Zoo".to_owned(), Uuid::nil()));
        // Tokens this signer made for any position, which must decode to it again.
        let tokens = (".{0,16}", any::<u128>()).prop_map(move |(name, id)| {
            signer
                .encode(&scope, &(name, Uuid::from_u128(id)))
                .into_bytes()
        });
        let grammar = prop_oneof![
            text("[A-Za-z0-9_-]{0,120}"),
            // Past the base64 and the length check, to the tags.
            vec(any::<u8>(), 33..160).prop_map(|bytes| URL_SAFE_NO_PAD.encode(bytes).into_bytes()),
            tokens,
        ];
        let seeds: &[&[u8]] = &[made.as_bytes(), b"", b"AAAA", b"%%%"];
        drive("cursor", cursor, seeds, grammar.boxed());
    }

    #[test]
    fn a_visit_date_of_any_bytes_parses_or_is_refused() {
        let seeds: &[&[u8]] = &[
            b"2026-03-29T02:30:00",
            b"2026-10-25T02:30:00+01:00",
            b"2026-12-01",
            b"2026-12-01T10:00",
            b"+275760-09-13T00:00:00Z",
            b"9999-12-31T23:59:59.999999999-23:59",
        ];
        drive("visit_date", visit_date, seeds, text(VISIT_DATE));
    }

    #[test]
    fn an_accept_language_of_any_bytes_gives_a_supported_language() {
        let seeds: &[&[u8]] = &[
            b"nl-NL,en;q=0.8",
            b"*;q=0.1, de-AT",
            b"en;q=0",
            b"fr;q=1.0000",
        ];
        let grammar = text(
            r"((\*|[A-Za-z]{1,9}(-[A-Za-z0-9]{1,9}){0,2})( ?; ?q=[0-9.-]{0,7})?[ ,;]{0,2}){0,6}",
        );
        drive("accept_language", accept_language, seeds, grammar);
    }

    #[test]
    fn a_checkout_body_of_any_bytes_is_decoded_or_refused() {
        let seeds: &[&[u8]] = &[
            br#"{"date":"2026-12-01","flexible_date":false,"lines":[{"product_id":"00000000-0000-0000-0000-000000000001","quantity":2}],"email":"a@b.nl","first_name":"A","last_name":"B","return_url":"http://localhost:5173/"}"#,
            br#"{"date":"2026-12-01","flexible_date":true,"lines":[],"voucher_codes":["X"]}"#,
            br#"{"lines":[{"quantity":-1e308}]}"#,
        ];
        // Mostly well-formed bodies of either request, which decode and reach the basket
        // checks; the rest with fields missing or of another type, here and there.
        let grammar = prop_oneof![
            checkout_body(true, 0),
            checkout_body(false, 0),
            checkout_body(true, 1),
            checkout_body(false, 1),
        ]
        .prop_map(|body| serde_json::to_vec(&body).expect("JSON"));
        drive("request_body", request_body, seeds, grammar.boxed());
    }

    /// A JSON value of no particular kind.
    fn any_json() -> BoxedStrategy<Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,24}".prop_map(Value::from),
        ]
        .boxed()
    }

    /// A field: missing or of another type `wrong` times in 20 each, else of its type; an
    /// optional field is missing half of the other times.
    fn field(
        name: &'static str,
        typed: BoxedStrategy<Value>,
        optional: bool,
        wrong: u32,
    ) -> BoxedStrategy<Option<(String, Value)>> {
        let named = move |value| Some((name.to_owned(), value));
        let missing = wrong + if optional { 10 } else { 0 };
        let typed = typed.prop_map(named);
        if missing == 0 {
            return typed.boxed();
        }
        prop_oneof![
            missing => Just(None),
            20 - 2 * wrong => typed,
            wrong => any_json().prop_map(named),
        ]
        .boxed()
    }

    /// An object of the fields that are there.
    fn object(fields: Vec<BoxedStrategy<Option<(String, Value)>>>) -> BoxedStrategy<Value> {
        fields
            .prop_map(|fields| Value::Object(fields.into_iter().flatten().collect::<Map<_, _>>()))
            .boxed()
    }

    /// A string matching `regex` mostly, now and then any string.
    fn string(regex: &str) -> BoxedStrategy<Value> {
        prop_oneof![
            4 => string_regex(regex).expect("a valid regex").prop_map(Value::from),
            1 => any::<String>().prop_map(Value::from),
        ]
        .boxed()
    }

    /// A list: mostly of a few items, now and then of about `bound`.
    fn list(item: BoxedStrategy<Value>, bound: usize) -> BoxedStrategy<Value> {
        prop_oneof![
            4 => vec(item.clone(), 0..3),
            1 => vec(item, bound - 1..bound + 2),
        ]
        .prop_map(Value::from)
        .boxed()
    }

    /// A body of the express checkout (`express`) or of the plain one, its fields and its
    /// lines' fields missing or of another type `wrong` times in 20 each; with `wrong` above
    /// 0, now and then a field neither request knows. Products repeat; quantities and lists
    /// come at and past their bounds.
    fn checkout_body(express: bool, wrong: u32) -> BoxedStrategy<Value> {
        let product = prop_oneof![
            3 => select(vec![1u128, 2, 3]).prop_map(|n| Value::from(Uuid::from_u128(n).to_string())),
            1 => any::<u128>().prop_map(|n| Value::from(Uuid::from_u128(n).to_string())),
        ];
        // Past u32 and below 0 only as the wrong type.
        let quantity = prop_oneof![
            6 => (0..=basket::MAX_QUANTITY + 2).prop_map(Value::from),
            1 => Just(Value::from(u32::MAX)),
        ];
        let line = object(vec![
            field("product_id", product.boxed(), false, wrong),
            field("quantity", quantity.boxed(), false, wrong),
        ]);
        let maybe =
            |value: BoxedStrategy<Value>| prop_oneof![1 => Just(Value::Null), 3 => value].boxed();
        let mut fields = vec![
            field("date", string(VISIT_DATE), false, wrong),
            field(
                "flexible_date",
                any::<bool>().prop_map(Value::from).boxed(),
                false,
                wrong,
            ),
            field("lines", list(line, basket::MAX_LINES), false, wrong),
            field(
                "voucher_codes",
                list(string("[A-Z0-9]{0,70}"), basket::MAX_VOUCHER_CODES),
                true,
                wrong,
            ),
            field(
                "external_reference",
                maybe(string("[ -~]{0,210}")),
                true,
                wrong,
            ),
        ];
        if express {
            let address = ["street", "house_number", "postal_code", "city", "country"]
                .into_iter()
                .map(|name| field(name, string("[ -~]{0,40}"), false, wrong))
                .collect();
            fields.extend([
                field(
                    "email",
                    string("[a-z.]{0,12}@[a-z]{1,8}\\.[a-z]{2,3}"),
                    false,
                    wrong,
                ),
                field("first_name", string("[A-Za-z ]{0,20}"), false, wrong),
                field("last_name", string("[A-Za-z ]{0,20}"), false, wrong),
                field(
                    "return_url",
                    string("(https?://)?[a-z.:0-9]{0,20}/[ -~]{0,20}"),
                    false,
                    wrong,
                ),
                field("newsletters", list(string("[a-z-]{0,12}"), 3), true, wrong),
                field("shipping_address", maybe(object(address)), true, wrong),
            ]);
        } else {
            fields.push(field(
                "replaces",
                maybe(string("[0-9a-f-]{36}")),
                true,
                wrong,
            ));
        }
        if wrong > 0 {
            fields.push(field("surprise", any_json(), true, wrong));
        }
        object(fields)
    }
}
