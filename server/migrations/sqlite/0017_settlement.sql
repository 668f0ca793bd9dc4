-- Settlement (issue 43; docs/settlement.md): VAT, commission and the platform's fee frozen on
-- every order line at payment, and the append-only ledger statements are read from.

-- A merchant's VAT (`wire::TaxSettings` JSON; NULL: no VAT charged), the seller an invoice
-- names, and the operator's fee on its sales (`wire::Charge` JSON; NULL: none).
ALTER TABLE merchant ADD COLUMN tax TEXT;
ALTER TABLE merchant ADD COLUMN legal_name TEXT;
ALTER TABLE merchant ADD COLUMN vat_id TEXT;
ALTER TABLE merchant ADD COLUMN legal_address TEXT;
ALTER TABLE merchant ADD COLUMN platform_fee TEXT;

-- The partner's commission (`wire::Charge` JSON): the campaign's, overridden by the product's.
ALTER TABLE campaign ADD COLUMN commission TEXT;
ALTER TABLE product ADD COLUMN commission TEXT;

-- What the line was sold for and how it splits (`settlement::LineMoney` JSON), written with
-- the payment; NULL on lines of orders paid before this migration and on unpaid ones.
ALTER TABLE checkout_line ADD COLUMN money TEXT;

-- The line's parts shared over its tickets (`settlement::Parts` JSON), so a ticket's refund
-- takes back its own parts and every ticket taken back gives back exactly the line; a date
-- change's new ticket carries the old one's moved by the price difference.
ALTER TABLE ticket ADD COLUMN money TEXT;

-- One row per order line and cause, in the transaction of what causes it: `sale` (the
-- payment), `refund` (negative; `cause_id` the refund), `rebooking` (a date change's price
-- difference; `cause_id` the order change). Amounts are signed; `gross = Σ tax + commission
-- + platform_fee + merchant_payout` on every row. A cause books a line once (the unique key),
-- so a retried payment or refund cannot book twice.
CREATE TABLE ledger_entry (
    entry_id              BLOB PRIMARY KEY,
    kind                  TEXT NOT NULL CHECK (kind IN ('sale', 'refund', 'rebooking')),
    booked_at             TEXT NOT NULL,
    customer_order_id     BLOB NOT NULL REFERENCES customer_order,
    order_display_id      TEXT NOT NULL,
    checkout_line_id      BLOB NOT NULL REFERENCES checkout_line,
    cause_id              BLOB NOT NULL,
    ticket_ids            TEXT NOT NULL,
    sku                   TEXT NOT NULL,
    product_id            BLOB NOT NULL,
    merchant_id           BLOB NOT NULL,
    campaign_id           BLOB NOT NULL,
    partner_client_id     BLOB,
    currency              TEXT NOT NULL,
    gross                 TEXT NOT NULL,
    net                   TEXT NOT NULL,
    tax                   TEXT NOT NULL,
    commission            TEXT NOT NULL,
    platform_fee          TEXT NOT NULL,
    merchant_payout       TEXT NOT NULL,
    UNIQUE (checkout_line_id, kind, cause_id)
);
CREATE INDEX ledger_entry_by_time ON ledger_entry (booked_at, entry_id);
CREATE INDEX ledger_entry_of_partner ON ledger_entry (partner_client_id, booked_at, entry_id);
CREATE INDEX ledger_entry_of_merchant ON ledger_entry (merchant_id, booked_at, entry_id);
CREATE INDEX ledger_entry_of_order ON ledger_entry (customer_order_id);

-- Never changed, never removed: a correction is a new entry.
CREATE TRIGGER ledger_entry_never_updated BEFORE UPDATE ON ledger_entry
BEGIN
    SELECT RAISE(ABORT, 'ledger entries are never changed');
END;
CREATE TRIGGER ledger_entry_never_deleted BEFORE DELETE ON ledger_entry
BEGIN
    SELECT RAISE(ABORT, 'ledger entries are never removed');
END;
