//! The steps of the purchase funnel more than one screen tells the host's analytics
//! (`frame::analytics`): a basket held, and a step the server refused.

use crate::{
    frame::{
        analytics::{Analytics, Basket},
        api::ApiError,
        host,
    },
    wire::Checkout,
};

/// Tells the host's analytics that a basket is held and its checkout begins.
pub fn reserved(checkout: &Checkout) {
    let basket = Basket::of_checkout(checkout);
    host::track(Analytics::AddToCart(basket.clone()));
    host::track(Analytics::BeginCheckout(basket));
}

/// Tells the host's analytics that the server refused a step of the purchase.
pub fn refused(error: &ApiError) {
    if let Some(event) = refusal(error) {
        host::track(event);
    }
}

/// The refusal of a purchase step, by its problem type alone.
fn refusal(error: &ApiError) -> Option<Analytics> {
    let kind = match error {
        // The session ended: the frame says so and the host hears `session-expired`.
        ApiError::Expired => return None,
        ApiError::Problem(problem) => problem.name().to_owned(),
        ApiError::Network => "network".to_owned(),
    };
    Some(Analytics::CheckoutError { kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_only_its_type() {
        assert_eq!(refusal(&ApiError::Expired), None);
        assert_eq!(
            refusal(&ApiError::Network),
            Some(Analytics::CheckoutError {
                kind: "network".into()
            })
        );
    }
}
