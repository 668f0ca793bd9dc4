//! The input rules of `validate`, case by case.

use super::*;

#[test]
fn the_largest_amount_has_eight_digits_before_the_point() {
    assert_eq!(MAX_AMOUNT.to_string(), "99999999.99");
    let mut checks = Checks::default();
    checks.non_negative_amount("a", MAX_AMOUNT);
    checks.positive_amount("b", MAX_AMOUNT);
    assert!(checks.finish().is_ok());
    let mut checks = Checks::default();
    checks.non_negative_amount("a", "100000000".parse().unwrap());
    checks.positive_amount("b", "100000000.00".parse().unwrap());
    assert_eq!(
        failed_with_codes(checks),
        [
            ("a".into(), "too_large".into()),
            ("b".into(), "too_large".into())
        ]
    );
}

#[test]
fn origins() {
    for ok in [
        "https://shop.example",
        "http://localhost:*",
        "http://127.0.0.1:3000",
        "https://shop.example:65535",
    ] {
        assert!(is_origin_pattern(ok), "{ok}");
    }
    for bad in [
        "shop.example",
        "https://shop.example/path",
        "ftp://x",
        "https://",
        "https://a:b",
        "https://u@x",
        "https://shop.example:65536",
        "https://shop.example:0",
        "http://[::1]:8080",
    ] {
        assert!(!is_origin_pattern(bad), "{bad}");
    }
}

