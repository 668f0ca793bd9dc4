-- A date change to a dearer day (issue 41; docs/api-checkout.md, "Change the date"): the
-- difference is a second payment on the same order, and until it ends the new places are
-- held (taken on their day or slot by the request's transaction). Paid: the tickets move
-- (`status` MOVED). Declined, cancelled or expired: the places go back and nothing else
-- changed (ENDED). `moves` and `booking` are `after_sale::rebook_payment`'s JSON.
CREATE TABLE pending_rebooking (
    payment_id            BLOB PRIMARY KEY REFERENCES payment,
    customer_order_id     BLOB NOT NULL REFERENCES customer_order,
    reason                TEXT NOT NULL,
    visit_date            TEXT NOT NULL,
    timeslot_id           BLOB,
    provider              TEXT NOT NULL,
    moves                 TEXT NOT NULL,
    booking               TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('OPEN', 'MOVED', 'ENDED')),
    created_at            TEXT NOT NULL
);
CREATE INDEX pending_rebooking_of_order ON pending_rebooking (customer_order_id);
