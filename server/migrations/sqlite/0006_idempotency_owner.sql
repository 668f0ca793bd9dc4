-- Every claim of an Idempotency-Key has an owner, the request that made it: a request whose
-- claim a retry took over after its lock ran out (docs/api-checkout.md, "Idempotency-Key") can
-- then neither complete nor release the retry's claim. Completing a claim owned by another
-- request would set its state to 'TAKEN_OVER'; SQLite cannot rename the table's check, so this
-- trigger refuses it with a message the store tells apart (store/mod.rs, KEY_TAKEN_OVER).
ALTER TABLE idempotency_record ADD COLUMN owner BLOB;

CREATE TRIGGER idempotency_record_owned
BEFORE UPDATE OF state ON idempotency_record
WHEN NEW.state NOT IN ('IN_FLIGHT', 'DONE')
BEGIN
    SELECT RAISE(ABORT, 'idempotency_record_owned: the key was taken over by a retry');
END;
