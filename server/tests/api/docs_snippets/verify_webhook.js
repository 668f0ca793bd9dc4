const { Webhook } = require("standardwebhooks");

// Your client's webhook secret ("whsec_…"), from the operator.
const webhook = new Webhook(process.env.BOXOFFICE_WEBHOOK_SECRET);

// The delivered CloudEvent; throws WebhookVerificationError unless Boxoffice signed it.
// body: the request body exactly as received (a string or Buffer, not re-serialised JSON);
// headers: the request's headers (webhook-id, webhook-timestamp, webhook-signature).
function verifiedEvent(body, headers) {
  return webhook.verify(body, headers);
}

module.exports = { verifiedEvent };
