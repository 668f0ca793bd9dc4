-- Issue 27, the partner's checkout:
-- * a session's prefill: the customer fields the partner's backend sent with POST /v1/session
--   (`prefill`, a JSON object of email, first_name, last_name, and `locked`,
--   a JSON array of field names): a checkout under the session's bearer must carry a locked
--   field's value (docs/credentials.md, "Prefill and locked fields");
-- * a checkout's marketing attribution (utm_* and ref from the host page, a JSON object,
--   NULL when none: docs/webframe.md, "Attribution");
-- * when a reservation's hold was extended, once (POST /v2/checkouts/{id}/extend).
ALTER TABLE partner_session ADD COLUMN prefill TEXT;
ALTER TABLE checkout ADD COLUMN attribution TEXT;
ALTER TABLE checkout ADD COLUMN hold_extended_at TEXT;
