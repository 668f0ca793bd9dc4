use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{HoldLimits, StoreResult};
use crate::theme::Theme;

/// A partner client as operators read it: no secret, and no webhook signing secret (both are
/// shown only when created or rotated).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct PartnerClient {
    pub partner_client_id: Uuid,
    /// The OAuth `client_id` the partner authenticates with.
    #[schema(example = "pc_1f0c9e3a5b7d2e4f6a8b0c1d")]
    pub client_id: String,
    pub name: String,
    /// Campaigns the client may sell in, in id order.
    pub campaign_ids: Vec<Uuid>,
    /// Origins allowed to frame the hosted UI (CSP `frame-ancestors`, postMessage targets).
    #[schema(example = json!(["https://shop.example", "http://localhost:*"]))]
    pub frame_origins: Vec<String>,
    /// Origins a checkout's `return_url` may point to.
    pub return_origins: Vec<String>,
    /// Where events are delivered, signed per Standard Webhooks.
    pub webhook_url: Option<String>,
    /// What one of its buyers may hold at once (docs/security.md, "Holds"); `null`: the
    /// server's settings (`BOXOFFICE_HOLD_*`).
    pub hold_limits: Option<HoldLimits>,
    /// The partner's look in the hosted frame (docs/webframe.md, "Your look"); `null`: the
    /// frame's own.
    pub theme: Option<Theme>,
    /// How its orders are paid (docs/octo.md, "Paying on account").
    pub settlement: Settlement,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A partner client with what authenticating it and signing its webhooks needs.
#[derive(Clone)]
pub struct PartnerClientSecrets {
    pub client: PartnerClient,
    /// SHA-256 of the client secret (see `crate::secrets`).
    pub secret_hash: Vec<u8>,
    /// The Standard Webhooks signing secret (`whsec_…`); symmetric, so kept as is.
    pub webhook_secret: Option<String>,
}

impl std::fmt::Debug for PartnerClientSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartnerClientSecrets")
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

/// The writable fields of a partner client (create and full update).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PartnerClientInput {
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub name: String,
    /// On create: the client id to issue (generated as `pc_…` when absent). It cannot be
    /// changed afterwards; an update may repeat it.
    #[serde(default)]
    #[schema(pattern = "^[A-Za-z0-9._-]{3,64}$")]
    pub client_id: Option<String>,
    #[serde(default)]
    #[schema(max_items = 100)]
    pub campaign_ids: Vec<Uuid>,
    /// `scheme://host[:port]`; `http://localhost:*` allows any local port.
    #[serde(default)]
    #[schema(max_items = 50, inline, value_type = Vec<OriginPattern>)]
    pub frame_origins: Vec<String>,
    #[serde(default)]
    #[schema(max_items = 50, inline, value_type = Vec<OriginPattern>)]
    pub return_origins: Vec<String>,
    #[serde(default)]
    #[schema(schema_with = crate::validate::blank_or_http_url_schema)]
    pub webhook_url: Option<String>,
    /// Bounds of its own on what one buyer may hold at once (a partner selling to school
    /// groups needs more places than a family buys); absent or `null`: the server's.
    #[serde(default)]
    pub hold_limits: Option<HoldLimits>,
    /// Colours, corner radius, font stack and colour scheme of the hosted frame for this
    /// partner's sessions; absent or `null`: the frame's own look.
    #[serde(default)]
    pub theme: Option<Theme>,
    /// How its orders are paid (default `payment_page`); `on_account` lets an OCTO reseller
    /// confirm bookings without a payment page and owe their money (docs/octo.md).
    #[serde(default)]
    pub settlement: Settlement,
}

/// How a partner's orders are paid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Settlement {
    /// The customer pays at the payment provider's page.
    #[default]
    PaymentPage,
    /// The partner confirms without a payment page and owes the order's money (a `sale` entry
    /// of the settlement ledger, docs/settlement.md).
    OnAccount,
}

impl Settlement {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PaymentPage => "payment_page",
            Self::OnAccount => "on_account",
        }
    }
}

impl TryFrom<String> for Settlement {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        match value.as_str() {
            "payment_page" => Ok(Self::PaymentPage),
            "on_account" => Ok(Self::OnAccount),
            _ => Err(format!("unknown settlement {value}")),
        }
    }
}

/// An origin, `scheme://host[:port]`, as [`app::wire::ORIGIN_PATTERN`] states it and the
/// server checks it (`validate::is_origin_pattern`): the origin lists' items in the document.
struct OriginPattern;

impl utoipa::PartialSchema for OriginPattern {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(app::wire::ORIGIN_PATTERN))
            .examples(["https://shop.example", "http://localhost:*"])
            .into()
    }
}

impl utoipa::ToSchema for OriginPattern {}

impl PartnerClientInput {
    /// Trims text, lower-cases origins (browsers send them lower-case, so a stored
    /// `https://Shop.example` would never match) and drops repeated origins and campaigns,
    /// keeping the first occurrence.
    pub fn normalize(&mut self) {
        fn dedup<T: PartialEq + Clone>(items: &mut Vec<T>) {
            let mut seen = Vec::with_capacity(items.len());
            items.retain(|item| {
                let new = !seen.contains(item);
                if new {
                    seen.push(item.clone());
                }
                new
            });
        }
        self.name = self.name.trim().to_owned();
        if let Some(id) = &mut self.client_id {
            *id = id.trim().to_owned();
        }
        for origins in [&mut self.frame_origins, &mut self.return_origins] {
            for origin in origins.iter_mut() {
                *origin = origin.trim().to_ascii_lowercase();
            }
            dedup(origins);
        }
        dedup(&mut self.campaign_ids);
        if let Some(url) = &mut self.webhook_url {
            *url = url.trim().to_owned();
        }
        if self.webhook_url.as_deref() == Some("") {
            self.webhook_url = None;
        }
        if let Some(theme) = &mut self.theme {
            theme.normalize();
        }
    }
}

