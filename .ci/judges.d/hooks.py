"""schemathesis hooks of the judges (.ci/judges): the allow-list.

`positive_data_acceptance` fails when a request the document calls valid is refused with 400 or
422. A few refusals follow business rules that no JSON Schema can state; those, and only those,
are allowed, as (operation, problem type) pairs in ALLOWED below, each with its reason. The
built-in check is run with `--exclude-checks positive_data_acceptance` and this one in its place
(it is the built-in check, minus the pairs).
"""

import json

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
    },
}


def _problem_type(response):
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return None
    kind = body.get("type") if isinstance(body, dict) else None
    return kind[len(PREFIX):] if isinstance(kind, str) and kind.startswith(PREFIX) else None


def allowed(label, response):
    kind = _problem_type(response)
    return kind is not None and (kind in ALLOWED.get(label, ()) or kind in ALLOWED["*"])


@schemathesis.check
def positive_data_acceptance_allow_listed(ctx, response, case):
    """positive_data_acceptance, except the allow-listed business rules."""
    if allowed(case.operation.label, response):
        return None
    return positive_data_acceptance(ctx, response, case)
