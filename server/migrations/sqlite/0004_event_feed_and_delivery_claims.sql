-- The polling feed is ordered by (tx_id, event_seq) on both databases. SQLite has one writer,
-- so its transactions commit in the order they take sequence numbers: tx_id stays 0 and the
-- order is event_seq's (Postgres records the writing transaction here; see its 0004).
ALTER TABLE event ADD COLUMN tx_id INTEGER NOT NULL DEFAULT 0;
CREATE INDEX event_feed_order ON event (partner_client_id, tx_id, event_seq);

-- A webhook delivery's claim: the worker holding it (until locked_until) is the only one that
-- sends it and the only one whose outcome is recorded.
ALTER TABLE webhook_delivery ADD COLUMN claim_id BLOB;
CREATE INDEX webhook_delivery_claim ON webhook_delivery (claim_id);
