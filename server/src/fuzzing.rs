//! The entry points the fuzz targets in `fuzz/` drive (cargo-fuzz; docs/development.md,
//! "Fuzzing"): what an anonymous caller's bytes reach before anything is looked up. Each must
//! answer, for any input, without panicking; where it accepts, what it accepted must survive
//! its own round trip. The unit tests below run each on random and mutated inputs, so the test
//! command exercises them on every run without libFuzzer.

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
    let signer = CursorSigner::new(b"fuzzing cursor key".to_vec());
    let scope = Scope {
        endpoint: "/v2/merchants",
        filters: "campaign_id=",
        limit: 20,
    };
    if let Ok(position) = signer.decode::<(String, Uuid)>(&scope, token) {
        // Only a token this signer made decodes, and it decodes to what it carried.
        let again = signer.encode(&scope, &position);
        assert_eq!(
            signer.decode::<(String, Uuid)>(&scope, &again).ok(),
            Some(position)
        );
    }
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
    use rand::{rngs::StdRng, Rng, SeedableRng};

    use super::*;

    /// Inputs for a target: its seeds, the seeds with bytes flipped, cut and repeated, and
    /// random bytes. Seeded, so a failure repeats.
    fn inputs(seeds: &[&[u8]]) -> Vec<Vec<u8>> {
        let mut rng = StdRng::seed_from_u64(18);
        let mut out: Vec<Vec<u8>> = seeds.iter().map(|s| s.to_vec()).collect();
        for _ in 0..3_000 {
            let mut bytes = seeds[rng.gen_range(0..seeds.len())].to_vec();
            for _ in 0..rng.gen_range(1..4) {
                if bytes.is_empty() {
                    break;
                }
                let at = rng.gen_range(0..bytes.len());
                match rng.gen_range(0..4) {
                    0 => bytes[at] = rng.gen(),
                    1 => bytes.truncate(at),
                    2 => bytes.insert(at, rng.gen()),
                    _ => {
                        let tail = bytes[at..].to_vec();
                        bytes.extend_from_slice(&tail);
                    }
                }
            }
            out.push(bytes);
        }
        for _ in 0..1_000 {
            let len = rng.gen_range(0..64);
            out.push((0..len).map(|_| rng.gen()).collect());
        }
        out
    }

    #[test]
    fn a_cursor_of_any_bytes_is_refused_or_is_one_we_made() {
        let signer = CursorSigner::new(b"fuzzing cursor key".to_vec());
        let scope = Scope {
            endpoint: "/v2/merchants",
            filters: "campaign_id=",
            limit: 20,
        };
        let made = signer.encode(&scope, &("Zoo".to_owned(), Uuid::nil()));
        for input in inputs(&[made.as_bytes(), b"", b"AAAA", b"%%%"]) {
            cursor(&input);
        }
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
        for input in inputs(seeds) {
            visit_date(&input);
        }
    }

    #[test]
    fn an_accept_language_of_any_bytes_gives_a_supported_language() {
        let seeds: &[&[u8]] = &[
            b"nl-NL,en;q=0.8",
            b"*;q=0.1, de-AT",
            b"en;q=0",
            b"fr;q=1.0000",
        ];
        for input in inputs(seeds) {
            accept_language(&input);
        }
    }

    #[test]
    fn a_checkout_body_of_any_bytes_is_decoded_or_refused() {
        let seeds: &[&[u8]] = &[
            br#"{"date":"2026-12-01","flexible_date":false,"lines":[{"product_id":"00000000-0000-0000-0000-000000000001","quantity":2}],"email":"a@b.nl","first_name":"A","last_name":"B","return_url":"http://localhost:5173/"}"#,
            br#"{"date":"2026-12-01","flexible_date":true,"lines":[],"voucher_codes":["X"]}"#,
            br#"{"lines":[{"quantity":-1e308}]}"#,
        ];
        for input in inputs(seeds) {
            request_body(&input);
        }
    }
}
