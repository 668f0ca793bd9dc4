//! A deep link's choice made on the product screen: the linked day and entry time are chosen
//! only when they can still be bought (the calendar and the times are read for them), else the
//! customer is told and chooses again.

use chrono::NaiveDate;
use leptos::prelude::*;

use super::choice::LinkedChoice;
use crate::{
    frame::api::Api,
    i18n::{td_string, Locale},
    wire::{Product, TimeslotEntry, TimeslotQuery},
};

/// Makes a deep link's choice on the product screen: the linked day and entry time only when
/// they can still be bought, else the customer is told and chooses again.
pub struct FollowLink {
    pub api: Api,
    pub chosen: Product,
    pub date: RwSignal<Option<NaiveDate>>,
    pub slot: RwSignal<Option<TimeslotEntry>>,
    pub quantity: Signal<u32>,
    pub message: RwSignal<Option<String>>,
    pub locale: Signal<Locale>,
}

impl FollowLink {
    /// Returns whether the whole choice is made and may be reserved at once.
    pub async fn run(&self, link: &LinkedChoice) -> bool {
        let tell = move |unavailable: bool| {
            let locale = self.locale.get_untracked();
            let text = if unavailable {
                td_string!(locale, product.link_unavailable)
            } else {
                td_string!(locale, product.link_flawed)
            };
            self.message.set(Some(text.to_owned()));
        };
        if link.flawed {
            tell(false);
        }
        let Some(day) = link.date else {
            return link.complete(&self.chosen);
        };
        // A failed read leaves the choice as linked: the calendar and the times show the error.
        let Ok(days) = self.api.calendar(self.chosen.id, day, day).await else {
            return false;
        };
        if !days.iter().any(|d| d.date == day && d.available) {
            self.date.set(None);
            tell(true);
            return false;
        }
        if link.time.is_some() {
            let query = TimeslotQuery {
                product_id: self.chosen.id,
                date: day,
                quantity: Some(self.quantity.get_untracked().max(1)),
            };
            let Ok(slots) = self.api.timeslots(&query).await else {
                return false;
            };
            match link.slot(&slots) {
                Some(entry) => self.slot.set(Some(entry.clone())),
                None => {
                    tell(true);
                    return false;
                }
            }
        }
        link.complete(&self.chosen)
    }
}
