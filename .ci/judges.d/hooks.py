"""schemathesis hooks of the judges (.ci/judges): the allow-list.

`positive_data_acceptance` fails when a request the document calls valid is refused with 400 or
422. A few refusals follow business rules that no JSON Schema can state; those, and only those,
are allowed: as (operation, problem type) pairs in ALLOWED below, and, for a rule between two
fields of one request (JSON Schema states each field alone), as (operation, field, code) in
BETWEEN_FIELDS (or, for rules against stored data or server policy, as a code allowed on any
field in EVERYWHERE), a `request-validation-failed` being allowed only when each of its
`errors` is listed. Each entry has its reason. The built-in check is run with `--exclude-checks
positive_data_acceptance` and this one in its place (it is the built-in check, minus these).

With JUDGES_TRACE=<file>, each refused schema-valid request's operation and problem are appended
to <file>, allowed or not (to see every rule an operation trips, not only its first failure).
"""

import json
import os
import re

import schemathesis
from schemathesis.specs.openapi.checks import positive_data_acceptance

PREFIX = "urn:boxoffice:error:"

# operation label (METHOD /path as in the document) -> problem types allowed, with why.
ALLOWED = {
    # A cursor is an HMAC over its position, endpoint, filters and limit: any other string is
    # refused, and no schema can say which strings a server signed.
    "*": {"next-token-invalid", "next-token-mismatch"},
    # A session code is one the server issued, unused and unexpired: state, not shape.
    "POST /v1/session/token": {"session-code-invalid", "session-code-expired"},
    "POST /v1/oauth/token": {"session-code-invalid", "session-code-expired"},
    # A pairing code is one the server issued for a gate, unused, unexpired: state, not shape.
    "POST /v2/gate-pairings": {"gate-pairing-invalid"},
    # A basket spans one merchant and provider, names each product once, and needs an address
    # only when it holds a physical product: rules over the catalog, not the body's shape.
    "POST /v2/checkouts": {
        "checkout-basket-spans-merchants", "checkout-basket-spans-providers",
        "checkout-basket-line-invalid", "checkout-date-in-past",
    },
    "POST /v2/checkouts/express": {
        "checkout-basket-spans-merchants", "checkout-basket-spans-providers",
        "checkout-basket-line-invalid", "checkout-date-in-past",
        "checkout-shipping-address-required", "checkout-timeslot-required",
        # Which questions must be answered is the catalog's (docs/api-checkout.md).
        "checkout-answer-required",
    },
    "POST /v2/checkouts/{checkout_id}/confirm": {"checkout-answer-required"},
    # A picture's bytes must decode as PNG, JPEG or WebP within the pixel caps
    # (docs/operator-catalog.md, "Pictures"): a binary string's schema cannot say which do.
    "POST /admin/v1/merchants/{merchant_id}/images": {
        "image-unsupported", "image-unreadable", "image-too-large",
    },
    "POST /admin/v1/products/{product_id}/images": {
        "image-unsupported", "image-unreadable", "image-too-large",
    },
}


