//! A picture of a merchant or product: its box is reserved before it loads (the stylesheet
//! gives it an aspect ratio, `width` and `height` the intrinsic one), it loads only when near the
//! viewport, and the browser picks the rendition the layout needs from `srcset` and `sizes`.
//!
//! A plain function, not a component: a component's setup code in each screen's chunk costs
//! the first load more than the few lines it would share (docs/benchmarks.md, "The frame's
//! size").

use leptos::prelude::*;

use crate::wire::{cover, Image};

/// The owner's cover (`wire::cover`) as an `<img>` of `class`, `sizes` saying how wide the
/// layout shows it; nothing when there is none.
pub fn cover_picture(images: &[Image], class: &'static str, sizes: &'static str) -> Option<AnyView> {
    let image = cover(images)?;
    Some(
        view! {
            <img
                class=class
                src=image.url.clone()
                srcset=image.srcset.clone()
                sizes=sizes
                width=image.width
                height=image.height
                alt=image.alt.clone()
                loading="lazy"
                decoding="async"
            />
        }
        .into_any(),
    )
}
