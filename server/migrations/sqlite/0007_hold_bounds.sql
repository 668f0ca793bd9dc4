-- What one buyer may hold at once (docs/security.md, "Holds"): a checkout records who holds it
-- (the bearer's session beside its customer, and the client address the request came from)
-- and how many places it holds, so the bound is one indexed read inside the reservation's
-- transaction. A partner client may carry its own bounds (a school-trip partner sells larger
-- groups); NULL keeps the server's settings.
ALTER TABLE checkout ADD COLUMN session_id BLOB;
ALTER TABLE checkout ADD COLUMN client_address TEXT;
ALTER TABLE checkout ADD COLUMN places INTEGER NOT NULL DEFAULT 0;
UPDATE checkout SET places = (SELECT COALESCE(SUM(quantity), 0) FROM checkout_line l
                              WHERE l.checkout_id = checkout.checkout_id)
 WHERE status IN ('RESERVED', 'CONFIRMED');
CREATE INDEX checkout_held_by_customer ON checkout (customer_id, visit_date)
    WHERE status IN ('RESERVED', 'CONFIRMED');
CREATE INDEX checkout_held_by_session ON checkout (session_id, visit_date)
    WHERE status IN ('RESERVED', 'CONFIRMED');
CREATE INDEX checkout_held_by_address ON checkout (client_address, visit_date)
    WHERE status IN ('RESERVED', 'CONFIRMED');
ALTER TABLE partner_client ADD COLUMN hold_limits TEXT;
