-- Boxoffice data model (PostgreSQL). Keep in step with ../sqlite/0001_schema.sql: the same
-- tables, columns and constraints, in native types here.

CREATE TABLE campaign (
    campaign_id           UUID PRIMARY KEY,
    name                  TEXT NOT NULL,
    loyalty_points_per_unit NUMERIC(10,2) NOT NULL DEFAULT 0 CHECK (loyalty_points_per_unit >= 0),
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE partner_client (
    partner_client_id     UUID PRIMARY KEY,
    client_id             TEXT NOT NULL UNIQUE,
    name                  TEXT NOT NULL,
    secret_hash           BYTEA NOT NULL,
    frame_origins         JSONB NOT NULL,
    return_origins        JSONB NOT NULL,
    webhook_url           TEXT,
    webhook_secret        TEXT,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE partner_client_campaign (
    partner_client_id     UUID NOT NULL REFERENCES partner_client ON DELETE CASCADE,
    campaign_id           UUID NOT NULL REFERENCES campaign,
    PRIMARY KEY (partner_client_id, campaign_id)
);

CREATE TABLE identity_issuer (
    identity_issuer_id    UUID PRIMARY KEY,
    issuer                TEXT NOT NULL UNIQUE,
    jwks_url_template     TEXT NOT NULL,
    audience              TEXT,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE customer (
    customer_id           UUID PRIMARY KEY,
    partner_client_id     UUID REFERENCES partner_client,
    reference             TEXT,
    identity_issuer_id    UUID REFERENCES identity_issuer,
    external_id           TEXT,
    email                 TEXT,
    first_name            TEXT,
    last_name             TEXT,
    locale                TEXT,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    UNIQUE (partner_client_id, reference),
    UNIQUE (identity_issuer_id, external_id)
);

CREATE TABLE merchant (
    merchant_id           UUID PRIMARY KEY,
    name                  TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    category              TEXT NOT NULL,
    street                TEXT NOT NULL,
    postal_code           TEXT NOT NULL,
    city                  TEXT NOT NULL,
    country               TEXT NOT NULL,
    latitude              DOUBLE PRECISION NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude             DOUBLE PRECISION NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    timezone              TEXT NOT NULL,
    currency              TEXT NOT NULL,
    image_url             TEXT,
    website               TEXT,
    search_text           TEXT NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE merchant_translation (
    merchant_id           UUID NOT NULL REFERENCES merchant ON DELETE CASCADE,
    locale                TEXT NOT NULL,
    name                  TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (merchant_id, locale)
);

-- Products that share a gate draw on one group's capacity (per day and per timeslot).
CREATE TABLE availability_group (
    availability_group_id UUID PRIMARY KEY,
    merchant_id           UUID NOT NULL REFERENCES merchant,
    name                  TEXT NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE product (
    product_id            UUID PRIMARY KEY,
    merchant_id           UUID NOT NULL REFERENCES merchant,
    availability_group_id UUID NOT NULL REFERENCES availability_group,
    title                 TEXT NOT NULL,
    product_type          TEXT NOT NULL,
    physical_product      BOOLEAN NOT NULL DEFAULT FALSE,
    sku                   TEXT NOT NULL,
    age_group             TEXT,
    unit_price            NUMERIC(14,2) NOT NULL CHECK (unit_price >= 0),
    list_price            NUMERIC(14,2) NOT NULL CHECK (list_price >= 0),
    booking_costs         NUMERIC(14,2) NOT NULL DEFAULT 0 CHECK (booking_costs >= 0),
    visit_guarantee_cost  NUMERIC(14,2) NOT NULL DEFAULT 0 CHECK (visit_guarantee_cost >= 0),
    no_date               BOOLEAN NOT NULL DEFAULT FALSE,
    requires_timeslot     BOOLEAN NOT NULL DEFAULT FALSE,
    conditions            TEXT NOT NULL DEFAULT '',
    ticket_validity_type  TEXT,
    ticket_validity_date  DATE,
    provider              TEXT NOT NULL DEFAULT 'inventory',
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX product_merchant ON product (merchant_id);

CREATE TABLE product_translation (
    product_id            UUID NOT NULL REFERENCES product ON DELETE CASCADE,
    locale                TEXT NOT NULL,
    title                 TEXT NOT NULL,
    conditions            TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (product_id, locale)
);

CREATE TABLE campaign_product (
    campaign_id           UUID NOT NULL REFERENCES campaign,
    product_id            UUID NOT NULL REFERENCES product,
    PRIMARY KEY (campaign_id, product_id)
);
CREATE INDEX campaign_product_product ON campaign_product (product_id);

-- One row per group and day; capacity NULL is unlimited. The CHECKs are the backstop of the
-- conditional updates that reserve capacity: it can never go negative or above its limit.
CREATE TABLE availability_day (
    availability_group_id UUID NOT NULL REFERENCES availability_group,
    day                   DATE NOT NULL,
    capacity              INTEGER CHECK (capacity >= 0),
    reserved              INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    PRIMARY KEY (availability_group_id, day),
    CHECK (capacity IS NULL OR reserved <= capacity)
);

CREATE TABLE calendar_price (
    product_id            UUID NOT NULL REFERENCES product ON DELETE CASCADE,
    day                   DATE NOT NULL,
    price                 NUMERIC(14,2) NOT NULL CHECK (price >= 0),
    list_price            NUMERIC(14,2) NOT NULL CHECK (list_price >= 0),
    PRIMARY KEY (product_id, day)
);

CREATE TABLE timeslot (
    timeslot_id           UUID PRIMARY KEY,
    availability_group_id UUID NOT NULL REFERENCES availability_group,
    day                   DATE NOT NULL,
    start_time            TIMESTAMPTZ NOT NULL,
    end_time              TIMESTAMPTZ NOT NULL,
    capacity              INTEGER CHECK (capacity >= 0),
    reserved              INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    UNIQUE (availability_group_id, start_time),
    CHECK (end_time > start_time),
    CHECK (capacity IS NULL OR reserved <= capacity)
);
CREATE INDEX timeslot_group_day ON timeslot (availability_group_id, day);

CREATE TABLE voucher (
    voucher_id            UUID PRIMARY KEY,
    campaign_id           UUID NOT NULL REFERENCES campaign,
    code                  TEXT NOT NULL,
    kind                  TEXT NOT NULL CHECK (kind IN ('PERCENTAGE', 'AMOUNT')),
    value                 NUMERIC(14,2) NOT NULL CHECK (value > 0),
    merchant_id           UUID REFERENCES merchant,
    max_redemptions       INTEGER CHECK (max_redemptions > 0),
    redeemed              INTEGER NOT NULL DEFAULT 0 CHECK (redeemed >= 0),
    valid_from            TIMESTAMPTZ,
    valid_until           TIMESTAMPTZ,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    UNIQUE (campaign_id, code),
    CHECK (max_redemptions IS NULL OR redeemed <= max_redemptions)
);

CREATE TABLE membership (
    membership_id         UUID PRIMARY KEY,
    customer_id           UUID NOT NULL REFERENCES customer,
    campaign_id           UUID NOT NULL REFERENCES campaign,
    name                  TEXT NOT NULL,
    discount_percentage   NUMERIC(5,2) NOT NULL CHECK (discount_percentage > 0 AND discount_percentage <= 100),
    valid_until           DATE,
    created_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX membership_customer ON membership (customer_id, campaign_id);

CREATE TABLE wallet (
    customer_id           UUID NOT NULL REFERENCES customer,
    campaign_id           UUID NOT NULL REFERENCES campaign,
    balance               NUMERIC(14,2) NOT NULL CHECK (balance >= 0),
    currency              TEXT NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (customer_id, campaign_id)
);

-- A session code is stored only as a hash; redemption is one conditional update.
CREATE TABLE partner_session (
    partner_session_id    UUID PRIMARY KEY,
    code_hash             BYTEA NOT NULL UNIQUE,
    -- NULL for sessions minted from a retail partner's identity token (no partner client).
    partner_client_id     UUID REFERENCES partner_client,
    customer_id           UUID NOT NULL REFERENCES customer,
    campaign_id           UUID REFERENCES campaign,
    mode                  TEXT NOT NULL CHECK (mode IN ('headless', 'webframe', 'identity')),
    code_challenge        TEXT,
    code_expires_at       TIMESTAMPTZ NOT NULL,
    redeemed_at           TIMESTAMPTZ,
    bearer_jti            UUID,
    revoked_at            TIMESTAMPTZ,
    integrator_params     JSONB NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE checkout (
    checkout_id           UUID PRIMARY KEY,
    campaign_id           UUID NOT NULL REFERENCES campaign,
    merchant_id           UUID NOT NULL REFERENCES merchant,
    customer_id           UUID REFERENCES customer,
    partner_client_id     UUID REFERENCES partner_client,
    status                TEXT NOT NULL CHECK (status IN ('RESERVED', 'CONFIRMED', 'PAID', 'EXPIRED', 'CANCELLED')),
    visit_date            DATE NOT NULL,
    timeslot_id           UUID REFERENCES timeslot,
    flexible_date         BOOLEAN NOT NULL,
    currency              TEXT NOT NULL,
    subtotal              NUMERIC(14,2) NOT NULL,
    discount_total        NUMERIC(14,2) NOT NULL,
    wallet_applied        NUMERIC(14,2) NOT NULL,
    total                 NUMERIC(14,2) NOT NULL CHECK (total >= 0),
    requires_shipping_address BOOLEAN NOT NULL,
    voucher_codes         JSONB NOT NULL,
    external_reference    TEXT,
    email                 TEXT,
    first_name            TEXT,
    last_name             TEXT,
    shipping_address      JSONB,
    return_url            TEXT,
    expires_at            TIMESTAMPTZ NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX checkout_expiry ON checkout (status, expires_at);

CREATE TABLE checkout_line (
    checkout_line_id      UUID PRIMARY KEY,
    checkout_id           UUID NOT NULL REFERENCES checkout ON DELETE CASCADE,
    product_id            UUID NOT NULL REFERENCES product,
    sku                   TEXT NOT NULL,
    title                 TEXT NOT NULL,
    quantity              INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 50),
    unit_price            NUMERIC(14,2) NOT NULL,
    list_price            NUMERIC(14,2) NOT NULL,
    booking_costs         NUMERIC(14,2) NOT NULL,
    visit_guarantee_cost  NUMERIC(14,2) NOT NULL,
    line_total            NUMERIC(14,2) NOT NULL,
    UNIQUE (checkout_id, product_id)
);

CREATE TABLE checkout_voucher (
    checkout_id           UUID NOT NULL REFERENCES checkout ON DELETE CASCADE,
    voucher_id            UUID NOT NULL REFERENCES voucher,
    discount              NUMERIC(14,2) NOT NULL,
    released              BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (checkout_id, voucher_id)
);

CREATE TABLE checkout_newsletter (
    checkout_id           UUID NOT NULL REFERENCES checkout ON DELETE CASCADE,
    newsletter_id         TEXT NOT NULL,
    consented_at          TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (checkout_id, newsletter_id)
);

CREATE TABLE customer_order (
    customer_order_id     UUID PRIMARY KEY,
    display_id            TEXT NOT NULL UNIQUE,
    checkout_id           UUID NOT NULL UNIQUE REFERENCES checkout,
    campaign_id           UUID NOT NULL REFERENCES campaign,
    customer_id           UUID REFERENCES customer,
    status                TEXT NOT NULL CHECK (status IN ('PENDING_PAYMENT', 'PAID', 'FULFILLED', 'CANCELLED')),
    total                 NUMERIC(14,2) NOT NULL,
    currency              TEXT NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    last_mutation_date    TIMESTAMPTZ NOT NULL
);
CREATE INDEX customer_order_by_customer ON customer_order (customer_id, last_mutation_date DESC, customer_order_id DESC);

CREATE TABLE payment (
    payment_id            UUID PRIMARY KEY,
    customer_order_id     UUID NOT NULL REFERENCES customer_order,
    provider              TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('OPEN', 'PAID', 'DECLINED', 'CANCELLED', 'EXPIRED')),
    amount                NUMERIC(14,2) NOT NULL,
    currency              TEXT NOT NULL,
    return_url            TEXT NOT NULL,
    expires_at            TIMESTAMPTZ NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX payment_expiry ON payment (status, expires_at);

CREATE TABLE ticket (
    ticket_id             UUID PRIMARY KEY,
    customer_order_id     UUID NOT NULL REFERENCES customer_order,
    checkout_line_id      UUID NOT NULL REFERENCES checkout_line,
    product_id            UUID NOT NULL REFERENCES product,
    code                  TEXT NOT NULL UNIQUE,
    visit_date            DATE,
    timeslot_id           UUID REFERENCES timeslot,
    valid_until           DATE,
    status                TEXT NOT NULL CHECK (status IN ('VALID', 'USED', 'CANCELLED')),
    created_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX ticket_order ON ticket (customer_order_id);

CREATE TABLE loyalty_entry (
    loyalty_entry_id      UUID PRIMARY KEY,
    customer_id           UUID NOT NULL REFERENCES customer,
    campaign_id           UUID NOT NULL REFERENCES campaign,
    occurred_at           TIMESTAMPTZ NOT NULL,
    kind                  TEXT NOT NULL CHECK (kind IN ('EARN', 'REDEEM', 'ADJUST')),
    points                BIGINT NOT NULL,
    balance_after         BIGINT NOT NULL CHECK (balance_after >= 0),
    description           TEXT NOT NULL,
    customer_order_id     UUID REFERENCES customer_order,
    UNIQUE (customer_order_id, kind)
);
CREATE INDEX loyalty_entry_by_customer ON loyalty_entry (customer_id, occurred_at DESC, loyalty_entry_id DESC);

-- Idempotency: a row is claimed (IN_FLIGHT, locked until a time) before work starts and holds
-- the stored success after. Failures delete the claim, so a retry re-attempts cleanly.
CREATE TABLE idempotency_record (
    campaign_id           UUID NOT NULL,
    idempotency_key       UUID NOT NULL,
    request_hash          BYTEA NOT NULL,
    customer_id           UUID,
    state                 TEXT NOT NULL CHECK (state IN ('IN_FLIGHT', 'DONE')),
    locked_until          TIMESTAMPTZ NOT NULL,
    response_status       INTEGER,
    response_body         BYTEA,
    created_at            TIMESTAMPTZ NOT NULL,
    expires_at            TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (campaign_id, idempotency_key)
);

-- Transactional outbox: written in the transaction of the change it reports.
CREATE TABLE event (
    event_seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id              UUID NOT NULL UNIQUE,
    event_type            TEXT NOT NULL,
    source                TEXT NOT NULL,
    subject               TEXT NOT NULL,
    occurred_at           TIMESTAMPTZ NOT NULL,
    campaign_id           UUID,
    partner_client_id     UUID,
    data                  JSONB NOT NULL
);

CREATE TABLE webhook_delivery (
    webhook_delivery_id   UUID PRIMARY KEY,
    event_id              UUID NOT NULL REFERENCES event (event_id),
    partner_client_id     UUID NOT NULL REFERENCES partner_client,
    status                TEXT NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    attempts              INTEGER NOT NULL DEFAULT 0,
    next_attempt_at       TIMESTAMPTZ NOT NULL,
    last_status_code      INTEGER,
    last_error            TEXT,
    locked_until          TIMESTAMPTZ,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    UNIQUE (event_id, partner_client_id)
);
CREATE INDEX webhook_delivery_due ON webhook_delivery (status, next_attempt_at);

CREATE TABLE mail (
    mail_id               UUID PRIMARY KEY,
    recipient             TEXT NOT NULL,
    subject               TEXT NOT NULL,
    body_text             TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('OUTBOX', 'SENT', 'FAILED')),
    created_at            TIMESTAMPTZ NOT NULL,
    sent_at               TIMESTAMPTZ
);

CREATE TABLE merchant_account (
    merchant_account_id   UUID PRIMARY KEY,
    merchant_id           UUID REFERENCES merchant,
    debtor_code           TEXT NOT NULL UNIQUE,
    email                 TEXT NOT NULL,
    legal_name            TEXT NOT NULL,
    provider_account_id   TEXT NOT NULL,
    status                TEXT NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE onboarding_code (
    onboarding_code_id    UUID PRIMARY KEY,
    merchant_account_id   UUID NOT NULL REFERENCES merchant_account,
    code_hash             BYTEA NOT NULL UNIQUE,
    expires_at            TIMESTAMPTZ NOT NULL,
    redeemed_at           TIMESTAMPTZ,
    created_at            TIMESTAMPTZ NOT NULL
);

-- Keys shared by every server node: JWT signing keys and the cursor secret.
CREATE TABLE signing_key (
    signing_key_id        TEXT PRIMARY KEY,
    purpose               TEXT NOT NULL CHECK (purpose IN ('jwt', 'cursor')),
    algorithm             TEXT NOT NULL,
    secret                BYTEA NOT NULL,
    public_key            BYTEA,
    active                BOOLEAN NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX signing_key_one_active ON signing_key (purpose) WHERE active;
