//! `GateStore`: gates, their devices, the tickets as a gate judges them, and the scans kept.

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::{push_ids, sessions::BUMP_AUTH_REVISION, Db, SqlStore, ThisBackend};
use crate::store::{
    backend::Backend, DayCodes, Gate, GateCredential, GateInput, GateSecrets, GateStore, LetIn,
    RedemptionRecord, ScannedTicket, StoreError, StoreResult, DEFAULT_EARLY_MINUTES,
};

/// A ticket with what a gate judges it by (the columns of `ScannedTicket`), followed by its
/// `WHERE`.
macro_rules! scanned_tickets {
    ($rest:literal) => {
        concat!(
            "SELECT t.ticket_id, t.code, t.status, t.product_id, t.visit_date, t.valid_until,
                    t.created_at, t.redeemed_at, t.redemption_id, r.gate_id AS redeemed_by, t.customer_order_id,
                    o.display_id AS order_display_id, o.campaign_id, c.partner_client_id,
                    p.merchant_id, m.timezone, l.title AS product_title, l.age_group,
                    t.timeslot_id, s.start_time AS slot_start, s.end_time AS slot_end,
                    t.answers, c.answers AS order_answers, c.locale
             FROM ticket t
             JOIN customer_order o ON o.customer_order_id = t.customer_order_id
             JOIN checkout c ON c.checkout_id = o.checkout_id
             JOIN checkout_line l ON l.checkout_line_id = t.checkout_line_id
             JOIN product p ON p.product_id = t.product_id
             JOIN merchant m ON m.merchant_id = p.merchant_id
             LEFT JOIN timeslot s ON s.timeslot_id = t.timeslot_id
             LEFT JOIN redemption r ON r.redemption_id = t.redemption_id ",
            $rest
        )
    };
}

/// `product_ids` as stored: JSON, or NULL for every product of the merchant.
fn stored_products(input: &GateInput) -> Option<sqlx::types::Json<Vec<Uuid>>> {
    input.product_ids.clone().map(sqlx::types::Json)
}

fn minutes(value: Option<u32>, default: u32) -> i32 {
    i32::try_from(value.unwrap_or(default)).unwrap_or(i32::MAX)
}

impl SqlStore {
    /// The titles and age groups of the products a gate admits (`products`; none: all of the
    /// merchant's).
    async fn gate_products(
        &self,
        merchant_id: Uuid,
        products: Option<&[Uuid]>,
    ) -> StoreResult<Vec<app::wire::ManifestProduct>> {
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT p.product_id, p.title, p.age_group, t.locale, t.title
             FROM product p LEFT JOIN product_translation t ON t.product_id = p.product_id
             WHERE p.merchant_id = ",
        );
        query.push_bind(merchant_id);
        if let Some(ids) = products {
            query.push(" AND p.product_id IN (");
            push_ids(&mut query, ids.iter().copied());
            query.push(")");
        }
        query.push(" ORDER BY p.product_id");
        type Row = (Uuid, String, Option<String>, Option<String>, Option<String>);
        let rows: Vec<Row> = query.build_query_as().fetch_all(&self.pool).await?;
        let mut found: Vec<app::wire::ManifestProduct> = Vec::new();
        for (product_id, title, age_group, locale, translated) in rows {
            if found.last().is_none_or(|p| p.product_id != product_id) {
                found.push(app::wire::ManifestProduct {
                    product_id,
                    title,
                    titles: Default::default(),
                    age_group,
                });
            }
            if let (Some(product), Some(locale), Some(translated)) =
                (found.last_mut(), locale, translated)
            {
                product.titles.insert(locale, translated);
            }
        }
        Ok(found)
    }

    /// `InvalidReference` on `product_ids` unless every product named is the merchant's.
    async fn check_gate_products(&self, merchant_id: Uuid, input: &GateInput) -> StoreResult<()> {
        let Some(ids) = input.product_ids.as_deref().filter(|ids| !ids.is_empty()) else {
            return Ok(());
        };
        let mut query =
            sqlx::QueryBuilder::<Db>::new("SELECT product_id FROM product WHERE merchant_id = ");
        query.push_bind(merchant_id).push(" AND product_id IN (");
        push_ids(&mut query, ids.iter().copied());
        query.push(")");
        let found: Vec<Uuid> = query.build_query_scalar().fetch_all(&self.pool).await?;
        match ids.iter().find(|id| !found.contains(id)) {
            None => Ok(()),
            Some(missing) => Err(StoreError::InvalidReference {
                field: "product_ids".into(),
                message: format!("product {missing} is not a product of this gate's merchant"),
            }),
        }
    }
}