fn failed_fields(checks: Checks) -> Vec<String> {
    match checks.finish() {
        Ok(()) => Vec::new(),
        Err(Error::Problem { errors, .. }) => errors.into_iter().map(|e| e.field).collect(),
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn ranges_dates_times_and_repeats() {
    let d = |s: &str| s.parse::<NaiveDate>().unwrap();
    let mut checks = Checks::default();
    checks.in_range("lat", 90.0, -90.0, 90.0);
    checks.date_range("until", d("2026-01-01"), d("2026-12-31"), 366);
    checks.date_range("until", d("2028-01-01"), d("2028-12-31"), 366);
    assert_eq!(
        checks.time_of_day("t", "23:59"),
        NaiveTime::from_hms_opt(23, 59, 0)
    );
    checks.distinct([1, 2, 3], |i| format!("x[{i}]"));
    assert!(failed_fields(checks).is_empty());

    let mut checks = Checks::default();
    checks.in_range("a", 90.5, -90.0, 90.0);
    checks.in_range("b", f64::NAN, -90.0, 90.0);
    checks.date_range("c", d("2026-01-02"), d("2026-01-01"), 366);
    checks.date_range("d", d("2026-01-01"), d("2027-01-02"), 366);
    for bad in ["24:00", "9:30", "09:30:00", "0930", "ab:cd"] {
        assert_eq!(checks.time_of_day("e", bad), None, "{bad}");
    }
    checks.distinct(["x", "y", "x"], |i| format!("f[{i}]"));
    let fields = failed_fields(checks);
    assert_eq!(
        fields,
        ["a", "b", "c", "d", "e", "e", "e", "e", "e", "f[2]"]
    );
}

#[test]
fn emails() {
    for ok in ["a@b.nl", "first.last+tag@sub.example.com"] {
        assert!(is_email(ok), "{ok}");
    }
    for bad in [
        "", "a", "a@b", "@b.nl", "a@@b.nl", "a b@c.nl", "a@.nl", "a@b.",
    ] {
        assert!(!is_email(bad), "{bad}");
    }
}

#[test]
fn amounts() {
    let mut checks = Checks::default();
    checks.non_negative_amount("a", "1.50".parse().unwrap());
    checks.non_negative_amount("b", "1.500".parse().unwrap());
    assert!(checks.finish().is_ok());
    let mut checks = Checks::default();
    checks.non_negative_amount("c", "-1".parse().unwrap());
    checks.non_negative_amount("d", "1.005".parse().unwrap());
    let Err(Error::Problem { errors, .. }) = checks.finish() else {
        panic!()
    };
    assert_eq!(errors.len(), 2);
}

fn failed_with_codes(checks: Checks) -> Vec<(String, String)> {
    match checks.finish() {
        Ok(()) => Vec::new(),
        Err(Error::Problem { errors, .. }) => {
            errors.into_iter().map(|e| (e.field, e.code)).collect()
        }
        Err(other) => panic!("{other:?}"),
    }
}

#[test]
fn texts_hold_no_control_characters() {
    let mut checks = Checks::default();
    checks.text("cr", "Artis\r\nX-INJECTED:1", 1, 200);
    checks.text("tab", "tab\there", 1, 200);
    checks.text("bell", "bell\u{7}", 1, 200);
    checks.text("nel", "next\u{85}line", 1, 200);
    checks.text("fine", "Café Ü 東京 – “quoted”", 1, 200);
    let control = |field: &str| (field.to_owned(), "control_character".to_owned());
    assert_eq!(
        failed_with_codes(checks),
        [
            control("cr"),
            control("tab"),
            control("bell"),
            control("nel")
        ]
    );
}

#[test]
fn url_templates() {
    let mut checks = Checks::default();
    checks.jwks_url_template("a", "https://idp.example/{apiKey}/jwks");
    checks.jwks_url_template("b", "https://idp.example/jwks?key={apiKey}");
    checks.jwks_url_template("c", "https://idp.example/jwks");
    assert!(failed_with_codes(checks).is_empty());
    let mut checks = Checks::default();
    checks.jwks_url_template("typo", "https://idp.example/{apikey}");
    checks.jwks_url_template("relative", "/{apiKey}/jwks");
    checks.jwks_url_template("scheme", "ftp://idp.example/{apiKey}");
    checks.jwks_url_template("host", "https://idp.example*/{apiKey}");
    let codes = failed_with_codes(checks);
    assert_eq!(
        codes,
        [
            ("typo".into(), "placeholder".into()),
            ("relative".into(), "url".into()),
            ("scheme".into(), "url".into()),
            ("host".into(), "url".into()),
        ]
    );
}

/// A return URL is taken as a browser writes a page's address, and exactly when the
/// document's pattern matches it.
#[test]
fn return_urls_are_what_the_pattern_says() {
    let pattern = regex::Regex::new(RETURN_URL_PATTERN).unwrap();
    let taken = [
        "http://localhost:8080/tickets/done?basket=7",
        "https://shop.example:65535/back?order=1&lang=nl#tickets",
        "http://127.0.0.1:3000/return?items[]=1&q={a|b}#/route?x=1#y",
        "https://shop.example",
    ];
    for url in taken {
        assert!(return_url(url).is_some(), "{url}");
        assert!(pattern.is_match(url), "{url}");
    }
    let refused = [
        " https://shop.example/back",
        "https://shop.example/back space",
        "https://user@shop.example/",
        "https://shop.example:65536/",
        "https://[::1]/",
        "ftp://shop.example/",
        "https://shop.example/<script>",
        "https://shop.example/%zz",
    ];
    for url in refused {
        assert!(return_url(url).is_none(), "{url}");
        assert!(!pattern.is_match(url), "{url}");
    }
}

/// The document's URL pattern is the server's rule: what it matches is a URL the server
/// parses, and what it does not is refused.
#[test]
fn http_urls_are_what_the_pattern_says() {
    let taken = [
        "https://www.example.com",
        "http://example.com:8080/a/b.html",
        "https://shop.example/path;v=1/~x?utm_source=a&ref=b%20c",
        "https://93.184.216.34:65535/",
    ];
    let refusals = |url: &str| {
        let mut checks = Checks::default();
        checks.http_url("url", url);
        failed_with_codes(checks).len()
    };
    for url in taken {
        assert_eq!(refusals(url), 0, "{url}");
    }
    let refused = [
        "https://example.com*",
        "https://exa mple.com",
        " https://example.com",
        "https://example.com/#top",
        "https://user@example.com/",
        "https://example.com:0/",
        "https://example.com:65536/",
        "https://[::1]/",
        "https://example.com/%zz",
        "https://1.2.3.04/",
        "https://example.com/ä",
        "ftp://example.com/",
        "HTTPS://EXAMPLE.COM/",
    ];
    for url in refused {
        assert_eq!(refusals(url), 1, "{url}");
    }
}

#[test]
fn identifiers() {
    let mut checks = Checks::default();
    checks.identifier("a", "demo-partner", 3, 64);
    checks.identifier("b", "pc_0f.A", 3, 64);
    assert!(failed_with_codes(checks).is_empty());
    let mut checks = Checks::default();
    checks.identifier("space", "a b c", 3, 64);
    checks.identifier("colon", "a:bc", 3, 64);
    checks.identifier("short", "ab", 3, 64);
    checks.identifier("unicode", "café", 3, 64);
    assert_eq!(failed_with_codes(checks).len(), 4);
}

#[test]
fn positive_amounts_and_percentages() {
    let d = |s: &str| s.parse::<Decimal>().unwrap();
    let mut checks = Checks::default();
    checks.positive_amount("a", d("0.01"));
    checks.percentage("b", d("100"));
    checks.percentage("c", d("12.50"));
    assert!(failed_with_codes(checks).is_empty());
    let mut checks = Checks::default();
    checks.positive_amount("zero", d("0"));
    checks.positive_amount("negative", d("-5"));
    checks.positive_amount("cents", d("1.001"));
    checks.percentage("above", d("100.01"));
    checks.percentage("none", d("0"));
    checks.percentage("fine", d("0.005"));
    let codes: Vec<String> = failed_with_codes(checks)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert_eq!(
        codes,
        [
            "not_positive",
            "not_positive",
            "precision",
            "out_of_range",
            "out_of_range",
            "precision"
        ]
    );
}

#[test]
fn origin_lists_name_the_index() {
    let mut checks = Checks::default();
    checks.origins(
        "frame_origins",
        &["https://ok.example".into(), "https://x/path".into()],
        10,
    );
    assert_eq!(
        failed_with_codes(checks),
        [("frame_origins[1]".into(), "origin".into())]
    );
}
