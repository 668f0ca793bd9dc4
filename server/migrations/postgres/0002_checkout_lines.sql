-- A product can move to another availability group after it was sold, so a checkout line
-- records the group (and the timeslot) it took capacity from: a release gives back exactly
-- what was taken. The provider is recorded on the checkout for the same reason.
ALTER TABLE checkout_line ADD COLUMN availability_group_id UUID REFERENCES availability_group;
ALTER TABLE checkout_line ADD COLUMN timeslot_id UUID REFERENCES timeslot;
ALTER TABLE checkout_line ADD COLUMN age_group TEXT;
-- The day the line's capacity was taken: the visit date, or the day of purchase for no_date products.
ALTER TABLE checkout_line ADD COLUMN visit_date DATE;
ALTER TABLE checkout ADD COLUMN provider TEXT NOT NULL DEFAULT 'inventory';
ALTER TABLE checkout ADD COLUMN locale TEXT NOT NULL DEFAULT 'nl-NL';
CREATE INDEX payment_by_order ON payment (customer_order_id);
CREATE INDEX loyalty_entry_by_account ON loyalty_entry (customer_id, campaign_id, occurred_at DESC, loyalty_entry_id DESC);
ALTER TABLE payment ADD COLUMN payment_url TEXT;
