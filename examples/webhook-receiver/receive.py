#!/usr/bin/env python3
"""A partner's webhook endpoint for Boxoffice at its smallest: it verifies each delivery's
Standard Webhooks signature with the client's webhook secret, prints the event, and answers 204.
A delivery that does not verify is answered 401 and printed as refused.

    pip install standardwebhooks
    BOXOFFICE_WEBHOOK_SECRET=whsec_… python3 receive.py 8090

It listens on 127.0.0.1 (the port given, 8090 by default) at any path. docs/integration.md,
"Your webhook", runs it; docs/events.md has every event type and the headers.
"""

import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

webhook = Webhook(os.environ["BOXOFFICE_WEBHOOK_SECRET"])
seen = set()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        # Verify the body exactly as received: re-serialised JSON would not match the signature.
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            event = webhook.verify(body, dict(self.headers))
        except WebhookVerificationError as refused:
            print(f"refused: {refused}", flush=True)
            self.send_response(401)
            self.end_headers()
            return
        # Delivery is at least once: the webhook-id (the event's id) tells a repeat.
        if event["id"] not in seen:
            seen.add(event["id"])
            print(event["type"], event["subject"], event["data"].get("status"), flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass  # one line per event above is enough


port = int(sys.argv[1]) if len(sys.argv) > 1 else 8090
server = HTTPServer(("127.0.0.1", port), Receiver)
print(f"listening on http://127.0.0.1:{port}", flush=True)
server.serve_forever()
