"""A headless partner of Boxoffice, built on the client openapi-python-client generates from
the server's /openapi.json (run.sh generates it as `boxoffice_client`; nothing here is
hand-written HTTP but the webhook receiver, which is the partner's own server).

    python partner.py BASE_URL ADMIN_TOKEN

The flow, each step through the generated client:
  0. the operator registers this partner: a client with a webhook URL and return origin
     pointing at the receiver started here (POST /admin/v1/clients);
  1. client credentials -> a backend bearer (POST /oauth/token);
  2. a session for one of the partner's users, its code exchanged for a public bearer
     (POST /v1/session, POST /v1/session/token);
  3. merchants, their products, a timeslotted product's calendar and its timeslots;
  4. an express checkout of two places in the first free slot (Idempotency-Key);
  5. the customer pays on the sandbox provider's page (POST /pay/{payment_id}?key=...,
     the page's Pay button);
  6. the order (paid, FULFILLED with its tickets) and the loyalty ledger (points earned for it);
  7. the signed orders.OrderPaid webhook, verified with the Standard Webhooks library, and a
     tampered copy of it refused.

Exits 0 when every step did what the API promises, 1 otherwise, printing each step.
"""

import datetime
import json
import queue
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from boxoffice_client import AuthenticatedClient, Client
from boxoffice_client.api.admin import admin_create_client
from boxoffice_client.api.catalog import calendar, list_merchants, list_products, timeslots
from boxoffice_client.api.checkout import express_checkout, get_checkout
from boxoffice_client.api.credentials import (
    client_credentials_token,
    exchange_session_code,
    start_session,
)
from boxoffice_client.api.orders import list_loyalty_entries, list_orders
from boxoffice_client.api.sandbox import complete_payment
from boxoffice_client.models import (
    BasketLine,
    ClientCredentialsRequest,
    ClientCredentialsRequestGrantTypeType0,
    ExpressCheckoutRequest,
    Integration,
    PartnerClientInput,
    PayAction,
    PayForm,
    SessionTokenRequest,
    SessionUser,
    StartSession,
    TimeslotQuery,
)

# The demo campaign (server/src/demo.rs); BOXOFFICE_DEMO=1 seeds it.
CAMPAIGN_ID = "d3e0ca11-0000-4000-8000-000000000001"
WEBHOOK_WAIT_SECONDS = 60


def step(text):
    print(f"[partner] {text}", flush=True)


def parsed(response, *statuses):
    """The parsed body of a generated call's response, which must have one of `statuses`."""
    if response.status_code not in statuses:
        raise SystemExit(
            f"expected {statuses}, got {response.status_code}: {response.content[:500]!r}"
        )
    return response.parsed


class Receiver(BaseHTTPRequestHandler):
    """The partner's own endpoint: webhooks are queued as received; the return URL answers."""

    deliveries: "queue.Queue[tuple[dict, bytes]]" = queue.Queue()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.deliveries.put((headers, body))
        self.send_response(204)
        self.end_headers()

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"Thanks for your order.")

    def log_message(self, *args):
        pass


def register_partner(base, admin_token, origin):
    """Step 0, the operator's: a partner client of the demo campaign with its webhook."""
    operator = AuthenticatedClient(base_url=base, token=admin_token)
    created = parsed(
        admin_create_client.sync_detailed(
            client=operator,
            body=PartnerClientInput(
                name="Headless example partner",
                campaign_ids=[uuid.UUID(CAMPAIGN_ID)],
                return_origins=[origin],
                webhook_url=f"{origin}/webhooks",
            ),
        ),
        201,
    ).data
    step(f"registered partner client {created.client_id} with webhook {origin}/webhooks")
    return created.client_id, created.client_secret, created.webhook_secret


def open_session(base, client_id, client_secret):
    """Steps 1 and 2: the backend bearer, a session, and its public bearer."""
    anonymous = Client(base_url=base)
    token = parsed(
        client_credentials_token.sync_detailed(
            client=anonymous,
            body=ClientCredentialsRequest(
                grant_type=ClientCredentialsRequestGrantTypeType0.CLIENT_CREDENTIALS,
                client_id=client_id,
                client_secret=client_secret,
            ),
        ),
        200,
    )
    backend = AuthenticatedClient(base_url=base, token=token.access_token)
    step(f"backend bearer, {token.expires_in} s")
    session = parsed(
        start_session.sync_detailed(
            client=backend,
            body=StartSession(
                integration=Integration.HEADLESS,
                user=SessionUser(
                    reference=f"example-user-{uuid.uuid4()}",
                    email="ada@example.com",
                    first_name="Ada",
                    last_name="Lovelace",
                ),
                campaign_id=uuid.UUID(CAMPAIGN_ID),
            ),
        ),
        201,
    ).data
    step(f"session code, expires {session.code_expires_at.isoformat()}")
    bearer = parsed(
        exchange_session_code.sync_detailed(
            client=anonymous,
            body=SessionTokenRequest(
                session_code=session.session_code,
                client_id=client_id,
                client_secret=client_secret,
            ),
        ),
        200,
    ).data
    step(f"public bearer, {bearer.expires_in} s")
    return backend, AuthenticatedClient(base_url=base, token=bearer.access_token)


