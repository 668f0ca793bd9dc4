-- Boxoffice data model (SQLite). Keep in step with ../postgres/0001_schema.sql: the same tables,
-- columns and constraints. SQLite stores UUIDs as 16-byte BLOBs, money as decimal TEXT (never
-- REAL), timestamps as RFC 3339 TEXT and booleans as INTEGER; the store's types map them.

CREATE TABLE campaign (
    campaign_id           BLOB PRIMARY KEY,
    name                  TEXT NOT NULL,
    loyalty_points_per_unit TEXT NOT NULL DEFAULT 0,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);

CREATE TABLE partner_client (
    partner_client_id     BLOB PRIMARY KEY,
    client_id             TEXT NOT NULL UNIQUE,
    name                  TEXT NOT NULL,
    secret_hash           BLOB NOT NULL,
    frame_origins         TEXT NOT NULL,
    return_origins        TEXT NOT NULL,
    webhook_url           TEXT,
    webhook_secret        TEXT,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);

CREATE TABLE partner_client_campaign (
    partner_client_id     BLOB NOT NULL REFERENCES partner_client ON DELETE CASCADE,
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    PRIMARY KEY (partner_client_id, campaign_id)
);

CREATE TABLE identity_issuer (
    identity_issuer_id    BLOB PRIMARY KEY,
    issuer                TEXT NOT NULL UNIQUE,
    jwks_url_template     TEXT NOT NULL,
    audience              TEXT,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);

CREATE TABLE customer (
    customer_id           BLOB PRIMARY KEY,
    partner_client_id     BLOB REFERENCES partner_client,
    reference             TEXT,
    identity_issuer_id    BLOB REFERENCES identity_issuer,
    external_id           TEXT,
    email                 TEXT,
    first_name            TEXT,
    last_name             TEXT,
    locale                TEXT,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL,
    UNIQUE (partner_client_id, reference),
    UNIQUE (identity_issuer_id, external_id)
);

CREATE TABLE merchant (
    merchant_id           BLOB PRIMARY KEY,
    name                  TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    category              TEXT NOT NULL,
    street                TEXT NOT NULL,
    postal_code           TEXT NOT NULL,
    city                  TEXT NOT NULL,
    country               TEXT NOT NULL,
    latitude              REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude             REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    timezone              TEXT NOT NULL,
    currency              TEXT NOT NULL,
    image_url             TEXT,
    website               TEXT,
    search_text           TEXT NOT NULL,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);

CREATE TABLE merchant_translation (
    merchant_id           BLOB NOT NULL REFERENCES merchant ON DELETE CASCADE,
    locale                TEXT NOT NULL,
    name                  TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (merchant_id, locale)
);

-- Products that share a gate draw on one group's capacity (per day and per timeslot).
CREATE TABLE availability_group (
    availability_group_id BLOB PRIMARY KEY,
    merchant_id           BLOB NOT NULL REFERENCES merchant,
    name                  TEXT NOT NULL,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);

CREATE TABLE product (
    product_id            BLOB PRIMARY KEY,
    merchant_id           BLOB NOT NULL REFERENCES merchant,
    availability_group_id BLOB NOT NULL REFERENCES availability_group,
    title                 TEXT NOT NULL,
    product_type          TEXT NOT NULL,
    physical_product      INTEGER NOT NULL DEFAULT 0,
    sku                   TEXT NOT NULL,
    age_group             TEXT,
    unit_price            TEXT NOT NULL,
    list_price            TEXT NOT NULL,
    booking_costs         TEXT NOT NULL DEFAULT 0,
    visit_guarantee_cost  TEXT NOT NULL DEFAULT 0,
    no_date               INTEGER NOT NULL DEFAULT 0,
    requires_timeslot     INTEGER NOT NULL DEFAULT 0,
    conditions            TEXT NOT NULL DEFAULT '',
    ticket_validity_type  TEXT,
    ticket_validity_date  TEXT,
    provider              TEXT NOT NULL DEFAULT 'inventory',
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);
CREATE INDEX product_merchant ON product (merchant_id);

CREATE TABLE product_translation (
    product_id            BLOB NOT NULL REFERENCES product ON DELETE CASCADE,
    locale                TEXT NOT NULL,
    title                 TEXT NOT NULL,
    conditions            TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (product_id, locale)
);