# operation label -> {(field, code): why}: rules between fields of one request, or between a
# request and what is stored. A field's list index is written `[*]`.
# `until` on or after `from`, and at most 366 days after it: rules between two parameters.
RANGE = {
    ("until", "before_from"): "until before from",
    ("until", "range_too_long"): "from..until longer than 366 days",
}
# Search near a point: latitude and longitude go together, a radius needs both.
NEAR = {
    ("latitude", "required"): "latitude without longitude",
    ("longitude", "required"): "longitude without latitude",
    ("radius_km", "requires_location"): "radius_km without a point",
}
# A cursor pages a request sent with `limit`.
PAGED = {("next_token", "requires_limit"): "next_token without limit"}
# One translation per locale: JSON Schema's uniqueItems compares whole items, not one key.
LOCALES = {("translations[*].locale", "duplicate"): "two translations for one locale"}
ISSUER = {
    ("api_keys", "not_allowed"): "api_keys only when jwks_url_template has {apiKey}",
    ("api_keys", "required"): "jwks_url_template with {apiKey} needs api_keys",
}
VOUCHER = {
    ("value", "out_of_range"): "a PERCENTAGE voucher's value is at most 100, an AMOUNT's is not",
    ("valid_until", "before_valid_from"): "valid_until after valid_from",
}
PRODUCT = {
    ("age_group", "not_allowed"): "age_group only for product_type TICKET",
    ("ticket_validity_date", "required"): "VALIDITY_PERIOD needs ticket_validity_date",
    ("ticket_validity_date", "not_allowed"): "ticket_validity_date only with VALIDITY_PERIOD",
}
# A product's after-sale policy (docs/operator-catalog.md, "After the sale"): rules between its
# fields and the product's, and bounds the patterns cannot state.
AFTER_SALE = {
    ("after_sale.withdrawal_days", "not_allowed"): "dated leisure tickets carry no withdrawal right",
    ("after_sale.rebook_until", "not_allowed"): "an undated product has no date to change",
    ("after_sale.refund_rules[*].until", "order"): "each rule closer to the visit than the one before",
    ("after_sale.refund_rules[*].until", "invalid"): "a duration longer than ten years",
    ("after_sale.rebook_until", "invalid"): "a duration longer than ten years",
    # A fee is a Money, whose value the shared Money schema states only as a decimal string.
    ("after_sale.refund_rules[*].fee", "invalid"): "a Money's value is a decimal string",
    ("after_sale.refund_rules[*].fee", "negative"): "a fee is not negative",
    ("after_sale.refund_rules[*].fee", "precision"): "a fee has at most two decimals",
    ("after_sale.refund_rules[*].fee", "too_large"): "a fee within the amounts' bound",
}
# A product's booking questions (docs/operator-catalog.md, "Booking questions"): a label in
# at least one language, choices exactly on a select question, ids and choices each once.
QUESTIONS = {
    ("questions[*].question_id", "duplicate"): "each question id once on a product",
    ("questions[*].label", "required"): "a label in at least one language",
    ("questions[*].options[*].label", "required"): "a choice's label in at least one language",
    ("questions[*].options", "length"): "a select question has 1 to 50 choices",
    ("questions[*].options", "not_allowed"): "choices only on a select question",
    ("questions[*].options[*].value", "duplicate"): "each choice once",
}
# Answers name the basket's questions, which are the catalog's: stored data, not shape.
ANSWERS = {
    ("answers[*].question_id", "unknown"): "a question the basket's products ask",
    ("answers[*].ticket", "out_of_range"): "a ticket within its line's quantity",
    ("answers[*]", "line_and_ticket"): "line and ticket together, for a per-ticket question",
    ("answers[*]", "duplicate"): "one answer per question and ticket",
    ("answers[*].value", "invalid"): "a value its question's input type takes",
    ("answers[*].value", "length"): "a text question's answer of at most 200 characters",
}
# A picture's alternative text in at least one language (each language's member is optional).
IMAGES = {("alt", "required"): "an alternative text in at least one language"}
CLIENT = {
    # The theme's colours are checked against each other (WCAG contrast, light or dark).
    ("theme.text", "contrast"): "contrast between two colours",
    ("theme.accent_text", "contrast"): "contrast between two colours",
    ("theme.accent", "contrast"): "contrast between two colours",
    ("theme.background", "contrast"): "contrast between two colours",
    ("theme.text", "color_scheme"): "background lighter or darker than text, by scheme",
    ("theme.background", "color_scheme"): "background lighter or darker than text, by scheme",
    # The font stack's grammar (families, quoting, at most 10) beyond its characters.
    ("theme.font_stack", "font_stack"): "a font stack's grammar",
}
# A merchant's VAT rates and fee (docs/settlement.md): rules between its rates and its
# currency, and the amounts' bound beyond the pattern.
SETTLEMENT = {
    ("tax.rates", "default"): "at most one rate without product_ids",
    ("tax.rates[*].product_ids", "duplicate"): "a product named by one rate at most",
    ("platform_fee.fixed.currency", "currency"): "a fixed fee in the merchant's currency",
}
TIMES = {
    ("times[*].end", "not_after_start"): "a window's end after its start",
    ("times[*].start", "duplicate"): "windows with distinct starts",
}
BETWEEN_FIELDS = {
    "GET /v2/products/{product_id}/calendar": RANGE,
    "GET /admin/v1/products/{product_id}/calendar": RANGE,
    "PUT /admin/v1/products/{product_id}/calendar": RANGE,
    "GET /admin/v1/availability-groups/{availability_group_id}/timeslots": RANGE,
    "PUT /admin/v1/availability-groups/{availability_group_id}/timeslots": {**RANGE, **TIMES},
    # Two ways to say where to read from; one request takes one.
    "GET /v2/events": {("resume_token", "conflict"): "next_token or resume_token, not both"},
    # A search needs a word: the pattern admits any character but white space and ASCII
    # punctuation (portable between ECMA-262 and Python's re), the server a letter or digit.
    "GET /v2/merchants/search": {**NEAR, **PAGED, ("q", "no_words"): "a letter or digit"},
    "GET /v2/merchants/broadsearch": {**PAGED, ("q", "no_words"): "a letter or digit"},
    "POST /admin/v1/merchants": {**LOCALES, **SETTLEMENT},
    "PUT /admin/v1/merchants/{merchant_id}": {**LOCALES, **SETTLEMENT},
    "POST /admin/v1/products": {**LOCALES, **PRODUCT, **AFTER_SALE, **QUESTIONS},
    "PUT /admin/v1/products/{product_id}": {**LOCALES, **PRODUCT, **AFTER_SALE, **QUESTIONS},
    "POST /v2/checkouts": ANSWERS,
    "POST /admin/v1/merchants/{merchant_id}/images": IMAGES,
    "POST /admin/v1/products/{product_id}/images": IMAGES,
    # The slot must be one of the product's on that day: stored data, not shape.
    "POST /admin/v1/products/{product_id}/calendar/{date}/cancellation": {
        ("timeslot_id", "unknown"): "a slot of the product on that day",
    },
    "POST /admin/v1/identity-issuers": ISSUER,
    "PUT /admin/v1/identity-issuers/{identity_issuer_id}": ISSUER,
    "POST /admin/v1/vouchers": VOUCHER,
    "PUT /admin/v1/vouchers/{voucher_id}": VOUCHER,
    "POST /admin/v1/clients": CLIENT,
    "PUT /admin/v1/clients/{partner_client_id}": {
        **CLIENT,
        ("client_id", "immutable"): "a client's client_id, once issued, stays",
    },
    "POST /v1/session": {
        ("user.locked[*]", "required"): "a locked field must be sent in user",
        ("code_challenge", "unsupported"): "PKCE only in headless mode",
        ("code_challenge", "required"): "code_challenge_method without code_challenge",
        ("code_challenge_method", "unsupported"): "code_challenge without method S256",
    },
    # A gate names each product once (utoipa cannot say uniqueItems on a field).
    "POST /admin/v1/merchants/{merchant_id}/gates": {
        ("product_ids[*]", "duplicate"): "each product once",
    },
    "PUT /admin/v1/gates/{gate_id}": {("product_ids[*]", "duplicate"): "each product once"},
    # An offline scan happened before the upload: its time against the server's clock.
    "POST /v2/redemptions/batch": {
        ("scans[*].scanned_at", "future"): "a scan's time not after the server's clock",
    },
    # The return URL's origin must be one the partner registered: stored data, not shape.
    "POST /v2/checkouts/{checkout_id}/confirm": {
        **ANSWERS, ("return_url", "origin-not-allowed"): "registered origins",
    },
    "POST /v2/checkouts/express": {
        **ANSWERS, ("return_url", "origin-not-allowed"): "registered origins",
    },
}
# Everywhere: an id in a body must name a stored record (of the right merchant), which is
# state, not shape.
EVERYWHERE = {
    ("*", "unknown_reference"): "an id of no stored record",
    ("*", "invalid_reference"): "a record of another merchant",
    # Where the server may send requests is its operator's policy (BOXOFFICE_ALLOW_PRIVATE_OUTBOUND).
    ("*", "non_public_address"): "a URL at a loopback, private or link-local address",
    # No text holds U+0000 (PostgreSQL's text cannot store it); a pattern on every string
    # field of the document would say it, at the price of every pattern's readability.
    ("*", "nul"): "text with U+0000",
    # Nor a control character (a line break would start a line of its own in a mail or a
    # calendar file); the same price for the same pattern.
    ("*", "control_character"): "text with a control character",
    # A time zone is a name of the IANA database: the pattern states its spelling, the list
    # of names is the server's (600 values made an enum no client generator could take).
    ("*", "timezone"): "a name the IANA time zone database does not hold",
}