#[async_trait::async_trait]
impl GateStore for SqlStore {
    async fn create_gate(
        &self,
        gate_id: Uuid,
        merchant_id: Uuid,
        client_id: &str,
        input: &GateInput,
        secrets: &GateSecrets,
    ) -> StoreResult<Gate> {
        self.check_gate_products(merchant_id, input).await?;
        let now = Utc::now();
        sqlx::query_as(
            "INSERT INTO gate (gate_id, merchant_id, name, product_ids, early_minutes, late_minutes,
                 client_id, secret_hash, pairing_hash, pairing_expires_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
             RETURNING *",
        )
        .bind(gate_id)
        .bind(merchant_id)
        .bind(&input.name)
        .bind(stored_products(input))
        .bind(minutes(input.early_minutes, DEFAULT_EARLY_MINUTES))
        .bind(minutes(input.late_minutes, 0))
        .bind(client_id)
        .bind(&secrets.secret_hash)
        .bind(&secrets.pairing_hash)
        .bind(secrets.pairing_expires_at)
        .bind(now)
        .fetch_one(&self.writer)
        .await
        .map_err(|e| StoreError::classify(e, "merchant_id"))
    }

    async fn gate(&self, gate_id: Uuid) -> StoreResult<Option<Gate>> {
        self.row_by_key("SELECT * FROM gate WHERE gate_id = $1", gate_id)
            .await
    }

    async fn gates_of_merchant(&self, merchant_id: Uuid) -> StoreResult<Vec<Gate>> {
        Ok(
            sqlx::query_as(
                "SELECT * FROM gate WHERE merchant_id = $1 ORDER BY created_at, gate_id",
            )
            .bind(merchant_id)
            .fetch_all(&self.pool)
            .await?,
        )
    }

    async fn update_gate(&self, gate_id: Uuid, input: &GateInput) -> StoreResult<Option<Gate>> {
        let Some(current) = self.gate(gate_id).await? else {
            return Ok(None);
        };
        self.check_gate_products(current.merchant_id, input).await?;
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let gate = sqlx::query_as(
            "UPDATE gate SET name = $2, product_ids = $3, early_minutes = $4, late_minutes = $5,
                 updated_at = $6
             WHERE gate_id = $1 RETURNING *",
        )
        .bind(gate_id)
        .bind(&input.name)
        .bind(stored_products(input))
        .bind(minutes(input.early_minutes, DEFAULT_EARLY_MINUTES))
        .bind(minutes(input.late_minutes, 0))
        .bind(Utc::now())
        .fetch_optional(&mut *tx)
        .await?;
        // Nodes keep standing gates (`auth::cache`): the change must reach them.
        sqlx::query(BUMP_AUTH_REVISION).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(gate)
    }