CREATE TABLE campaign_product (
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    product_id            BLOB NOT NULL REFERENCES product,
    PRIMARY KEY (campaign_id, product_id)
);
CREATE INDEX campaign_product_product ON campaign_product (product_id);

-- One row per group and day; capacity NULL is unlimited. The CHECKs are the backstop of the
-- conditional updates that reserve capacity: it can never go negative or above its limit.
CREATE TABLE availability_day (
    availability_group_id BLOB NOT NULL REFERENCES availability_group,
    day                   TEXT NOT NULL,
    capacity              INTEGER CHECK (capacity >= 0),
    reserved              INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    PRIMARY KEY (availability_group_id, day),
    CHECK (capacity IS NULL OR reserved <= capacity)
);

CREATE TABLE calendar_price (
    product_id            BLOB NOT NULL REFERENCES product ON DELETE CASCADE,
    day                   TEXT NOT NULL,
    price                 TEXT NOT NULL,
    list_price            TEXT NOT NULL,
    PRIMARY KEY (product_id, day)
);

CREATE TABLE timeslot (
    timeslot_id           BLOB PRIMARY KEY,
    availability_group_id BLOB NOT NULL REFERENCES availability_group,
    day                   TEXT NOT NULL,
    start_time            TEXT NOT NULL,
    end_time              TEXT NOT NULL,
    capacity              INTEGER CHECK (capacity >= 0),
    reserved              INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    UNIQUE (availability_group_id, start_time),
    CHECK (end_time > start_time),
    CHECK (capacity IS NULL OR reserved <= capacity)
);
CREATE INDEX timeslot_group_day ON timeslot (availability_group_id, day);

CREATE TABLE voucher (
    voucher_id            BLOB PRIMARY KEY,
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    code                  TEXT NOT NULL,
    kind                  TEXT NOT NULL CHECK (kind IN ('PERCENTAGE', 'AMOUNT')),
    value                 TEXT NOT NULL,
    merchant_id           BLOB REFERENCES merchant,
    max_redemptions       INTEGER CHECK (max_redemptions > 0),
    redeemed              INTEGER NOT NULL DEFAULT 0 CHECK (redeemed >= 0),
    valid_from            TEXT,
    valid_until           TEXT,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL,
    UNIQUE (campaign_id, code),
    CHECK (max_redemptions IS NULL OR redeemed <= max_redemptions)
);

CREATE TABLE membership (
    membership_id         BLOB PRIMARY KEY,
    customer_id           BLOB NOT NULL REFERENCES customer,
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    name                  TEXT NOT NULL,
    discount_percentage   TEXT NOT NULL,
    valid_until           TEXT,
    created_at            TEXT NOT NULL
);
CREATE INDEX membership_customer ON membership (customer_id, campaign_id);

CREATE TABLE wallet (
    customer_id           BLOB NOT NULL REFERENCES customer,
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    balance               TEXT NOT NULL,
    currency              TEXT NOT NULL,
    updated_at            TEXT NOT NULL,
    PRIMARY KEY (customer_id, campaign_id)
);

-- A session code is stored only as a hash; redemption is one conditional update.
CREATE TABLE partner_session (
    partner_session_id    BLOB PRIMARY KEY,
    code_hash             BLOB NOT NULL UNIQUE,
    -- NULL for sessions minted from a retail partner's identity token (no partner client).
    partner_client_id     BLOB REFERENCES partner_client,
    customer_id           BLOB NOT NULL REFERENCES customer,
    campaign_id           BLOB REFERENCES campaign,
    mode                  TEXT NOT NULL CHECK (mode IN ('headless', 'webframe', 'identity')),
    code_challenge        TEXT,
    code_expires_at       TEXT NOT NULL,
    redeemed_at           TEXT,
    bearer_jti            BLOB,
    revoked_at            TEXT,
    integrator_params     TEXT NOT NULL,
    created_at            TEXT NOT NULL
);

