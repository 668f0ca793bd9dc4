-- The polling feed never skips a committed event (store/sql/events.rs, `events_for_client`).
-- Each event records the transaction that wrote it; the feed is ordered by (tx_id, event_seq)
-- and hands out only events whose transaction is older than every transaction still in
-- flight, so anything that commits later sorts after everything already handed out. Events
-- written before this migration keep tx_id 0 and come first, in event_seq order.
ALTER TABLE event ADD COLUMN tx_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE event ALTER COLUMN tx_id SET DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX event_feed_order ON event (partner_client_id, tx_id, event_seq);

-- A webhook delivery's claim: the worker holding it (until locked_until) is the only one that
-- sends it and the only one whose outcome is recorded.
ALTER TABLE webhook_delivery ADD COLUMN claim_id UUID;
CREATE INDEX webhook_delivery_claim ON webhook_delivery (claim_id);