def choose_slot(public):
    """Step 3: the first timeslotted product with a free slot on its first available day."""
    merchants = parsed(list_merchants.sync_detailed(client=public, limit=100), 200).data
    step(f"{len(merchants)} merchants")
    for merchant in merchants:
        # Workaround (README): UUID header parameters are passed as text.
        products = parsed(
            list_products.sync_detailed(merchant.id, client=public, x_campaign_id=CAMPAIGN_ID),
            200,
        ).data
        step(f"  {merchant.name}: {len(products)} products")
        for product in products:
            if not product.requires_timeslot or product.sold_out:
                continue
            days = parsed(calendar.sync_detailed(product.id, client=public), 200).data
            for day in (d for d in days if d.available):
                slots = parsed(
                    timeslots.sync_detailed(
                        client=public,
                        body=TimeslotQuery(product_id=product.id, date=day.date, quantity=2),
                    ),
                    200,
                ).data
                free = [s for s in slots if s.available]
                step(f"  {product.title} on {day.date}: {len(free)} of {len(slots)} slots free")
                if free:
                    return product, free[0]
    raise SystemExit("no timeslotted product with a free slot in the demo campaign")


def pay(base, payment_url):
    """Step 5: the customer presses Pay on the sandbox provider's page."""
    parts = urlsplit(payment_url)
    payment_id = uuid.UUID(parts.path.rsplit("/", 1)[-1])
    key = parse_qs(parts.query)["key"][0]
    customer = Client(base_url=base, follow_redirects=False)
    response = complete_payment.sync_detailed(
        payment_id, client=customer, key=key, body=PayForm(action=PayAction.PAY)
    )
    if response.status_code != 303:
        raise SystemExit(f"the sandbox payment answered {response.status_code}")
    step(f"paid; the customer is sent to {response.headers['location']}")


def await_webhook(secret, order_id):
    """Step 7: the orders.OrderPaid delivery, verified, and a tampered copy refused."""
    verifier = Webhook(secret)
    deadline = time.monotonic() + WEBHOOK_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            headers, body = Receiver.deliveries.get(timeout=1)
        except queue.Empty:
            continue
        event = verifier.verify(body, headers)
        step(f"webhook {headers['webhook-id']}: {event['type']} (signature verified)")
        if event["type"] != "orders.OrderPaid":
            continue
        if event["data"].get("order_id") != str(order_id):
            raise SystemExit(f"OrderPaid for another order: {event['data']}")
        tampered = body.replace(b"OrderPaid", b"OrderPaiD")
        try:
            verifier.verify(tampered, headers)
        except WebhookVerificationError:
            step("a tampered copy of it fails verification, as it must")
        else:
            raise SystemExit("a tampered webhook passed verification")
        return event
    raise SystemExit(f"no orders.OrderPaid webhook within {WEBHOOK_WAIT_SECONDS} s")


def main():
    base, admin_token = sys.argv[1].rstrip("/"), sys.argv[2]
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{receiver.server_address[1]}"

    client_id, client_secret, webhook_secret = register_partner(base, admin_token, origin)
    _backend, public = open_session(base, client_id, client_secret)
    product, slot = choose_slot(public)

    placed = parsed(
        express_checkout.sync_detailed(
            client=public,
            idempotency_key=str(uuid.uuid4()),  # Workaround (README): a UUID header as text.
            body=ExpressCheckoutRequest(
                date=slot.start_time,
                flexible_date=False,
                lines=[BasketLine(product_id=product.id, quantity=2)],
                email="ada@example.com",
                first_name="Ada",
                last_name="Lovelace",
                return_url=f"{origin}/return?basket=42",
            ),
        ),
        200,
    ).data
    step(f"order {placed.order_display_id}: pay at {placed.payment_url}")
    pay(base, placed.payment_url)

    checkout = parsed(get_checkout.sync_detailed(placed.checkout_id, client=public), 200).data
    if checkout.status != "PAID":
        raise SystemExit(f"checkout {checkout.checkout_id} is {checkout.status}, not PAID")
    step(f"checkout PAID, total {checkout.totals.total.value} {checkout.totals.total.currency}")
    orders = parsed(list_orders.sync_detailed(client=public), 200).data
    order = next((o for o in orders if o.order_id == placed.order_id), None)
    # Paid, and with the inventory provider's tickets issued at once, FULFILLED.
    if order is None or order.status not in ("PAID", "FULFILLED") or len(order.tickets) != 2:
        raise SystemExit(f"the order is not paid with 2 tickets: {order}")
    step(f"order {order.order_display_id} {order.status}, tickets {[t.code for t in order.tickets]}")
    entries = parsed(list_loyalty_entries.sync_detailed(client=public), 200).data
    earned = [e for e in entries if e.kind == "EARN" and e.order_id == placed.order_id]
    if not earned:
        raise SystemExit(f"no EARN entry for the order in the ledger: {entries}")
    step(f"loyalty: +{earned[0].points} points, balance {earned[0].balance_after}")

    event = await_webhook(webhook_secret, placed.order_id)
    print(json.dumps({"order_id": str(placed.order_id), "event": event["id"]}))
    receiver.shutdown()
    step("headless partner: every step done")


if __name__ == "__main__":
    main()