    async fn revoke_gate(&self, gate_id: Uuid, now: DateTime<Utc>) -> StoreResult<bool> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        let found: Option<Uuid> = sqlx::query_scalar(
            "UPDATE gate SET revoked_at = COALESCE(revoked_at, $2), pairing_hash = NULL,
                 pairing_expires_at = NULL, updated_at = $2
             WHERE gate_id = $1 RETURNING gate_id",
        )
        .bind(gate_id)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        sqlx::query(BUMP_AUTH_REVISION).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(found.is_some())
    }

    async fn set_gate_pairing(
        &self,
        gate_id: Uuid,
        pairing_hash: &[u8],
        expires_at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let done = sqlx::query(
            "UPDATE gate SET pairing_hash = $2, pairing_expires_at = $3
             WHERE gate_id = $1 AND revoked_at IS NULL",
        )
        .bind(gate_id)
        .bind(pairing_hash)
        .bind(expires_at)
        .execute(&self.writer)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn pair_gate_device(
        &self,
        pairing_hash: &[u8],
        device_client_id: &str,
        device_secret_hash: &[u8],
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Gate>> {
        let mut tx = ThisBackend::begin_write(&self.writer).await?;
        // Taking the code and recording the device in one transaction: a code used twice at
        // once pairs one device.
        let gate: Option<Gate> = sqlx::query_as(
            "UPDATE gate SET pairing_hash = NULL, pairing_expires_at = NULL
             WHERE pairing_hash = $1 AND pairing_expires_at > $2 AND revoked_at IS NULL
             RETURNING *",
        )
        .bind(pairing_hash)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(gate) = gate else {
            return Ok(None);
        };
        sqlx::query(
            "INSERT INTO gate_device (client_id, gate_id, secret_hash, created_at)
             VALUES ($1, $2, $3, $4)",
        )
        .bind(device_client_id)
        .bind(gate.gate_id)
        .bind(device_secret_hash)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(gate))
    }

    async fn gate_credential(&self, client_id: &str) -> StoreResult<Option<GateCredential>> {
        Ok(sqlx::query_as(
            "SELECT gate.*, gate.secret_hash AS credential_hash FROM gate WHERE client_id = $1
             UNION ALL
             SELECT gate.*, d.secret_hash AS credential_hash
             FROM gate_device d JOIN gate ON gate.gate_id = d.gate_id WHERE d.client_id = $1",
        )
        .bind(client_id)
        .fetch_optional(&self.pool)
        .await?)
    }

    async fn let_in_at_once(&self, entry: &LetIn<'_>) -> StoreResult<Option<bool>> {
        if !ThisBackend::WRITES_IN_ONE_STATEMENT {
            return Ok(None);
        }
        // Every part after the first reads `used`, the first's answer, so nothing is written
        // for a ticket another scan or a cancellation changed first; the statement is one
        // transaction, committed (and on disk) when it returns. The event and its delivery
        // are `events::insert_events`'s rows.
        let (r, event) = (entry.record, entry.event);
        let now = chrono::Utc::now();
        let used: i64 = sqlx::query_scalar(
            "WITH used AS (
                 UPDATE ticket SET status = 'USED', redeemed_at = $3, redemption_id = $2
                 WHERE ticket_id = $1 AND status = 'VALID'
                 RETURNING ticket_id),
             kept AS (
                 INSERT INTO redemption (redemption_id, gate_id, nonce, code, ticket_id, status,
                     offline, redeemed_at, local_date, recorded_at, undone_at, answer, problem)
                 SELECT $2, $4, $5, $6, used.ticket_id, $7, $8, $3, $9, $10, NULL, $11, NULL
                 FROM used),
             touched AS (
                 UPDATE customer_order SET last_mutation_date = $10
                 WHERE customer_order_id = $12 AND EXISTS (SELECT 1 FROM used)),
             told AS (
                 INSERT INTO event (event_id, event_type, source, subject, occurred_at,
                     campaign_id, partner_client_id, data)
                 SELECT $13, $14, 'boxoffice', $15, $16, $17, $18, $19 FROM used),
             delivered AS (
                 INSERT INTO webhook_delivery (webhook_delivery_id, event_id, partner_client_id,
                     status, attempts, next_attempt_at, created_at, updated_at)
                 SELECT $13, $13, pc.partner_client_id, 'PENDING', 0, $16, $16, $16
                 FROM used JOIN partner_client pc
                   ON pc.partner_client_id = $18
                  AND pc.webhook_url IS NOT NULL AND pc.webhook_secret IS NOT NULL)
             SELECT COUNT(*) FROM used",
        )
        .bind(entry.ticket_id)
        .bind(r.redemption_id)
        .bind(r.redeemed_at)
        .bind(r.gate_id)
        .bind(&r.nonce)
        .bind(&r.code)
        .bind(r.status.as_str())
        .bind(r.offline)
        .bind(r.local_date)
        .bind(r.recorded_at)
        .bind(r.answer.clone())
        .bind(entry.order_id)
        .bind(crate::ids::time_ordered_id())
        .bind(event.event_type.as_str())
        .bind(&event.subject)
        .bind(now)
        .bind(event.campaign_id)
        .bind(event.partner_client_id)
        .bind(sqlx::types::Json(&event.data))
        .fetch_one(&self.writer)
        .await?;
        Ok(Some(used == 1))
    }

    async fn ticket_by_code(&self, code: &str) -> StoreResult<Option<ScannedTicket>> {
        self.row_by_key(scanned_tickets!("WHERE t.code = $1"), code.to_owned())
            .await
    }

    async fn ticket_to_scan(&self, ticket_id: Uuid) -> StoreResult<Option<ScannedTicket>> {
        self.row_by_key(scanned_tickets!("WHERE t.ticket_id = $1"), ticket_id)
            .await
    }

    async fn redemption(&self, redemption_id: Uuid) -> StoreResult<Option<RedemptionRecord>> {
        self.row_by_key(
            "SELECT * FROM redemption WHERE redemption_id = $1",
            redemption_id,
        )
        .await
    }

    async fn redemption_by_nonce(
        &self,
        gate_id: Uuid,
        nonce: &str,
    ) -> StoreResult<Option<RedemptionRecord>> {
        Ok(
            sqlx::query_as("SELECT * FROM redemption WHERE gate_id = $1 AND nonce = $2")
                .bind(gate_id)
                .bind(nonce)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    async fn redemptions_of_day(
        &self,
        gate_id: Uuid,
        day: NaiveDate,
    ) -> StoreResult<Vec<RedemptionRecord>> {
        Ok(sqlx::query_as(
            "SELECT * FROM redemption
             WHERE gate_id = $1 AND local_date = $2 AND status <> 'REFUSED'
             ORDER BY redeemed_at, redemption_id",
        )
        .bind(gate_id)
        .bind(day)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn day_codes(
        &self,
        merchant_id: Uuid,
        products: Option<&[Uuid]>,
        day: NaiveDate,
    ) -> StoreResult<DayCodes> {
        let mut query = sqlx::QueryBuilder::<Db>::new(
            "SELECT t.code, t.status FROM ticket t JOIN product p ON p.product_id = t.product_id
             WHERE t.status <> 'VALID' AND p.merchant_id = ",
        );
        query.push_bind(merchant_id);
        query.push(" AND (t.visit_date = ");
        query.push_bind(day);
        query.push(" OR (t.visit_date IS NULL AND (t.valid_until IS NULL OR t.valid_until >= ");
        query.push_bind(day);
        query.push(")))");
        if let Some(ids) = products {
            if ids.is_empty() {
                return Ok(DayCodes::default());
            }
            query.push(" AND t.product_id IN (");
            push_ids(&mut query, ids.iter().copied());
            query.push(")");
        }
        query.push(" ORDER BY t.code");
        let rows: Vec<(String, String)> = query.build_query_as().fetch_all(&self.pool).await?;
        let mut codes = DayCodes {
            products: self.gate_products(merchant_id, products).await?,
            ..DayCodes::default()
        };
        for (code, status) in rows {
            if status == app::wire::TicketStatus::Used.as_str() {
                codes.used.push(code);
            } else {
                codes.revoked.push(code);
            }
        }
        Ok(codes)
    }
}
