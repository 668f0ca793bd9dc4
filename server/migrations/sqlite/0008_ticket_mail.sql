-- The ticket mail (docs/tickets.md). A row is written in the transaction that marks its order
-- PAID (or by a resend), and a delivery worker sends it under a lease, as webhook deliveries
-- are: the worker holding claim_id until locked_until is the only one that sends it. The mail
-- itself is rendered when it is sent, from the order, so the row holds no copy of it.
CREATE TABLE ticket_mail (
    ticket_mail_id        BLOB PRIMARY KEY,
    customer_order_id     BLOB NOT NULL REFERENCES customer_order,
    -- FIRST: the mail of the payment; RESEND: the customer asked again; OPERATOR: an operator
    -- resent it (and rotated the ticket page's key).
    kind                  TEXT NOT NULL CHECK (kind IN ('FIRST', 'RESEND', 'OPERATOR')),
    status                TEXT NOT NULL CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
    attempts              INTEGER NOT NULL DEFAULT 0,
    next_attempt_at       TEXT NOT NULL,
    locked_until          TEXT,
    claim_id              BLOB,
    last_error            TEXT,
    created_at            TEXT NOT NULL,
    sent_at               TEXT
);
-- Exactly one mail of the payment per order, whatever retries, nodes or crashes do.
CREATE UNIQUE INDEX ticket_mail_first ON ticket_mail (customer_order_id) WHERE kind = 'FIRST';
CREATE INDEX ticket_mail_due ON ticket_mail (status, next_attempt_at);
CREATE INDEX ticket_mail_order ON ticket_mail (customer_order_id, created_at);

-- The ticket page's key is an HMAC of the order id and this random nonce under a server
-- secret, so the database alone does not hold the key; an operator's resend replaces the
-- nonce, which ends every link sent before.
CREATE TABLE ticket_page_key (
    customer_order_id     BLOB PRIMARY KEY REFERENCES customer_order,
    nonce                 BLOB NOT NULL,
    rotated_at            TEXT NOT NULL
);