/// The secrets a client is written with: the client secret's hash and the webhook secret.
#[derive(Clone)]
pub struct ClientSecrets {
    pub secret_hash: Vec<u8>,
    pub webhook_secret: String,
}

impl std::fmt::Debug for ClientSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientSecrets(..)")
    }
}

/// One row of a client joined to one of its campaigns; rows of one client are folded into a
/// [`PartnerClientSecrets`] by [`fold_client_rows`].
#[derive(sqlx::FromRow)]
pub(crate) struct PartnerClientRow {
    partner_client_id: Uuid,
    client_id: String,
    name: String,
    secret_hash: Vec<u8>,
    frame_origins: sqlx::types::Json<Vec<String>>,
    return_origins: sqlx::types::Json<Vec<String>>,
    webhook_url: Option<String>,
    webhook_secret: Option<String>,
    hold_limits: Option<sqlx::types::Json<HoldLimits>>,
    theme: Option<sqlx::types::Json<Theme>>,
    #[sqlx(try_from = "String")]
    settlement: Settlement,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    allowed_campaign_id: Option<Uuid>,
}

/// Folds rows ordered by client into one record per client, in the rows' order.
pub(crate) fn fold_client_rows(rows: Vec<PartnerClientRow>) -> Vec<PartnerClientSecrets> {
    let mut out: Vec<PartnerClientSecrets> = Vec::new();
    for row in rows {
        let same = out
            .last()
            .is_some_and(|last| last.client.partner_client_id == row.partner_client_id);
        if !same {
            out.push(PartnerClientSecrets {
                client: PartnerClient {
                    partner_client_id: row.partner_client_id,
                    client_id: row.client_id,
                    name: row.name,
                    campaign_ids: Vec::new(),
                    frame_origins: row.frame_origins.0,
                    return_origins: row.return_origins.0,
                    webhook_url: row.webhook_url,
                    hold_limits: row.hold_limits.map(|l| l.0),
                    theme: row.theme.map(|t| t.0),
                    settlement: row.settlement,
                    created_at: row.created_at,
                    updated_at: row.updated_at,
                },
                secret_hash: row.secret_hash,
                webhook_secret: row.webhook_secret,
            });
        }
        if let (Some(campaign), Some(last)) = (row.allowed_campaign_id, out.last_mut()) {
            last.client.campaign_ids.push(campaign);
        }
    }
    out
}

#[async_trait::async_trait]
pub trait ClientStore {
    /// Creates a client under `client_id` (the caller resolves `input.client_id`); a taken
    /// client id is a conflict, an unknown campaign a missing `campaign_ids[i]`.
    async fn create_partner_client(
        &self,
        partner_client_id: Uuid,
        client_id: &str,
        input: &PartnerClientInput,
        secrets: &ClientSecrets,
    ) -> StoreResult<PartnerClient>;
    /// Creates the client `client_id` or brings an existing one to `input` and the given
    /// secret, keeping its id and webhook secret: running it twice changes nothing (the demo
    /// seeder configures its client this way).
    async fn upsert_partner_client(
        &self,
        client_id: &str,
        input: &PartnerClientInput,
        secrets: &ClientSecrets,
    ) -> StoreResult<PartnerClient>;
    async fn partner_client(&self, partner_client_id: Uuid) -> StoreResult<Option<PartnerClient>>;
    /// The client a partner authenticates as, with its secret hash.
    async fn partner_client_by_client_id(
        &self,
        client_id: &str,
    ) -> StoreResult<Option<PartnerClientSecrets>>;
    /// Replaces the writable fields and the allowed campaigns in one transaction (the client
    /// id and secrets stay); `None` when no such client exists.
    async fn update_partner_client(
        &self,
        partner_client_id: Uuid,
        input: &PartnerClientInput,
    ) -> StoreResult<Option<PartnerClient>>;
    /// Clients in id order, after `after`.
    async fn list_partner_clients(
        &self,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<PartnerClient>>;
    /// Replaces the client secret's hash; the old secret stops verifying at once. Returns the
    /// client id, `None` when no such client exists.
    async fn set_client_secret_hash(
        &self,
        partner_client_id: Uuid,
        secret_hash: &[u8],
    ) -> StoreResult<Option<String>>;
    /// Replaces the webhook signing secret. Returns the client id, `None` when no such client.
    async fn set_webhook_secret(
        &self,
        partner_client_id: Uuid,
        webhook_secret: &str,
    ) -> StoreResult<Option<String>>;
    /// Deletes a client that nothing refers to (`false`: no such client); one with customers,
    /// sessions or checkouts is a conflict.
    async fn delete_partner_client(&self, partner_client_id: Uuid) -> StoreResult<bool>;
    async fn client_may_use_campaign(
        &self,
        partner_client_id: Uuid,
        campaign_id: Uuid,
    ) -> StoreResult<bool>;
}
