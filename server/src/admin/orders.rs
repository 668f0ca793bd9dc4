//! `GET /admin/v1/orders/{order_id}`: an order as the operator reads it, with its payment at
//! the provider and the refunds made of it (what a late payment's refund, and later the
//! after-sale's, left; docs/payments.md).

use app::wire::{Money, OrderStatus, PaymentStatus};
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{crud::found, Admin};
use crate::{
    error::Result,
    http::{envelope::Data, extract::ApiPath, openapi::Problem404},
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_order))
}

/// An order, its payment and its refunds.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct OperatorOrder {
    order_id: Uuid,
    order_display_id: String,
    status: OrderStatus,
    total: Money,
    checkout_id: Uuid,
    campaign_id: Uuid,
    merchant_id: Uuid,
    created_at: DateTime<Utc>,
    payment: Option<OperatorPayment>,
    /// Oldest first.
    refunds: Vec<OperatorRefund>,
    /// The order as its customer reads it now: tickets with their status, and `after_sale`.
    order: app::wire::Order,
}

/// An order's payment as the provider took it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct OperatorPayment {
    payment_id: Uuid,
    /// `sandbox` or `stripe`.
    provider: String,
    status: PaymentStatus,
    amount: Money,
    /// The provider's id of the payment (Stripe's PaymentIntent), `null` for the sandbox's.
    provider_ref: Option<String>,
    /// The merchant's connected account a destination charge paid, `null` for the platform's.
    provider_destination: Option<String>,
    /// When the provider's side was last confirmed final (the reconciliation stops asking).
    provider_final_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

/// Money given back through the provider.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct OperatorRefund {
    refund_id: Uuid,
    payment_id: Uuid,
    /// `LATE_PAYMENT`: the payment succeeded after its order had ended; otherwise the
    /// after-sale change's reason (`CUSTOMER`, `PARTNER`, `OPERATOR`, `WITHDRAWAL`,
    /// `MERCHANT_CLOSED`).
    reason: String,
    /// What the payment provider gives back.
    amount: Money,
    /// What went back to the customer's wallet in the same transaction.
    to_wallet: Money,
    /// The tickets it refunds (none for a late payment's).
    ticket_ids: Vec<Uuid>,
    /// `PENDING` (decided, not yet confirmed by the provider), `SUCCEEDED` or `FAILED`.
    status: String,
    /// The provider's id of the refund, once it answered.
    provider_ref: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

/// Reads an order with its payment and refunds.
#[utoipa::path(get, path = "/admin/v1/orders/{order_id}",
    params(("order_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<OperatorOrder>)), Problem404))]
async fn get_order(
    Admin(state): Admin,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Data<OperatorOrder>> {
    let Some(order) = state.store.order(order_id).await? else {
        return found(None, "The order");
    };
    let payment = state.store.payment_of_order(order_id).await?;
    let refunds = state.store.refunds_of_order(order_id).await?;
    let view =
        crate::after_sale::facts::order_now(&state.commerce, order.clone(), Utc::now()).await?;
    found(
        Some(OperatorOrder {
            order_id,
            order_display_id: order.display_id,
            status: order.status,
            total: Money::new(order.total, order.currency),
            checkout_id: order.checkout_id,
            campaign_id: order.campaign_id,
            merchant_id: order.merchant_id,
            created_at: order.created_at,
            payment: payment.map(|p| OperatorPayment {
                payment_id: p.payment_id,
                provider: p.provider,
                status: p.status,
                amount: Money::new(p.amount, p.currency),
                provider_ref: p.provider_ref,
                provider_destination: p.provider_destination,
                provider_final_at: p.provider_final_at,
                created_at: p.created_at,
            }),
            refunds: refunds
                .into_iter()
                .map(|r| OperatorRefund {
                    refund_id: r.refund_id,
                    payment_id: r.payment_id,
                    reason: r.reason,
                    amount: Money::new(r.amount, r.currency.clone()),
                    to_wallet: Money::new(r.to_wallet, r.currency),
                    ticket_ids: r.ticket_ids.0,
                    status: r.status,
                    provider_ref: r.provider_ref,
                    created_at: r.created_at,
                    updated_at: r.updated_at,
                })
                .collect(),
            order: view,
        }),
        "The order",
    )
}
