-- Issue 29, authentication without a query per request: a counter moved by every change that
-- takes a right away from a bearer (a session revoked, a partner client changed or removed).
-- Each node caches what a bearer may do and re-reads this one row at a set interval; when it
-- moved, the node drops what it cached (docs/security.md, "Revocation across nodes").
CREATE TABLE auth_revision (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    revision BIGINT NOT NULL
);
INSERT INTO auth_revision (id, revision) VALUES (1, 0);
