-- Resellers through OCTO (issue 44; docs/octo.md).

-- How a partner's orders are paid: 'payment_page' (the customer pays at the payment provider)
-- or 'on_account' (an OCTO reseller confirms without a payment page and owes the money).
ALTER TABLE partner_client ADD COLUMN settlement TEXT NOT NULL DEFAULT 'payment_page'
    CHECK (settlement IN ('payment_page', 'on_account'));

-- A booking as the reseller knows it: its uuid (the reseller's, or ours), the checkout it is,
-- and what OCTO keeps that a checkout does not (the references, notes and contact).
CREATE TABLE octo_booking (
    uuid                  UUID PRIMARY KEY,
    checkout_id           UUID NOT NULL UNIQUE REFERENCES checkout,
    partner_client_id     UUID NOT NULL REFERENCES partner_client,
    merchant_id           UUID NOT NULL REFERENCES merchant,
    reseller_reference    TEXT,
    notes                 TEXT,
    contact               JSONB,
    -- Each ticket's unit item: the reseller's uuid and reference, by ticket place.
    unit_items            JSONB,
    local_date            TEXT NOT NULL,
    -- When the reseller cancelled it while it was held (its checkout then released).
    cancelled_at          TIMESTAMPTZ,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX octo_booking_reseller ON octo_booking (partner_client_id, merchant_id, reseller_reference);
CREATE INDEX octo_booking_date ON octo_booking (partner_client_id, merchant_id, local_date);
