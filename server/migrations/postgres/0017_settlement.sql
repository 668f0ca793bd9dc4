-- Settlement (issue 43; docs/settlement.md): VAT, commission and the platform's fee frozen on
-- every order line at payment, and the append-only ledger statements are read from.

-- A merchant's VAT (`wire::TaxSettings` JSON; NULL: no VAT charged), the seller an invoice
-- names, and the operator's fee on its sales (`wire::Charge` JSON; NULL: none).
ALTER TABLE merchant ADD COLUMN tax JSONB;
ALTER TABLE merchant ADD COLUMN legal_name TEXT;
ALTER TABLE merchant ADD COLUMN vat_id TEXT;
ALTER TABLE merchant ADD COLUMN legal_address JSONB;
ALTER TABLE merchant ADD COLUMN platform_fee JSONB;

-- The partner's commission (`wire::Charge` JSON): the campaign's, overridden by the product's.
ALTER TABLE campaign ADD COLUMN commission JSONB;
ALTER TABLE product ADD COLUMN commission JSONB;

-- What the line was sold for and how it splits (`settlement::LineMoney` JSON), written with
-- the payment; NULL on lines of orders paid before this migration and on unpaid ones.
ALTER TABLE checkout_line ADD COLUMN money JSONB;

-- The line's parts shared over its tickets (`settlement::Parts` JSON), so a ticket's refund
-- takes back its own parts and every ticket taken back gives back exactly the line; a date
-- change's new ticket carries the old one's moved by the price difference.
ALTER TABLE ticket ADD COLUMN money JSONB;

-- One row per order line and cause, in the transaction of what causes it: `sale` (the
-- payment), `refund` (negative; `cause_id` the refund), `rebooking` (a date change's price
-- difference; `cause_id` the order change). Amounts are signed; `gross = Σ tax + commission
-- + platform_fee + merchant_payout` on every row. A cause books a line once (the unique key),
-- so a retried payment or refund cannot book twice.
CREATE TABLE ledger_entry (
    entry_id              UUID PRIMARY KEY,
    kind                  TEXT NOT NULL CHECK (kind IN ('sale', 'refund', 'rebooking')),
    booked_at             TIMESTAMPTZ NOT NULL,
    customer_order_id     UUID NOT NULL REFERENCES customer_order,
    order_display_id      TEXT NOT NULL,
    checkout_line_id      UUID NOT NULL REFERENCES checkout_line,
    cause_id              UUID NOT NULL,
    ticket_ids            JSONB NOT NULL,
    sku                   TEXT NOT NULL,
    product_id            UUID NOT NULL,
    merchant_id           UUID NOT NULL,
    campaign_id           UUID NOT NULL,
    partner_client_id     UUID,
    currency              TEXT NOT NULL,
    gross                 NUMERIC(14,2) NOT NULL,
    net                   NUMERIC(14,2) NOT NULL,
    tax                   JSONB NOT NULL,
    commission            NUMERIC(14,2) NOT NULL,
    platform_fee          NUMERIC(14,2) NOT NULL,
    merchant_payout       NUMERIC(14,2) NOT NULL,
    UNIQUE (checkout_line_id, kind, cause_id)
);
CREATE INDEX ledger_entry_by_time ON ledger_entry (booked_at, entry_id);
CREATE INDEX ledger_entry_of_partner ON ledger_entry (partner_client_id, booked_at, entry_id);
CREATE INDEX ledger_entry_of_merchant ON ledger_entry (merchant_id, booked_at, entry_id);
CREATE INDEX ledger_entry_of_order ON ledger_entry (customer_order_id);

-- Never changed, never removed: a correction is a new entry.
CREATE FUNCTION ledger_entry_is_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'ledger entries are never changed or removed';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER ledger_entry_append_only BEFORE UPDATE OR DELETE ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_entry_is_append_only();
