-- Every claim of an Idempotency-Key has an owner, the request that made it: a request whose
-- claim a retry took over after its lock ran out (docs/api-checkout.md, "Idempotency-Key") can
-- then neither complete nor release the retry's claim. Completing a claim owned by another
-- request would set its state to 'TAKEN_OVER', which the renamed check refuses; the store tells
-- that refusal apart by this constraint's name (store/mod.rs, KEY_TAKEN_OVER).
ALTER TABLE idempotency_record ADD COLUMN owner UUID;
ALTER TABLE idempotency_record DROP CONSTRAINT idempotency_record_state_check;
ALTER TABLE idempotency_record
    ADD CONSTRAINT idempotency_record_owned CHECK (state IN ('IN_FLIGHT', 'DONE'));
