//! Merchants as partners see them: localized, and only those in the campaign.

use std::sync::Arc;

use app::wire::{self, GeoPoint, Locale, MerchantAddress};
use uuid::Uuid;

use super::{reads::MerchantPageAnswer, Catalog};
use crate::{
    error::{Error, ProblemType, Result},
    store::{Merchant, Store},
};

/// The wire form of `merchant` in `locale`, its pictures' URLs under `base`.
pub fn to_wire(merchant: &Merchant, locale: Locale, base: &str) -> wire::Merchant {
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
        images: crate::images::to_wire(&merchant.images, locale, base),
    }
}

/// The page of `campaign_id`'s merchants (those with a product in it, in key order) after
/// `after`, at most `limit`, written in `locale`; from the node's copy when it has one.
pub async fn merchant_page(
    (catalog, store): (&Catalog, &dyn Store),
    campaign_id: Uuid,
    after: Option<Uuid>,
    limit: u32,
    locale: Locale,
) -> Result<Arc<MerchantPageAnswer>> {
    let render = || async {
        let mut merchants = store
            .list_merchants(Some(campaign_id), after, limit + 1)
            .await?;
        let more = merchants.len() > limit as usize;
        merchants.truncate(limit as usize);
        let items: Vec<wire::Merchant> = merchants
            .iter()
            .map(|m| to_wire(m, locale, &catalog.base))
            .collect();
        Ok(Arc::new(MerchantPageAnswer {
            items_json: serde_json::to_vec(&items)
                .map_err(anyhow::Error::from)?
                .into(),
            item_count: items.len(),
            last_before_more: more.then(|| items.last().map(|m| m.id)).flatten(),
        }))
    };
    catalog
        .merchant_page_answer((campaign_id, after, limit), locale, render)
        .await
}

/// A merchant of the campaign; 404 `merchant-not-found` when there is none or it has no
/// product in the campaign (the two are not told apart). From the node's copies.
pub async fn merchant_in_campaign(
    (catalog, store): (&Catalog, &dyn Store),
    merchant_id: Uuid,
    campaign_id: Uuid,
) -> Result<Merchant> {
    let not_found = || {
        Error::new(
            ProblemType::MerchantNotFound,
            format!("Merchant {merchant_id} is not in this campaign."),
        )
    };
    if !catalog
        .merchant_in_campaign(store, merchant_id, campaign_id)
        .await?
    {
        return Err(not_found());
    }
    let merchant = catalog.definitions.merchant(store, merchant_id).await?;
    merchant.ok_or_else(not_found)
}
