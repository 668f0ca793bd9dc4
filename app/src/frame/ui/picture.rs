//! A picture of a merchant or product: its box is reserved before it loads (the stylesheet
//! gives it an aspect ratio, `width` and `height` the intrinsic one), it loads only when near the
//! viewport, and the browser picks the rendition the layout needs from `srcset` and `sizes`.
//!
//! Written as one escaped `<img>` in a `display: contents` wrapper rather than as a `view!`
//! element: an element with nine attributes costs the main WASM about 2.5 KB (brotli) of
//! per-attribute view code, the frame's first screen has no room for it (docs/benchmarks.md,
//! "The frame's size"), and the picture never changes once shown, so there is nothing to
//! update. A plain function, not a component, for the same reason.

use leptos::prelude::*;

use crate::wire::{cover, Image};

/// The owner's cover (`wire::cover`) as an `<img>` of `class`, `sizes` saying how wide the
/// layout shows it; nothing when there is none.
pub fn cover_picture(
    images: &[Image],
    class: &'static str,
    sizes: &'static str,
) -> Option<impl IntoView> {
    let html = img_html(cover(images)?, class, sizes);
    Some(view! { <span class="picture" inner_html=html></span> })
}

/// `image` as an `<img>` element's markup.
fn img_html(image: &Image, class: &str, sizes: &str) -> String {
    format!(
        r#"<img class="{class}" src="{}" srcset="{}" sizes="{sizes}" width="{}" height="{}" alt="{}" loading="lazy" decoding="async">"#,
        escaped(&image.url),
        escaped(&image.srcset),
        image.width,
        image.height,
        escaped(&image.alt),
    )
}

/// `text` safe inside a double-quoted HTML attribute.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ImageRole;

    #[test]
    fn the_picture_is_one_img_with_every_attribute_escaped() {
        let image = Image {
            url: "https://x.example/i/1/640.webp".into(),
            width: 640,
            height: 360,
            alt: r#"The "Lion" <gate> & more"#.into(),
            role: ImageRole::Cover,
            srcset: "https://x.example/i/1/320.webp 320w".into(),
        };
        assert_eq!(
            img_html(&image, "hero", "100vw"),
            r#"<img class="hero" src="https://x.example/i/1/640.webp" srcset="https://x.example/i/1/320.webp 320w" sizes="100vw" width="640" height="360" alt="The &quot;Lion&quot; &lt;gate&gt; &amp; more" loading="lazy" decoding="async">"#
        );
    }
}
