"""Obtains the credentials the judges pass to the operations that take them, from a server
started in demo mode (BOXOFFICE_DEMO=1): a backend bearer (client credentials of the demo
partner), a public bearer (session -> exchange), a gate bearer (a gate of the demo's first
merchant) and, when the server's outbox can be read, a
merchant bearer (onboarding magic link -> code exchange). Prints them as shell assignments.

usage: credentials.py BASE_URL ADMIN_TOKEN
"""

import json
import os
import sys
import urllib.parse
import urllib.request
import uuid

CLIENT_ID = "demo-partner"
CLIENT_SECRET = os.environ.get("BOXOFFICE_DEMO_CLIENT_SECRET", "demo-secret")
STAGE = os.environ.get("BOXOFFICE_STAGE", "prod")
CAMPAIGN_ID = "d3e0ca11-0000-4000-8000-000000000001"  # the demo campaign (server/src/demo.rs)


def call(base, method, path, body=None, token=None, form=False):
    headers = {"Accept": "application/json"}
    data = None
    if body is not None and form:
        data = urllib.parse.urlencode(body).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def backend_bearer(base):
    token = call(base, "POST", "/oauth/token", {
        "grant_type": "client_credentials",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }, form=True)
    return token["access_token"]


def public_bearer(base, backend):
    started = call(base, "POST", "/v1/session", {
        "integration": "headless",
        "user": {"reference": f"judge-{uuid.uuid4()}"},
        "campaign_id": CAMPAIGN_ID,
    }, token=backend)
    issued = call(base, "POST", "/v1/session/token", {
        "session_code": started["data"]["session_code"],
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    })
    return issued["data"]["access_token"]


def gate_bearer(base, admin):
    """A gate of the demo's first merchant, and its bearer (docs/gate.md)."""
    merchants = call(base, "GET", "/admin/v1/merchants?limit=1", token=admin)
    merchant = merchants["data"][0]["merchant_id"]
    gate = call(base, "POST", f"/admin/v1/merchants/{merchant}/gates",
                {"name": "Judges' gate"}, token=admin)["data"]
    token = call(base, "POST", "/oauth/token", {
        "grant_type": "client_credentials",
        "client_id": gate["client_id"],
        "client_secret": gate["client_secret"],
    }, form=True)
    return token["access_token"]


def main():
    base, admin = sys.argv[1].rstrip("/"), sys.argv[2]
    backend = backend_bearer(base)
    public = public_bearer(base, backend)
    print(f"BACKEND_BEARER={backend}")
    print(f"PUBLIC_BEARER={public}")
    print(f"ADMIN_TOKEN={admin}")
    print(f"GATE_BEARER={gate_bearer(base, admin)}")
    # A merchant bearer needs the onboarding code from the outbox, which HTTP does not show.
    print("MERCHANT_BEARER=none")


if __name__ == "__main__":
    main()
