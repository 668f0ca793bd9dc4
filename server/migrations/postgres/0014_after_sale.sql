-- After the sale (issue 41; docs/api-checkout.md, "After the sale"): cancellations, refunds,
-- date changes and the EU withdrawal, under the merchant's policy frozen at payment.

-- A product's policy (`wire::AfterSalePolicy` as JSON; NULL: none), and on each checkout line
-- the policy in force when its order was paid, with the withdrawal period made explicit
-- (`after_sale::Frozen`): changing the product later changes no order.
ALTER TABLE product ADD COLUMN after_sale JSONB;
ALTER TABLE checkout_line ADD COLUMN after_sale JSONB;

-- What a ticket's holder paid for it after vouchers and wallet (`after_sale::allocate`), so
-- cancelling tickets one by one refunds what cancelling them together does; the ticket that
-- replaced it after a date change; when it was cancelled.
ALTER TABLE ticket ADD COLUMN paid_share NUMERIC(14,2);
ALTER TABLE ticket ADD COLUMN replaced_by UUID REFERENCES ticket;
ALTER TABLE ticket ADD COLUMN cancelled_at TIMESTAMPTZ;

-- The day the operator recorded a physical order's shipment: its withdrawal period counts
-- from it.
ALTER TABLE customer_order ADD COLUMN shipped_on DATE;

-- Every change after the sale, as it happened: what a mail about it renders from and what the
-- order's history shows. `kind` is `after_sale::ChangeKind`, `reason` `after_sale::Reason`.
CREATE TABLE order_change (
    order_change_id       UUID PRIMARY KEY,
    customer_order_id     UUID NOT NULL REFERENCES customer_order,
    kind                  TEXT NOT NULL,
    reason                TEXT NOT NULL,
    ticket_ids            JSONB NOT NULL,
    new_ticket_ids        JSONB NOT NULL DEFAULT '[]',
    refund_id             UUID REFERENCES refund,
    note                  TEXT,
    -- The mail that tells the customer of it (the cancellation, withdrawal or changed-date
    -- mail), rendered from this row when it is sent.
    mail_id               UUID,
    created_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX order_change_of_order ON order_change (customer_order_id, created_at);
CREATE UNIQUE INDEX order_change_by_mail ON order_change (mail_id);

-- A refund of tickets: which, and the part that went back to the wallet (its `amount` stays
-- what the payment provider is asked to return).
ALTER TABLE refund ADD COLUMN ticket_ids JSONB NOT NULL DEFAULT '[]';
ALTER TABLE refund ADD COLUMN to_wallet NUMERIC(14,2) NOT NULL DEFAULT 0;


-- Points are taken back per cancellation, several per order: an order earns and redeems once,
-- and may be adjusted any number of times.
ALTER TABLE loyalty_entry DROP CONSTRAINT loyalty_entry_customer_order_id_kind_key;
CREATE UNIQUE INDEX loyalty_entry_once_per_order ON loyalty_entry (customer_order_id, kind)
    WHERE kind IN ('EARN', 'REDEEM');

-- A day or slot the merchant cancelled (`after_sale::closure`): closed for sale by holding its
-- capacity at what is reserved, and kept there as places come back (`give_back_*`), so every
-- later take fails the CHECK that is the no-oversell rule's backstop. Setting the capacity
-- again (the calendar or timeslot routes) opens it.
ALTER TABLE availability_day ADD COLUMN closed BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE timeslot ADD COLUMN closed BOOLEAN NOT NULL DEFAULT FALSE;
