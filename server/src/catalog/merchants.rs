//! Merchants as partners see them: localized, and only those in the campaign.

use app::wire::{self, GeoPoint, Locale, MerchantAddress};
use uuid::Uuid;

use crate::{
    error::{Error, ProblemType, Result},
    store::{Merchant, Store},
};

/// The wire form of `merchant` in `locale`.
pub fn to_wire(merchant: &Merchant, locale: Locale) -> wire::Merchant {
    let text = merchant.localized(locale);
    wire::Merchant {
        id: merchant.merchant_id,
        name: text.name.to_owned(),
        description: text.description.to_owned(),
        category: merchant.category.clone(),
        address: MerchantAddress {
            street: merchant.address.street.clone(),
            postal_code: merchant.address.postal_code.clone(),
            city: merchant.address.city.clone(),
            country: merchant.address.country.clone(),
        },
        location: GeoPoint {
            latitude: merchant.location.latitude,
            longitude: merchant.location.longitude,
        },
        timezone: merchant.timezone.clone(),
        currency: merchant.currency.clone(),
        image_url: merchant.image_url.clone(),
        website: merchant.website.clone(),
    }
}

/// A merchant of the campaign; 404 `merchant-not-found` when there is none or it has no
/// product in the campaign (the two are not told apart).
pub async fn merchant_in_campaign(
    store: &dyn Store,
    merchant_id: Uuid,
    campaign_id: Uuid,
) -> Result<Merchant> {
    let not_found = || {
        Error::new(
            ProblemType::MerchantNotFound,
            format!("Merchant {merchant_id} is not in this campaign."),
        )
    };
    if !store.merchant_in_campaign(merchant_id, campaign_id).await? {
        return Err(not_found());
    }
    store.merchant(merchant_id).await?.ok_or_else(not_found)
}
