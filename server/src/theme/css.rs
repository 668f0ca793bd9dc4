//! A theme as the CSS the frame's server-rendered page carries in its `<style>`: the custom
//! properties of `style/main.css`, so the first paint is the partner's look and hydration
//! changes nothing.
//!
//! The theme sets four base colours; the frame uses more (a softer text, lines, tints, the
//! error and success colours). Those are derived here from the base, each checked against the
//! surfaces it is drawn on and replaced by the text colour where it would fall short, so a
//! theme that passes the operator API's checks gives a frame that passes them everywhere.

use std::{fmt::Write, sync::OnceLock};

use super::{
    colour::{contrast, Rgb},
    Base, ColorScheme, Theme, CONTROL_CONTRAST, TEXT_CONTRAST,
};

/// The values of one of `style/main.css`'s designed palettes that derivation starts from
/// (a unit test keeps them equal to the file's).
#[derive(Debug, Clone, Copy)]
pub struct Defaults {
    pub surface: Rgb,
    pub ink: Rgb,
    pub accent: Rgb,
    pub accent_ink: Rgb,
    pub danger: Rgb,
    pub good: Rgb,
    pub focus: Rgb,
}

const LIGHT: Defaults = Defaults {
    surface: Rgb([0xff, 0xff, 0xff]),
    ink: Rgb([0x1b, 0x1f, 0x24]),
    accent: Rgb([0x1f, 0x3a, 0x5f]),
    accent_ink: Rgb([0xff, 0xff, 0xff]),
    danger: Rgb([0xb9, 0x1c, 0x1c]),
    good: Rgb([0x06, 0x5f, 0x46]),
    focus: Rgb([0xb4, 0x53, 0x09]),
};

const DARK: Defaults = Defaults {
    surface: Rgb([0x16, 0x19, 0x1d]),
    ink: Rgb([0xe6, 0xe8, 0xeb]),
    accent: Rgb([0x8a, 0xb4, 0xf8]),
    accent_ink: Rgb([0x0b, 0x1b, 0x33]),
    danger: Rgb([0xff, 0x8f, 0x87]),
    good: Rgb([0x6e, 0xe7, 0xb7]),
    focus: Rgb([0xfb, 0xbf, 0x24]),
};

/// The light (`true`) or dark palette's defaults.
pub fn palette_defaults(light: bool) -> Defaults {
    if light {
        LIGHT
    } else {
        DARK
    }
}

/// The frame's stylesheet, whose designed palettes are written as `light-dark(light, dark)`.
const MAIN_CSS: &str = include_str!("../../../style/main.css");

/// `--name:#dark;` for every `light-dark()` colour of `style/main.css`: the designed dark
/// palette spelled out. A dark frame sets it outright rather than through `color-scheme`,
/// because Chromium inside an iframe resolves `light-dark()` to its light side even under
/// `color-scheme: dark` (seen with Chromium 156; the theme's browser test shows it).
fn designed_dark() -> &'static str {
    static DARK_CSS: OnceLock<String> = OnceLock::new();
    DARK_CSS.get_or_init(|| {
        MAIN_CSS
            .lines()
            .filter_map(|line| {
                let (name, pair) = line
                    .trim()
                    .strip_prefix("--")?
                    .split_once(": light-dark(")?;
                let (_, dark) = pair.strip_suffix(");")?.split_once(", ")?;
                Some(format!("--{name}:{dark};"))
            })
            .collect()
    })
}

/// `candidate` where it reaches `needed` against every one of `grounds`, else `fallback`.
fn readable(candidate: Rgb, grounds: &[Rgb], needed: f64, fallback: Rgb) -> Rgb {
    if grounds.iter().all(|g| contrast(candidate, *g) >= needed) {
        candidate
    } else {
        fallback
    }
}

/// The least of `ink` mixed into `surface` (of the `shares` tried, lightest first) that still
/// reaches `needed` against every one of `grounds`; `ink` itself when none does.
fn softened(ink: Rgb, surface: Rgb, shares: &[f64], grounds: &[Rgb], needed: f64) -> Rgb {
    shares
        .iter()
        .map(|share| ink.mix(surface, *share))
        .find(|colour| grounds.iter().all(|g| contrast(*colour, *g) >= needed))
        .unwrap_or(ink)
}

