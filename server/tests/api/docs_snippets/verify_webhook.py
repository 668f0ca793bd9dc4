import os

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

# Your client's webhook secret ("whsec_…"), from the operator.
webhook = Webhook(os.environ["BOXOFFICE_WEBHOOK_SECRET"])


def verified_event(body: bytes, headers: dict) -> dict:
    """The delivered CloudEvent; raises WebhookVerificationError unless Boxoffice signed it.

    body: the request body exactly as received (bytes, not re-serialised JSON);
    headers: the request's headers (webhook-id, webhook-timestamp, webhook-signature).
    """
    return webhook.verify(body, headers)