CREATE TABLE checkout (
    checkout_id           BLOB PRIMARY KEY,
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    merchant_id           BLOB NOT NULL REFERENCES merchant,
    customer_id           BLOB REFERENCES customer,
    partner_client_id     BLOB REFERENCES partner_client,
    status                TEXT NOT NULL CHECK (status IN ('RESERVED', 'CONFIRMED', 'PAID', 'EXPIRED', 'CANCELLED')),
    visit_date            TEXT NOT NULL,
    timeslot_id           BLOB REFERENCES timeslot,
    flexible_date         INTEGER NOT NULL,
    currency              TEXT NOT NULL,
    subtotal              TEXT NOT NULL,
    discount_total        TEXT NOT NULL,
    wallet_applied        TEXT NOT NULL,
    total                 TEXT NOT NULL,
    requires_shipping_address INTEGER NOT NULL,
    voucher_codes         TEXT NOT NULL,
    external_reference    TEXT,
    email                 TEXT,
    first_name            TEXT,
    last_name             TEXT,
    shipping_address      TEXT,
    return_url            TEXT,
    expires_at            TEXT NOT NULL,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);
CREATE INDEX checkout_expiry ON checkout (status, expires_at);

CREATE TABLE checkout_line (
    checkout_line_id      BLOB PRIMARY KEY,
    checkout_id           BLOB NOT NULL REFERENCES checkout ON DELETE CASCADE,
    product_id            BLOB NOT NULL REFERENCES product,
    sku                   TEXT NOT NULL,
    title                 TEXT NOT NULL,
    quantity              INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 50),
    unit_price            TEXT NOT NULL,
    list_price            TEXT NOT NULL,
    booking_costs         TEXT NOT NULL,
    visit_guarantee_cost  TEXT NOT NULL,
    line_total            TEXT NOT NULL,
    UNIQUE (checkout_id, product_id)
);

CREATE TABLE checkout_voucher (
    checkout_id           BLOB NOT NULL REFERENCES checkout ON DELETE CASCADE,
    voucher_id            BLOB NOT NULL REFERENCES voucher,
    discount              TEXT NOT NULL,
    released              INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (checkout_id, voucher_id)
);

CREATE TABLE checkout_newsletter (
    checkout_id           BLOB NOT NULL REFERENCES checkout ON DELETE CASCADE,
    newsletter_id         TEXT NOT NULL,
    consented_at          TEXT NOT NULL,
    PRIMARY KEY (checkout_id, newsletter_id)
);

CREATE TABLE customer_order (
    customer_order_id     BLOB PRIMARY KEY,
    display_id            TEXT NOT NULL UNIQUE,
    checkout_id           BLOB NOT NULL UNIQUE REFERENCES checkout,
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    customer_id           BLOB REFERENCES customer,
    status                TEXT NOT NULL CHECK (status IN ('PENDING_PAYMENT', 'PAID', 'FULFILLED', 'CANCELLED')),
    total                 TEXT NOT NULL,
    currency              TEXT NOT NULL,
    created_at            TEXT NOT NULL,
    last_mutation_date    TEXT NOT NULL
);
CREATE INDEX customer_order_by_customer ON customer_order (customer_id, last_mutation_date DESC, customer_order_id DESC);

CREATE TABLE payment (
    payment_id            BLOB PRIMARY KEY,
    customer_order_id     BLOB NOT NULL REFERENCES customer_order,
    provider              TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('OPEN', 'PAID', 'DECLINED', 'CANCELLED', 'EXPIRED')),
    amount                TEXT NOT NULL,
    currency              TEXT NOT NULL,
    return_url            TEXT NOT NULL,
    expires_at            TEXT NOT NULL,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);
CREATE INDEX payment_expiry ON payment (status, expires_at);

CREATE TABLE ticket (
    ticket_id             BLOB PRIMARY KEY,
    customer_order_id     BLOB NOT NULL REFERENCES customer_order,
    checkout_line_id      BLOB NOT NULL REFERENCES checkout_line,
    product_id            BLOB NOT NULL REFERENCES product,
    code                  TEXT NOT NULL UNIQUE,
    visit_date            TEXT,
    timeslot_id           BLOB REFERENCES timeslot,
    valid_until           TEXT,
    status                TEXT NOT NULL CHECK (status IN ('VALID', 'USED', 'CANCELLED')),
    created_at            TEXT NOT NULL
);
CREATE INDEX ticket_order ON ticket (customer_order_id);