/// Every colour property of `style/main.css`, derived from a theme's base colours.
pub fn palette(base: Base, defaults: &Defaults) -> Vec<(&'static str, Rgb)> {
    let Base {
        accent,
        accent_text,
        background: surface,
        text: ink,
    } = base;
    let muted = ink.mix(surface, 0.06);
    let accent_soft = accent.mix(surface, 0.12);
    let grounds = [surface, muted, accent_soft];
    let danger = readable(defaults.danger, &[surface], TEXT_CONTRAST, ink);
    let danger_soft = danger.mix(surface, 0.12);
    let good = readable(defaults.good, &[surface], TEXT_CONTRAST, ink);
    let good_soft = good.mix(surface, 0.12);
    vec![
        ("surface", surface),
        ("ink", ink),
        ("accent", accent),
        ("accent-ink", accent_text),
        ("accent-soft", accent_soft),
        // Text in the accent colour (links, the menu, secondary buttons) on the surfaces.
        ("link", readable(accent, &grounds, TEXT_CONTRAST, ink)),
        (
            "ink-soft",
            softened(ink, surface, &[0.72, 0.8, 0.9], &grounds, TEXT_CONTRAST),
        ),
        ("muted", muted),
        (
            "line",
            softened(
                ink,
                surface,
                &[0.55, 0.65, 0.8],
                &[surface],
                CONTROL_CONTRAST,
            ),
        ),
        ("line-soft", ink.mix(surface, 0.2)),
        (
            "danger",
            readable(danger, &[danger_soft, muted], TEXT_CONTRAST, ink),
        ),
        ("danger-soft", danger_soft),
        (
            "good",
            readable(good, &[good_soft, muted], TEXT_CONTRAST, ink),
        ),
        ("good-soft", good_soft),
        (
            "focus",
            readable(defaults.focus, &[surface], CONTROL_CONTRAST, ink),
        ),
    ]
}

