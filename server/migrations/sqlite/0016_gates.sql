-- At the gate (issue 42; docs/gate.md): a merchant's gates, the devices paired with them, and
-- every scan the service keeps.

-- A gate: a credential of its own kind for one merchant (its client id and secret give a gate
-- bearer at /oauth/token), the products it admits (`product_ids` JSON; NULL: all of the
-- merchant's) and how early and late it lets a slot's visitors in. A revoked gate's bearers,
-- devices and pairing stop working; the gate stays for its history.
CREATE TABLE gate (
    gate_id               BLOB PRIMARY KEY,
    merchant_id           BLOB NOT NULL REFERENCES merchant,
    name                  TEXT NOT NULL,
    product_ids           TEXT,
    early_minutes         INTEGER NOT NULL CHECK (early_minutes >= 0),
    late_minutes          INTEGER NOT NULL CHECK (late_minutes >= 0),
    client_id             TEXT NOT NULL UNIQUE,
    secret_hash           BLOB NOT NULL,
    -- The one-time pairing code's SHA-256 and when it ends; NULL once a device used it.
    pairing_hash          BLOB UNIQUE,
    pairing_expires_at    TEXT,
    revoked_at            TEXT,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);
CREATE INDEX gate_of_merchant ON gate (merchant_id, created_at);

-- A phone or tablet paired through a gate's pairing URL: client credentials of its own, good
-- until the gate is revoked.
CREATE TABLE gate_device (
    client_id             TEXT PRIMARY KEY,
    gate_id               BLOB NOT NULL REFERENCES gate,
    secret_hash           BLOB NOT NULL,
    created_at            TEXT NOT NULL
);
CREATE INDEX gate_device_of_gate ON gate_device (gate_id);

-- A used ticket's entry: when, and which redemption let it in (NULL again after an undo).
ALTER TABLE ticket ADD COLUMN redeemed_at TEXT;
ALTER TABLE ticket ADD COLUMN redemption_id BLOB;

-- A scan kept: an entry (REDEEMED, then UNDONE if the gate took it back), a second entry of a
-- used ticket uploaded from offline (CONFLICT), an offline scan refused on upload (REFUSED).
-- Online refusals are answered and not kept: nobody went in. A nonce is one scan per gate.
-- `redeemed_at` is when the visitor went in (the server's clock online, the scan's offline),
-- `local_date` its day in the merchant's zone; `answer` the 201 body a retried scan gets
-- again, `problem` the refusal or conflict told on upload.
CREATE TABLE redemption (
    redemption_id         BLOB PRIMARY KEY,
    gate_id               BLOB NOT NULL REFERENCES gate,
    nonce                 TEXT NOT NULL,
    code                  TEXT NOT NULL,
    ticket_id             BLOB REFERENCES ticket,
    status                TEXT NOT NULL CHECK (status IN ('REDEEMED', 'UNDONE', 'CONFLICT', 'REFUSED')),
    offline               INTEGER NOT NULL,
    redeemed_at           TEXT NOT NULL,
    local_date            TEXT NOT NULL,
    recorded_at           TEXT NOT NULL,
    undone_at             TEXT,
    answer                TEXT,
    problem               TEXT,
    UNIQUE (gate_id, nonce)
);
-- A ticket is let in once: the database refuses a second standing entry whatever the nodes.
CREATE UNIQUE INDEX redemption_once ON redemption (ticket_id) WHERE status = 'REDEEMED';
CREATE INDEX redemption_of_gate_day ON redemption (gate_id, local_date, redeemed_at);
CREATE INDEX redemption_of_ticket ON redemption (ticket_id);