CREATE TABLE loyalty_entry (
    loyalty_entry_id      BLOB PRIMARY KEY,
    customer_id           BLOB NOT NULL REFERENCES customer,
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    occurred_at           TEXT NOT NULL,
    kind                  TEXT NOT NULL CHECK (kind IN ('EARN', 'REDEEM', 'ADJUST')),
    points                INTEGER NOT NULL,
    balance_after         INTEGER NOT NULL CHECK (balance_after >= 0),
    description           TEXT NOT NULL,
    customer_order_id     BLOB REFERENCES customer_order,
    UNIQUE (customer_order_id, kind)
);
CREATE INDEX loyalty_entry_by_customer ON loyalty_entry (customer_id, occurred_at DESC, loyalty_entry_id DESC);

-- Idempotency: a row is claimed (IN_FLIGHT, locked until a time) before work starts and holds
-- the stored success after. Failures delete the claim, so a retry re-attempts cleanly.
CREATE TABLE idempotency_record (
    campaign_id           BLOB NOT NULL,
    idempotency_key       BLOB NOT NULL,
    request_hash          BLOB NOT NULL,
    customer_id           BLOB,
    state                 TEXT NOT NULL CHECK (state IN ('IN_FLIGHT', 'DONE')),
    locked_until          TEXT NOT NULL,
    response_status       INTEGER,
    response_body         BLOB,
    created_at            TEXT NOT NULL,
    expires_at            TEXT NOT NULL,
    PRIMARY KEY (campaign_id, idempotency_key)
);

-- Transactional outbox: written in the transaction of the change it reports.
CREATE TABLE event (
    event_seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id              BLOB NOT NULL UNIQUE,
    event_type            TEXT NOT NULL,
    source                TEXT NOT NULL,
    subject               TEXT NOT NULL,
    occurred_at           TEXT NOT NULL,
    campaign_id           BLOB,
    partner_client_id     BLOB,
    data                  TEXT NOT NULL
);

CREATE TABLE webhook_delivery (
    webhook_delivery_id   BLOB PRIMARY KEY,
    event_id              BLOB NOT NULL REFERENCES event (event_id),
    partner_client_id     BLOB NOT NULL REFERENCES partner_client,
    status                TEXT NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    attempts              INTEGER NOT NULL DEFAULT 0,
    next_attempt_at       TEXT NOT NULL,
    last_status_code      INTEGER,
    last_error            TEXT,
    locked_until          TEXT,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL,
    UNIQUE (event_id, partner_client_id)
);
CREATE INDEX webhook_delivery_due ON webhook_delivery (status, next_attempt_at);

CREATE TABLE mail (
    mail_id               BLOB PRIMARY KEY,
    recipient             TEXT NOT NULL,
    subject               TEXT NOT NULL,
    body_text             TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('OUTBOX', 'SENT', 'FAILED')),
    created_at            TEXT NOT NULL,
    sent_at               TEXT
);

CREATE TABLE merchant_account (
    merchant_account_id   BLOB PRIMARY KEY,
    merchant_id           BLOB REFERENCES merchant,
    debtor_code           TEXT NOT NULL UNIQUE,
    email                 TEXT NOT NULL,
    legal_name            TEXT NOT NULL,
    provider_account_id   TEXT NOT NULL,
    status                TEXT NOT NULL,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);

CREATE TABLE onboarding_code (
    onboarding_code_id    BLOB PRIMARY KEY,
    merchant_account_id   BLOB NOT NULL REFERENCES merchant_account,
    code_hash             BLOB NOT NULL UNIQUE,
    expires_at            TEXT NOT NULL,
    redeemed_at           TEXT,
    created_at            TEXT NOT NULL
);

-- Keys shared by every server node: JWT signing keys and the cursor secret.
CREATE TABLE signing_key (
    signing_key_id        TEXT PRIMARY KEY,
    purpose               TEXT NOT NULL CHECK (purpose IN ('jwt', 'cursor')),
    algorithm             TEXT NOT NULL,
    secret                BLOB NOT NULL,
    public_key            BLOB,
    active                INTEGER NOT NULL,
    created_at            TEXT NOT NULL
);
CREATE UNIQUE INDEX signing_key_one_active ON signing_key (purpose) WHERE active = 1;
