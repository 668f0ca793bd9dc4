-- Payments at an external provider (Stripe; docs/payments.md).
--
-- `payment.provider_ref`: the provider's id of the payment (the PaymentIntent), NULL for the
-- sandbox's, whose page settles them. `provider_checked_at`: when the reconciliation last asked
-- the provider; `provider_final_at`: when the provider's side was seen final (succeeded for a
-- PAID payment, canceled or refunded for any other): until then the reconciliation keeps asking.
-- `provider_destination`: the merchant's connected account a destination charge pays (its
-- share and the platform's fee are taken back in proportion by a refund).
ALTER TABLE payment ADD COLUMN provider_ref TEXT;
ALTER TABLE payment ADD COLUMN provider_destination TEXT;
ALTER TABLE payment ADD COLUMN provider_checked_at TIMESTAMPTZ;
ALTER TABLE payment ADD COLUMN provider_final_at TIMESTAMPTZ;
CREATE UNIQUE INDEX payment_by_provider_ref ON payment (provider, provider_ref) WHERE provider_ref IS NOT NULL;
CREATE INDEX payment_to_reconcile ON payment (provider, created_at) WHERE provider_ref IS NOT NULL AND provider_final_at IS NULL;

-- The provider a merchant account is at (every account so far is the sandbox's), and whether
-- it can take charges (Stripe's `charges_enabled`, from `account.updated`).
ALTER TABLE merchant_account ADD COLUMN provider TEXT NOT NULL DEFAULT 'sandbox';
ALTER TABLE merchant_account ADD COLUMN charges_enabled BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX merchant_account_by_merchant ON merchant_account (merchant_id, provider);

-- Each provider event (Stripe's webhook events) processed once, by its id.
CREATE TABLE provider_event (
    provider              TEXT NOT NULL,
    event_id              TEXT NOT NULL,
    event_type            TEXT NOT NULL,
    received_at           TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (provider, event_id)
);

-- Money given back through the provider. A row is written (PENDING) in the transaction that
-- decides the refund, with the event that reports it; the provider is then asked with the
-- row's id as its idempotency key, so a crash in between repeats the request, never the
-- refund. `reason` is `RefundReason` (server/src/payments/refunds.rs).
CREATE TABLE refund (
    refund_id             UUID PRIMARY KEY,
    payment_id            UUID NOT NULL REFERENCES payment,
    customer_order_id     UUID NOT NULL REFERENCES customer_order,
    reason                TEXT NOT NULL,
    amount                NUMERIC(14,2) NOT NULL,
    currency              TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
    provider_ref          TEXT,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX refund_of_order ON refund (customer_order_id);
CREATE INDEX refund_pending ON refund (status) WHERE status = 'PENDING';
-- A late payment is refunded once.
CREATE UNIQUE INDEX refund_late_payment ON refund (payment_id) WHERE reason = 'LATE_PAYMENT';
