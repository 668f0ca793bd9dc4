-- An identity issuer is trusted only for the apiKeys it lists (required when its JWKS URL
-- template uses {apiKey}) and only in the campaigns tied to it. Issuers from before this
-- migration list no apiKeys and no campaigns, so they open no session until an operator
-- configures both: trust is granted explicitly, never inherited.
ALTER TABLE identity_issuer ADD COLUMN api_keys TEXT;

CREATE TABLE identity_issuer_campaign (
    identity_issuer_id    BLOB NOT NULL REFERENCES identity_issuer ON DELETE CASCADE,
    campaign_id           BLOB NOT NULL REFERENCES campaign,
    PRIMARY KEY (identity_issuer_id, campaign_id)
);
