// Compiled into both `store::sqlite` and `store::postgres` by `include!` (see store/mod.rs).

/// The checkout unit of work over one database transaction.
struct SqlCheckoutTx {
    tx: sqlx::Transaction<'static, Db>,
    /// Events added and not written yet, with their ids.
    events: Vec<(uuid::Uuid, crate::events::NewEvent)>,
    /// Writes whose results nobody reads, sent before the next statement that needs a result
    /// (`store::batch`): every other method flushes first, so it sees them.
    batch: dialect::Batch,
    /// Places to take when the transaction commits.
    takes: Vec<crate::store::Places>,
}

impl SqlCheckoutTx {
    fn new(tx: sqlx::Transaction<'static, Db>) -> Self {
        Self {
            tx,
            events: Vec::new(),
            batch: dialect::Batch::default(),
            takes: Vec::new(),
        }
    }

    async fn flush(&mut self) -> sqlx::Result<()> {
        dialect::flush(&mut self.batch, &mut self.tx).await
    }
}

#[async_trait::async_trait]
impl crate::store::CheckoutTx for SqlCheckoutTx {
    fn take(&mut self, places: crate::store::Places) {
        self.takes.push(places);
    }

    async fn give_back_day(
        &mut self,
        group: uuid::Uuid,
        day: chrono::NaiveDate,
        quantity: u32,
    ) -> crate::store::StoreResult<()> {
        self.flush().await?;
        sqlx::query(
            "UPDATE availability_day SET reserved = reserved - $3
             WHERE availability_group_id = $1 AND day = $2",
        )
        .bind(group)
        .bind(day)
        .bind(i64::from(quantity))
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    async fn give_back_timeslot(
        &mut self,
        timeslot_id: uuid::Uuid,
        quantity: u32,
    ) -> crate::store::StoreResult<()> {
        self.flush().await?;
        sqlx::query("UPDATE timeslot SET reserved = reserved - $2 WHERE timeslot_id = $1")
            .bind(timeslot_id)
            .bind(i64::from(quantity))
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    async fn redeem_voucher(&mut self, voucher_id: uuid::Uuid) -> crate::store::StoreResult<bool> {
        self.flush().await?;
        let redeemed = sqlx::query(
            "UPDATE voucher SET redeemed = redeemed + 1
             WHERE voucher_id = $1 AND (max_redemptions IS NULL OR redeemed < max_redemptions)",
        )
        .bind(voucher_id)
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(redeemed == 1)
    }

    async fn unredeem_voucher(&mut self, voucher_id: uuid::Uuid) -> crate::store::StoreResult<()> {
        self.flush().await?;
        sqlx::query(
            "UPDATE voucher SET redeemed = redeemed - 1 WHERE voucher_id = $1 AND redeemed > 0",
        )
        .bind(voucher_id)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    async fn lock_wallet(
        &mut self,
        customer_id: uuid::Uuid,
        campaign_id: uuid::Uuid,
    ) -> crate::store::StoreResult<rust_decimal::Decimal> {
        self.flush().await?;
        // An UPDATE takes the row lock on Postgres and returns the latest committed balance;
        // on SQLite the transaction already holds the write lock. (Balances are compared in
        // Rust: SQLite keeps decimals as text, which does not compare as numbers.)
        let balance: Option<crate::store::DbDecimal> = sqlx::query_scalar(
            "UPDATE wallet SET updated_at = updated_at
             WHERE customer_id = $1 AND campaign_id = $2
             RETURNING balance",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .fetch_optional(&mut *self.tx)
        .await?;
        Ok(balance.map(|b| b.0).unwrap_or_default())
    }

    async fn set_wallet_balance(
        &mut self,
        customer_id: uuid::Uuid,
        campaign_id: uuid::Uuid,
        balance: rust_decimal::Decimal,
    ) -> crate::store::StoreResult<()> {
        self.flush().await?;
        sqlx::query(
            "UPDATE wallet SET balance = $3, updated_at = $4
             WHERE customer_id = $1 AND campaign_id = $2",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .bind(crate::store::DbDecimal(balance))
        .bind(chrono::Utc::now())
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    async fn insert_checkout(
        &mut self,
        c: &crate::store::NewCheckout,
    ) -> crate::store::StoreResult<()> {
        let now = chrono::Utc::now();
        self.batch.statement(
            "INSERT INTO checkout (checkout_id, campaign_id, merchant_id, customer_id, partner_client_id, status,
                 visit_date, timeslot_id, flexible_date, currency, subtotal, discount_total, wallet_applied, total,
                 requires_shipping_address, voucher_codes, external_reference, expires_at, created_at, updated_at,
                 provider, locale, email, first_name, last_name, return_url, shipping_address)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $20,
                 $21, $22, $23, $24, $25, $26)",
        )
        .bind(c.checkout_id)
        .bind(c.campaign_id)
        .bind(c.merchant_id)
        .bind(c.customer_id)
        .bind(c.partner_client_id)
        .bind(if c.confirmed.is_some() { "CONFIRMED" } else { "RESERVED" })
        .bind(c.visit_date)
        .bind(c.timeslot_id)
        .bind(c.flexible_date)
        .bind(c.currency.clone())
        .bind(crate::store::DbDecimal(c.subtotal))
        .bind(crate::store::DbDecimal(c.discount_total))
        .bind(crate::store::DbDecimal(c.wallet_applied))
        .bind(crate::store::DbDecimal(c.total))
        .bind(c.requires_shipping_address)
        .bind(sqlx::types::Json(c.voucher_codes.clone()))
        .bind(c.external_reference.clone())
        .bind(c.expires_at)
        .bind(now)
        .bind(c.provider.clone())
        .bind(c.locale.clone());
        let f = c.confirmed.as_ref();
        self.batch
            .bind(f.map(|f| f.email.clone()))
            .bind(f.map(|f| f.first_name.clone()))
            .bind(f.map(|f| f.last_name.clone()))
            .bind(f.map(|f| f.return_url.clone()))
            .bind(f.and_then(|f| f.shipping_address.clone()).map(sqlx::types::Json));
        if let Some(f) = f {
            insert_newsletter_consents(&mut self.batch, c.checkout_id, &f.newsletters, now);
        }
        for line in &c.lines {
            self.batch.statement(
                "INSERT INTO checkout_line (checkout_line_id, checkout_id, product_id, sku, title, quantity,
                     unit_price, list_price, booking_costs, visit_guarantee_cost, line_total,
                     availability_group_id, timeslot_id, age_group, visit_date)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
            )
            .bind(line.checkout_line_id)
            .bind(c.checkout_id)
            .bind(line.product_id)
            .bind(line.sku.clone())
            .bind(line.title.clone())
            .bind(i64::from(line.quantity))
            .bind(crate::store::DbDecimal(line.unit_price))
            .bind(crate::store::DbDecimal(line.list_price))
            .bind(crate::store::DbDecimal(line.booking_costs))
            .bind(crate::store::DbDecimal(line.visit_guarantee_cost))
            .bind(crate::store::DbDecimal(line.line_total))
            .bind(line.availability_group_id)
            .bind(line.timeslot_id)
            .bind(line.age_group.clone())
            .bind(line.visit_date);
        }
        for (voucher_id, discount) in &c.vouchers {
            self.batch.statement(
                "INSERT INTO checkout_voucher (checkout_id, voucher_id, discount, released)
                 VALUES ($1, $2, $3, FALSE)",
            )
            .bind(c.checkout_id)
            .bind(*voucher_id)
            .bind(crate::store::DbDecimal(*discount));
        }
        Ok(())
    }

    async fn transition_checkout(
        &mut self,
        checkout_id: uuid::Uuid,
        from: &str,
        to: &str,
        expired_by: Option<chrono::DateTime<chrono::Utc>>,
    ) -> crate::store::StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE checkout SET status = $3, updated_at = $4
             WHERE checkout_id = $1 AND status = $2 AND ($5 IS NULL OR expires_at <= $5)",
        )
        .bind(checkout_id)
        .bind(from)
        .bind(to)
        .bind(chrono::Utc::now())
        .bind(expired_by)
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }

    async fn confirm_checkout(
        &mut self,
        checkout_id: uuid::Uuid,
        f: &crate::store::CustomerFields,
        now: chrono::DateTime<chrono::Utc>,
    ) -> crate::store::StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE checkout SET status = 'CONFIRMED', email = $3, first_name = $4, last_name = $5,
                 return_url = $6, shipping_address = $7, updated_at = $2
             WHERE checkout_id = $1 AND status = 'RESERVED' AND expires_at > $2",
        )
        .bind(checkout_id)
        .bind(now)
        .bind(&f.email)
        .bind(&f.first_name)
        .bind(&f.last_name)
        .bind(&f.return_url)
        .bind(f.shipping_address.as_ref().map(sqlx::types::Json))
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        if moved != 1 {
            return Ok(false);
        }
        insert_newsletter_consents(&mut self.batch, checkout_id, &f.newsletters, now);
        Ok(true)
    }

    async fn insert_order(&mut self, o: &crate::store::NewOrder) -> crate::store::StoreResult<()> {
        let now = chrono::Utc::now();
        self.batch.statement(
            "INSERT INTO customer_order (customer_order_id, display_id, checkout_id, campaign_id, customer_id,
                 status, total, currency, created_at, last_mutation_date)
             VALUES ($1, $2, $3, $4, $5, 'PENDING_PAYMENT', $6, $7, $8, $8)",
        )
        .bind(o.order_id)
        .bind(o.display_id.clone())
        .bind(o.checkout_id)
        .bind(o.campaign_id)
        .bind(o.customer_id)
        .bind(crate::store::DbDecimal(o.total))
        .bind(o.currency.clone())
        .bind(now);
        self.batch.statement(
            "INSERT INTO payment (payment_id, customer_order_id, provider, status, amount, currency, return_url,
                 expires_at, created_at, updated_at, payment_url)
             VALUES ($1, $2, $3, 'OPEN', $4, $5, $6, $7, $8, $8, $9)",
        )
        .bind(o.payment_id)
        .bind(o.order_id)
        .bind(o.payment_provider.clone())
        .bind(crate::store::DbDecimal(o.total))
        .bind(o.currency.clone())
        .bind(o.return_url.clone())
        .bind(o.payment_expires_at)
        .bind(now)
        .bind(o.payment_url.clone());
        Ok(())
    }

    async fn settle_payment(
        &mut self,
        payment_id: uuid::Uuid,
        to: &str,
    ) -> crate::store::StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE payment SET status = $2, updated_at = $3 WHERE payment_id = $1 AND status = 'OPEN'",
        )
        .bind(payment_id)
        .bind(to)
        .bind(chrono::Utc::now())
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }

    async fn transition_order(
        &mut self,
        order_id: uuid::Uuid,
        from: &str,
        to: &str,
    ) -> crate::store::StoreResult<bool> {
        self.flush().await?;
        let moved = sqlx::query(
            "UPDATE customer_order SET status = $3, last_mutation_date = $4
             WHERE customer_order_id = $1 AND status = $2",
        )
        .bind(order_id)
        .bind(from)
        .bind(to)
        .bind(chrono::Utc::now())
        .execute(&mut *self.tx)
        .await?
        .rows_affected();
        Ok(moved == 1)
    }

    async fn insert_tickets(
        &mut self,
        tickets: &[crate::store::NewTicket],
    ) -> crate::store::StoreResult<()> {
        self.flush().await?;
        let now = chrono::Utc::now();
        for t in tickets {
            sqlx::query(
                "INSERT INTO ticket (ticket_id, customer_order_id, checkout_line_id, product_id, code, visit_date,
                     timeslot_id, valid_until, status, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'VALID', $9)",
            )
            .bind(t.ticket_id)
            .bind(t.order_id)
            .bind(t.checkout_line_id)
            .bind(t.product_id)
            .bind(&t.code)
            .bind(t.visit_date)
            .bind(t.timeslot_id)
            .bind(t.valid_until)
            .bind(now)
            .execute(&mut *self.tx)
            .await
            .map_err(|e| crate::store::StoreError::classify(e, "ticket code"))?;
        }
        Ok(())
    }

    async fn release_checkout_vouchers(
        &mut self,
        checkout_id: uuid::Uuid,
    ) -> crate::store::StoreResult<Vec<uuid::Uuid>> {
        self.flush().await?;
        Ok(sqlx::query_scalar(
            "UPDATE checkout_voucher SET released = TRUE
             WHERE checkout_id = $1 AND released = FALSE
             RETURNING voucher_id",
        )
        .bind(checkout_id)
        .fetch_all(&mut *self.tx)
        .await?)
    }

    async fn add_loyalty_entry(
        &mut self,
        customer_id: uuid::Uuid,
        campaign_id: uuid::Uuid,
        order_id: Option<uuid::Uuid>,
        kind: &str,
        points: i64,
        description: &str,
    ) -> crate::store::StoreResult<i64> {
        self.flush().await?;
        // The customer row serialises entries of one account, so each sees the last balance.
        sqlx::query("UPDATE customer SET updated_at = updated_at WHERE customer_id = $1")
            .bind(customer_id)
            .execute(&mut *self.tx)
            .await?;
        let last: Option<i64> = sqlx::query_scalar(
            "SELECT balance_after FROM loyalty_entry WHERE customer_id = $1 AND campaign_id = $2
             ORDER BY occurred_at DESC, loyalty_entry_id DESC LIMIT 1",
        )
        .bind(customer_id)
        .bind(campaign_id)
        .fetch_optional(&mut *self.tx)
        .await?;
        let balance = (last.unwrap_or(0) + points).max(0);
        sqlx::query(
            "INSERT INTO loyalty_entry (loyalty_entry_id, customer_id, campaign_id, occurred_at, kind, points,
                 balance_after, description, customer_order_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(uuid::Uuid::new_v4())
        .bind(customer_id)
        .bind(campaign_id)
        .bind(chrono::Utc::now())
        .bind(kind)
        .bind(points)
        .bind(balance)
        .bind(description)
        .bind(order_id)
        .execute(&mut *self.tx)
        .await
        .map_err(|e| crate::store::StoreError::classify(e, "loyalty entry"))?;
        Ok(balance)
    }

    async fn insert_event(
        &mut self,
        event: &crate::events::NewEvent,
    ) -> crate::store::StoreResult<uuid::Uuid> {
        let event_id = uuid::Uuid::new_v4();
        self.events.push((event_id, event.clone()));
        Ok(event_id)
    }

    async fn write_events(&mut self) -> crate::store::StoreResult<()> {
        // Sent at once, so a batch never holds two event inserts: on Postgres the parts of a
        // batch run in no set order, and the outbox's order is the order events were added.
        insert_events(&mut self.batch, &self.events);
        self.events.clear();
        Ok(self.flush().await?)
    }

    async fn complete_idempotency(
        &mut self,
        campaign_id: uuid::Uuid,
        key: uuid::Uuid,
        status: u16,
        body: &[u8],
    ) -> crate::store::StoreResult<()> {
        complete_idempotency_key(&mut self.batch, campaign_id, key, status, body);
        Ok(())
    }

    async fn commit(mut self: Box<Self>) -> crate::store::StoreResult<()> {
        insert_events(&mut self.batch, &self.events);
        let SqlCheckoutTx {
            tx, batch, takes, ..
        } = *self;
        dialect::take_and_commit(tx, batch, &takes).await
    }
}

/// Adds to `batch` the customer's consents to newsletters, given at the checkout; each once,
/// as no two parts of a Postgres batch may write the same row.
fn insert_newsletter_consents(
    batch: &mut dialect::Batch,
    checkout_id: uuid::Uuid,
    newsletters: &[String],
    now: chrono::DateTime<chrono::Utc>,
) {
    for (i, newsletter_id) in newsletters.iter().enumerate() {
        if newsletters[..i].contains(newsletter_id) {
            continue;
        }
        batch
            .statement(
                "INSERT INTO checkout_newsletter (checkout_id, newsletter_id, consented_at)
                 VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            )
            .bind(checkout_id)
            .bind(newsletter_id.clone())
            .bind(now);
    }
}
