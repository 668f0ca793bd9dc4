use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The kinds of event the service emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// A reservation was placed.
    CheckoutStarted,
    /// A checkout was confirmed and its fulfilment registered.
    CheckoutFulfillmentRegistered,
    /// An unconfirmed reservation ran out and released its capacity.
    CheckoutExpired,
    OrderPaid,
    OrderCancelled,
    /// Money went back to the customer for a payment (a payment that succeeded after its
    /// order ended).
    PaymentRefunded,
    /// Tickets of a paid order were cancelled after the sale (some or all).
    TicketsCancelled,
    /// A paid order's visit moved to another day or slot.
    OrderRebooked,
    /// The payment provider gave a refund of tickets back.
    RefundSucceeded,
    /// The payment provider could not give a refund of tickets back.
    RefundFailed,
    /// A gate let a ticket's holder in (online, or uploaded from offline).
    TicketRedeemed,
    /// A gate took a mistaken entry back: the ticket is valid again.
    RedemptionUndone,
    /// A second entry of a used ticket, uploaded from an offline gate: kept, never dropped.
    RedemptionConflict,
}

impl EventType {
    /// Every event type, for the documentation check (docs/events.md).
    pub const ALL: [EventType; 13] = [
        EventType::CheckoutStarted,
        EventType::CheckoutFulfillmentRegistered,
        EventType::CheckoutExpired,
        EventType::OrderPaid,
        EventType::OrderCancelled,
        EventType::PaymentRefunded,
        EventType::TicketsCancelled,
        EventType::OrderRebooked,
        EventType::RefundSucceeded,
        EventType::RefundFailed,
        EventType::TicketRedeemed,
        EventType::RedemptionUndone,
        EventType::RedemptionConflict,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::CheckoutStarted => "checkouts.CheckoutStarted",
            EventType::CheckoutFulfillmentRegistered => "checkouts.CheckoutFulfillmentRegistered",
            EventType::CheckoutExpired => "checkouts.CheckoutExpired",
            EventType::OrderPaid => "orders.OrderPaid",
            EventType::OrderCancelled => "orders.OrderCancelled",
            EventType::PaymentRefunded => "orders.PaymentRefunded",
            EventType::TicketsCancelled => "orders.TicketsCancelled",
            EventType::OrderRebooked => "orders.OrderRebooked",
            EventType::RefundSucceeded => "orders.RefundSucceeded",
            EventType::RefundFailed => "orders.RefundFailed",
            EventType::TicketRedeemed => "tickets.TicketRedeemed",
            EventType::RedemptionUndone => "tickets.RedemptionUndone",
            EventType::RedemptionConflict => "tickets.RedemptionConflict",
        }
    }
}

/// An event to write to the outbox with the change it reports.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub event_type: EventType,
    /// What the event is about, e.g. `checkouts/{id}`.
    pub subject: String,
    pub campaign_id: Uuid,
    /// The one partner told of it (feed and webhooks): the client whose session caused it, or
    /// for a guest the client its return URL is attributed to; `None`: no partner is told.
    pub partner_client_id: Option<Uuid>,
    pub data: serde_json::Value,
}

/// A CloudEvents 1.0 event in JSON form, as delivered and listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CloudEvent {
    pub specversion: String,
    pub id: Uuid,
    pub source: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub time: DateTime<Utc>,
    pub subject: String,
    pub datacontenttype: String,
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

impl CloudEvent {
    pub fn new(
        id: Uuid,
        source: &str,
        event_type: &str,
        time: DateTime<Utc>,
        subject: &str,
        data: serde_json::Value,
    ) -> Self {
        Self {
            specversion: "1.0".to_owned(),
            id,
            source: source.to_owned(),
            event_type: event_type.to_owned(),
            time,
            subject: subject.to_owned(),
            datacontenttype: "application/json".to_owned(),
            data,
        }
    }
}