def _problem(response):
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return None, []
    if not isinstance(body, dict):
        return None, []
    kind = body.get("type")
    kind = kind[len(PREFIX):] if isinstance(kind, str) and kind.startswith(PREFIX) else None
    errors = [
        (re.sub(r"\[[0-9]+\]", "[*]", str(e.get("field"))), e.get("code"), str(e.get("message")))
        for e in body.get("errors") or []
        if isinstance(e, dict)
    ]
    return kind, errors


def _rule_between_fields(label, error):
    field, code, _message = error
    rules = BETWEEN_FIELDS.get(label, {})
    return (field, code) in rules or ("*", code) in EVERYWHERE


def allowed(label, response):
    kind, errors = _problem(response)
    if kind is None:
        return False
    if kind in ALLOWED.get(label, ()) or kind in ALLOWED["*"]:
        return True
    return (
        kind == "request-validation-failed"
        and bool(errors)
        and all(_rule_between_fields(label, e) for e in errors)
    )


def _trace(label, response):
    path = os.environ.get("JUDGES_TRACE")
    if path and response.status_code in (400, 422):
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{label}\t{response.status_code}\t{_problem(response)}\n")


@schemathesis.check
def positive_data_acceptance_allow_listed(ctx, response, case):
    """positive_data_acceptance, except the allow-listed business rules."""
    meta = case.meta
    if meta is not None and meta.generation.mode.is_positive:
        _trace(case.operation.label, response)
    if allowed(case.operation.label, response):
        return None
    return positive_data_acceptance(ctx, response, case)
