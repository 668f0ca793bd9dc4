//! The states of a checkout, an order, a payment and a ticket, and every change each may make.
//!
//! These are the only spellings of the states in Rust: records decode them from the database
//! (`#[sqlx(try_from = "String")]`), the API serialises them with the names below, and the
//! store's transitions take a [`Transition`], which only the constants here can make, so a
//! change the lifecycle does not have does not compile. docs/api-checkout.md draws the diagram.

use serde::{Deserialize, Serialize};

/// A change of state a lifecycle allows, from one state to another. Made only by the
/// constants on each state enum: the set of allowed transitions is those constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition<S> {
    from: S,
    to: S,
}

impl<S: Copy> Transition<S> {
    const fn new(from: S, to: S) -> Self {
        Self { from, to }
    }

    /// The state the record must be in for the change to happen.
    pub fn from(self) -> S {
        self.from
    }

    /// The state the record is in afterwards.
    pub fn to(self) -> S {
        self.to
    }
}

/// A state name that is none of its enum's (a database row written by something else).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownState {
    pub kind: &'static str,
    pub name: String,
}

impl std::fmt::Display for UnknownState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} is not a {} state", self.name, self.kind)
    }
}

impl std::error::Error for UnknownState {}

/// An enum of states with one wire name per variant: `as_str`, `Display`, `FromStr` and
/// `TryFrom<String>` (for sqlx) all read the same table.
macro_rules! states {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $wire:literal,)+ }) => {
        $(#[$doc])*
        // The names are the variants in SCREAMING_SNAKE_CASE, as `as_str` spells them (a unit
        // test holds the two together); `rename_all` rather than a `rename` per variant, because
        // the OpenAPI derive reads only the former from a macro's tokens.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
        #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
        pub enum $name {
            $($variant,)+
        }

        impl $name {
            /// Every state, in lifecycle order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The name the API and the database use.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownState;

            fn from_str(name: &str) -> Result<Self, UnknownState> {
                match name {
                    $($wire => Ok($name::$variant),)+
                    _ => Err(UnknownState { kind: stringify!($name), name: name.to_owned() }),
                }
            }
        }

        impl TryFrom<String> for $name {
            type Error = UnknownState;

            fn try_from(name: String) -> Result<Self, UnknownState> {
                name.parse()
            }
        }
    };
}

states! {
    /// A checkout: its places are held while RESERVED (until `expires_at`) and CONFIRMED (for
    /// the payment window); PAID, EXPIRED and CANCELLED are final.
    CheckoutStatus {
        Reserved => "RESERVED",
        Confirmed => "CONFIRMED",
        Paid => "PAID",
        Expired => "EXPIRED",
        Cancelled => "CANCELLED",
    }
}

impl CheckoutStatus {
    /// The customer's details are in: the order and its payment exist.
    pub const CONFIRM: Transition<Self> = Transition::new(Self::Reserved, Self::Confirmed);
    /// The hold ran out, or the customer gave it up: the places go back.
    pub const EXPIRE: Transition<Self> = Transition::new(Self::Reserved, Self::Expired);
    /// Its order's payment succeeded.
    pub const PAY: Transition<Self> = Transition::new(Self::Confirmed, Self::Paid);
    /// Its order's payment failed or ran out: the places go back.
    pub const CANCEL: Transition<Self> = Transition::new(Self::Confirmed, Self::Cancelled);

    /// Whether the checkout still holds places a customer can go on with.
    pub fn is_over(self) -> bool {
        matches!(self, Self::Paid | Self::Expired | Self::Cancelled)
    }
}

states! {
    /// An order: PENDING_PAYMENT until its payment settles, then PAID (tickets issued) and
    /// FULFILLED (the provider confirmed), or CANCELLED.
    OrderStatus {
        PendingPayment => "PENDING_PAYMENT",
        Paid => "PAID",
        Fulfilled => "FULFILLED",
        Cancelled => "CANCELLED",
    }
}

impl OrderStatus {
    pub const PAY: Transition<Self> = Transition::new(Self::PendingPayment, Self::Paid);
    pub const CANCEL: Transition<Self> = Transition::new(Self::PendingPayment, Self::Cancelled);
    pub const FULFIL: Transition<Self> = Transition::new(Self::Paid, Self::Fulfilled);

    /// Paid for, whether or not the provider has confirmed yet: its tickets are valid.
    pub fn is_paid(self) -> bool {
        matches!(self, Self::Paid | Self::Fulfilled)
    }
}

states! {
    /// A payment: OPEN until the provider reports its outcome.
    PaymentStatus {
        Open => "OPEN",
        Paid => "PAID",
        Declined => "DECLINED",
        Cancelled => "CANCELLED",
        Expired => "EXPIRED",
    }
}

impl PaymentStatus {
    pub const PAY: Transition<Self> = Transition::new(Self::Open, Self::Paid);
    pub const DECLINE: Transition<Self> = Transition::new(Self::Open, Self::Declined);
    pub const CANCEL: Transition<Self> = Transition::new(Self::Open, Self::Cancelled);
    pub const EXPIRE: Transition<Self> = Transition::new(Self::Open, Self::Expired);
}

