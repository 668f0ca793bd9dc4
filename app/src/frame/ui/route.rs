//! What a screen reads of its route.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use uuid::Uuid;

/// The route's parameter `name` (`merchant_id`, …), when it is a uuid: `None` makes the
/// screen's read find nothing.
pub fn id_param(name: &'static str) -> Memo<Option<Uuid>> {
    let params = use_params_map();
    Memo::new(move |_| params.with(|p| p.get(name).and_then(|id| id.parse().ok())))
}
