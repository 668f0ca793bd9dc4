-- A date change to a dearer day (issue 41; docs/api-checkout.md, "Change the date"): the
-- difference is a second payment on the same order, and until it ends the new places are
-- held (taken on their day or slot by the request's transaction). Paid: the tickets move
-- (`status` MOVED). Declined, cancelled or expired: the places go back and nothing else
-- changed (ENDED). `moves` and `booking` are `after_sale::rebook_payment`'s JSON.
CREATE TABLE pending_rebooking (
    payment_id            UUID PRIMARY KEY REFERENCES payment,
    customer_order_id     UUID NOT NULL REFERENCES customer_order,
    reason                TEXT NOT NULL,
    visit_date            DATE NOT NULL,
    timeslot_id           UUID,
    provider              TEXT NOT NULL,
    moves                 JSONB NOT NULL,
    booking               JSONB NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('OPEN', 'MOVED', 'ENDED')),
    created_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX pending_rebooking_of_order ON pending_rebooking (customer_order_id);