states! {
    /// A ticket: issued VALID with its paid order.
    TicketStatus {
        Valid => "VALID",
        Used => "USED",
        Cancelled => "CANCELLED",
    }
}

states! {
    /// A scan a gate made and the service kept (docs/gate.md): an entry (REDEEMED, UNDONE when
    /// the gate took it back), a second entry of a used ticket uploaded from offline
    /// (CONFLICT: someone went in on it), or an offline scan refused on upload (REFUSED).
    RedemptionStatus {
        Redeemed => "REDEEMED",
        Undone => "UNDONE",
        Conflict => "CONFLICT",
        Refused => "REFUSED",
    }
}

states! {
    /// What moved the customer's loyalty points.
    LoyaltyKind {
        Earn => "EARN",
        Redeem => "REDEEM",
        Adjust => "ADJUST",
    }
}

states! {
    /// A mail in the outbox (a ticket mail, a magic link): PENDING until sent, or FAILED once
    /// its attempts are used up.
    MailStatus {
        Pending => "PENDING",
        Sent => "SENT",
        Failed => "FAILED",
    }
}

states! {
    /// What a mail of the outbox is; each kind has its renderer (`server/src/mail/render.rs`),
    /// so a new kind is a variant here and its arm there. The three ticket kinds render the
    /// same mail and differ in why it was written.
    MailKind {
        // A merchant's onboarding magic link, written whole (its code is kept only hashed).
        MagicLink => "MAGIC_LINK",
        // An order's tickets, written with its payment: one per order.
        Tickets => "TICKETS",
        // The tickets again, as the customer asked (a few an hour).
        TicketsResend => "TICKETS_RESEND",
        // The tickets again, by an operator, with a new ticket page key.
        TicketsOperator => "TICKETS_OPERATOR",
        // Some or all tickets cancelled after the sale, with the refund (one per change).
        Cancellation => "CANCELLATION",
        // The acknowledgement of a withdrawal from the contract (one per change).
        Withdrawal => "WITHDRAWAL",
        // The visit moved to another day: the new tickets (one per change).
        Rebooking => "REBOOKING",
    }
}

states! {
    /// A webhook delivery: PENDING until the partner answers 2xx (DELIVERED), or FAILED once
    /// its attempts are used up.
    DeliveryStatus {
        Pending => "PENDING",
        Delivered => "DELIVERED",
        Failed => "FAILED",
    }
}

states! {
    /// A merchant's account at the payment provider: PENDING_KYC until the provider has
    /// verified the merchant.
    MerchantAccountStatus {
        PendingKyc => "PENDING_KYC",
        Verified => "VERIFIED",
    }
}

impl MerchantAccountStatus {
    pub const VERIFY: Transition<Self> = Transition::new(Self::PendingKyc, Self::Verified);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each enum's serde name is its `as_str`, read back by both.
    fn same_names<S>(all: &[S])
    where
        S: Copy + std::fmt::Debug + PartialEq + Serialize + serde::de::DeserializeOwned,
        S: std::str::FromStr<Err = UnknownState> + std::fmt::Display,
    {
        for state in all {
            let json = serde_json::to_string(state).unwrap();
            assert_eq!(json, format!("\"{state}\""));
            assert_eq!(serde_json::from_str::<S>(&json).unwrap(), *state);
            assert_eq!(state.to_string().parse::<S>(), Ok(*state));
        }
    }

    #[test]
    fn serde_and_as_str_spell_every_state_alike() {
        same_names(CheckoutStatus::ALL);
        same_names(OrderStatus::ALL);
        same_names(PaymentStatus::ALL);
        same_names(TicketStatus::ALL);
        same_names(RedemptionStatus::ALL);
        same_names(LoyaltyKind::ALL);
        same_names(MailStatus::ALL);
        same_names(MailKind::ALL);
        same_names(DeliveryStatus::ALL);
        same_names(MerchantAccountStatus::ALL);
    }

    #[test]
    fn every_state_reads_back_from_its_name() {
        for state in CheckoutStatus::ALL {
            assert_eq!(state.as_str().parse::<CheckoutStatus>(), Ok(*state));
            let json = serde_json::to_string(state).unwrap();
            assert_eq!(json, format!("\"{state}\""));
        }
        for state in OrderStatus::ALL {
            assert_eq!(OrderStatus::try_from(state.to_string()), Ok(*state));
        }
        for state in PaymentStatus::ALL {
            assert_eq!(state.as_str().parse::<PaymentStatus>(), Ok(*state));
        }
        assert_eq!(
            "PENDING".parse::<OrderStatus>(),
            Err(UnknownState {
                kind: "OrderStatus",
                name: "PENDING".into()
            })
        );
    }

    #[test]
    fn a_final_checkout_state_is_never_left() {
        let transitions = [
            CheckoutStatus::CONFIRM,
            CheckoutStatus::EXPIRE,
            CheckoutStatus::PAY,
            CheckoutStatus::CANCEL,
        ];
        for t in transitions {
            assert!(!t.from().is_over(), "{t:?} leaves a final state");
            assert_ne!(t.from(), t.to());
        }
    }
}