/// The CSS of a saved (so valid) theme: `color-scheme`, the radius, the font stack, the
/// designed dark palette where the frame is dark, and, when the theme sets colours, the whole
/// palette derived from them. `auto` keeps the designed dark palette for devices that prefer
/// dark, so its colours apply only when they do not.
pub fn css(theme: &Theme) -> String {
    // `html:root` outranks main.css's `:root` wherever the two end up in the page.
    let mut out = String::from("html:root{color-scheme:");
    out.push_str(match theme.color_scheme {
        ColorScheme::Light => "light",
        ColorScheme::Dark => "dark",
        ColorScheme::Auto => "light dark",
    });
    if let Some(radius) = theme.corner_radius {
        let _ = write!(out, ";--radius:{radius}px");
    }
    if let Some(stack) = &theme.font_stack {
        let _ = write!(out, ";--font:{stack}");
    }
    out.push('}');
    match theme.color_scheme {
        ColorScheme::Light => {}
        ColorScheme::Dark => {
            let _ = write!(out, "html:root{{{}}}", designed_dark());
        }
        ColorScheme::Auto => {
            let _ = write!(
                out,
                "@media (prefers-color-scheme:dark){{html:root{{color-scheme:dark;{}}}}}",
                designed_dark()
            );
        }
    }
    let base = theme.base().filter(|_| theme.sets_colours());
    if let Some(base) = base {
        let defaults = palette_defaults(theme.color_scheme != ColorScheme::Dark);
        let mut colours = String::new();
        for (name, colour) in palette(base, &defaults) {
            let _ = write!(colours, "--{name}:{};", colour.hex());
        }
        if theme.color_scheme == ColorScheme::Auto {
            let _ = write!(
                out,
                "@media not (prefers-color-scheme:dark){{html:root{{{colours}}}}}"
            );
        } else {
            let _ = write!(out, "html:root{{{colours}}}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(light, dark)` of `--name: light-dark(#l, #d);` in main.css.
    fn designed(name: &str) -> (Rgb, Rgb) {
        let prefix = format!("--{name}: light-dark(");
        let line = MAIN_CSS
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("--{name} in main.css"));
        let (light, dark) = line.trim_end_matches(");").split_once(", ").unwrap();
        (Rgb::parse(light).unwrap(), Rgb::parse(dark).unwrap())
    }

    #[test]
    fn the_defaults_are_main_css_palettes() {
        for (name, pick) in [
            (
                "surface",
                (|d: &Defaults| d.surface) as fn(&Defaults) -> Rgb,
            ),
            ("ink", |d| d.ink),
            ("accent", |d| d.accent),
            ("accent-ink", |d| d.accent_ink),
            ("danger", |d| d.danger),
            ("good", |d| d.good),
            ("focus", |d| d.focus),
        ] {
            assert_eq!(designed(name), (pick(&LIGHT), pick(&DARK)), "--{name}");
        }
    }

    /// Every pair the frame draws meets its contrast in `palette`'s output.
    fn assert_readable(colours: &[(&str, Rgb)]) {
        let get = |name: &str| colours.iter().find(|(n, _)| *n == name).unwrap().1;
        let text_pairs = [
            ("ink", "surface"),
            ("ink", "muted"),
            ("ink", "accent-soft"),
            ("ink-soft", "surface"),
            ("ink-soft", "muted"),
            ("link", "surface"),
            ("link", "muted"),
            ("accent-ink", "accent"),
            ("danger", "surface"),
            ("danger", "danger-soft"),
            ("good", "surface"),
            ("good", "good-soft"),
        ];
        for (fg, bg) in text_pairs {
            let ratio = contrast(get(fg), get(bg));
            assert!(ratio >= TEXT_CONTRAST, "--{fg} on --{bg}: {ratio:.2}");
        }
        for (fg, bg) in [
            ("line", "surface"),
            ("focus", "surface"),
            ("accent", "surface"),
        ] {
            let ratio = contrast(get(fg), get(bg));
            assert!(ratio >= CONTROL_CONTRAST, "--{fg} on --{bg}: {ratio:.2}");
        }
    }

    #[test]
    fn the_designed_palettes_and_derived_ones_are_readable() {
        for light in [true, false] {
            let d = palette_defaults(light);
            let base = Base {
                accent: d.accent,
                accent_text: d.accent_ink,
                background: d.surface,
                text: d.ink,
            };
            assert_readable(&palette(base, &d));
        }
        // A brand orange that reaches 3:1 as a control but not 4.5:1 as text: links fall back
        // to the text colour, buttons keep the orange.
        let orange = Base {
            accent: Rgb::parse("#d9480f").unwrap(),
            accent_text: Rgb::parse("#000000").unwrap(),
            background: Rgb::parse("#fffdf8").unwrap(),
            text: Rgb::parse("#222222").unwrap(),
        };
        let colours = palette(orange, &LIGHT);
        assert_readable(&colours);
        assert_eq!(colours[5], ("link", orange.text));
        // A dark brand page.
        let night = Base {
            accent: Rgb::parse("#ffb454").unwrap(),
            accent_text: Rgb::parse("#1a1000").unwrap(),
            background: Rgb::parse("#101418").unwrap(),
            text: Rgb::parse("#f0f0f0").unwrap(),
        };
        assert_readable(&palette(night, &DARK));
    }

    #[test]
    fn the_css_sets_the_scheme_the_shape_and_the_palette() {
        let theme = Theme {
            accent: Some("#0b5cad".into()),
            corner_radius: Some(12),
            font_stack: Some("\"Source Sans 3\", Arial, sans-serif".into()),
            ..Theme::default()
        };
        let light = css(&theme);
        assert!(
            light.starts_with(
                "html:root{color-scheme:light;--radius:12px;--font:\"Source Sans 3\", Arial, sans-serif}html:root{--surface:#ffffff;--ink:#1b1f24;--accent:#0b5cad;"
            ),
            "{light}"
        );
        let auto = css(&Theme {
            color_scheme: ColorScheme::Auto,
            ..theme.clone()
        });
        assert!(
            auto.starts_with("html:root{color-scheme:light dark;"),
            "{auto}"
        );
        assert!(
            auto.contains("@media not (prefers-color-scheme:dark){html:root{--surface:#ffffff;")
        );
        assert!(
            auto.contains(
                "@media (prefers-color-scheme:dark){html:root{color-scheme:dark;--ink:#e6e8eb;"
            ),
            "a dark device gets the designed dark palette outright: {auto}"
        );
        let dark_only = css(&Theme {
            color_scheme: ColorScheme::Dark,
            ..Theme::default()
        });
        assert_eq!(
            dark_only,
            format!(
                "html:root{{color-scheme:dark}}html:root{{{}}}",
                designed_dark()
            ),
            "the designed dark palette"
        );
        // Every light-dark() colour of main.css, by its dark value.
        assert_eq!(
            designed_dark().matches("--").count(),
            14,
            "{}",
            designed_dark()
        );
        assert!(designed_dark().contains("--surface:#16191d;--muted:#22262c;"));
        for text in [light, auto] {
            assert!(!text.contains('<') && !text.contains('\\'), "{text}");
        }
    }
}
