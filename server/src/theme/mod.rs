//! A partner's look for the hosted frame: colours, corner radius, font stack and colour
//! scheme, set per partner client through the operator API (`theme` of `/admin/v1/clients`),
//! checked when saved and written into the frame's server-rendered page as CSS custom
//! properties (`css`), so the first paint already has it.
//!
//! Rules (docs/operator-api.md): colours are `#rrggbb`; text on the background and the accent's
//! text on the accent reach 4.5:1, the accent against the background (a button's edge) 3:1,
//! per WCAG 2.x relative luminance (`colour`); a light scheme has a background lighter than its
//! text, a dark one darker; the font stack is a list of family names that cannot leave its CSS
//! declaration; the radius is 0–24 px.

pub mod colour;
pub mod css;

use serde::{Deserialize, Serialize};

use crate::validate::Checks;
use colour::{contrast, Rgb};

/// Text pairs (text on background, the accent's text on the accent) reach this contrast.
pub const TEXT_CONTRAST: f64 = 4.5;
/// Controls (a button or a chosen day against the background) reach this contrast.
pub const CONTROL_CONTRAST: f64 = 3.0;
/// The largest corner radius, in CSS pixels.
pub const MAX_RADIUS: u32 = 24;
/// The longest font stack, in characters.
pub const MAX_FONT_STACK: usize = 200;
const MAX_FONT_FAMILIES: usize = 10;

/// Which of the frame's two designed palettes the theme starts from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ColorScheme {
    /// Dark text on a light background (the frame's default).
    #[default]
    Light,
    /// Light text on a dark background.
    Dark,
    /// Follows the customer's device (`prefers-color-scheme`): the theme's colours when it
    /// prefers light, the frame's designed dark palette when it prefers dark.
    Auto,
}

/// A partner's look. Every field may be left out: the frame's own value for the scheme is
/// used in its place (and in the contrast checks).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Theme {
    /// Buttons, links and the chosen day, `#rrggbb`.
    #[schema(example = "#0b5cad", pattern = "^#[0-9A-Fa-f]{6}$")]
    pub accent: Option<String>,
    /// Text on the accent (a primary button's label), `#rrggbb`.
    #[schema(example = "#ffffff", pattern = "^#[0-9A-Fa-f]{6}$")]
    pub accent_text: Option<String>,
    /// The page, `#rrggbb`.
    #[schema(example = "#fbfaf7", pattern = "^#[0-9A-Fa-f]{6}$")]
    pub background: Option<String>,
    /// Body text, `#rrggbb`.
    #[schema(example = "#1d1d1f", pattern = "^#[0-9A-Fa-f]{6}$")]
    pub text: Option<String>,
    /// Corner radius of buttons, fields and cards in CSS pixels, 0–24.
    #[schema(example = 12, maximum = 24)]
    pub corner_radius: Option<u32>,
    /// A CSS font stack: family names separated by commas, a name with spaces may be quoted;
    /// letters, digits, spaces and `- _ .` only (at most 200 characters, 10 families).
    #[schema(
        example = "\"Source Sans 3\", Arial, sans-serif",
        max_length = 200,
        pattern = r#"^[A-Za-z0-9 ,"'._-]*$"#
    )]
    pub font_stack: Option<String>,
    #[serde(default)]
    pub color_scheme: ColorScheme,
}

/// A palette's four base colours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Base {
    pub accent: Rgb,
    pub accent_text: Rgb,
    pub background: Rgb,
    pub text: Rgb,
}

impl Theme {
    /// Trims the text fields and writes colours lower-case; blank fields count as absent.
    pub fn normalize(&mut self) {
        for field in [
            &mut self.accent,
            &mut self.accent_text,
            &mut self.background,
            &mut self.text,
            &mut self.font_stack,
        ] {
            *field = field
                .take()
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty());
        }
        for colour in [
            &mut self.accent,
            &mut self.accent_text,
            &mut self.background,
            &mut self.text,
        ]
        .into_iter()
        .flatten()
        {
            colour.make_ascii_lowercase();
        }
    }

    /// Whether the theme sets any colour (else the frame's palettes stay as they are).
    pub fn sets_colours(&self) -> bool {
        self.accent.is_some()
            || self.accent_text.is_some()
            || self.background.is_some()
            || self.text.is_some()
    }

    /// The base colours: the theme's, and the scheme's own where it sets none (the light
    /// palette for `auto`, whose colours are its light look). `None` if a colour is invalid.
    pub fn base(&self) -> Option<Base> {
        let defaults = css::palette_defaults(self.color_scheme != ColorScheme::Dark);
        let pick = |given: &Option<String>, default: Rgb| match given {
            Some(hex) => Rgb::parse(hex),
            None => Some(default),
        };
        Some(Base {
            accent: pick(&self.accent, defaults.accent)?,
            accent_text: pick(&self.accent_text, defaults.accent_ink)?,
            background: pick(&self.background, defaults.surface)?,
            text: pick(&self.text, defaults.ink)?,
        })
    }

    /// Records every rule the theme breaks, naming `{prefix}.{field}`.
    pub fn check(&self, prefix: &str, checks: &mut Checks) {
        let name = |field: &str| format!("{prefix}.{field}");
        let colours = [
            ("accent", &self.accent),
            ("accent_text", &self.accent_text),
            ("background", &self.background),
            ("text", &self.text),
        ];
        let mut all_parse = true;
        for (field, value) in colours {
            if let Some(value) = value {
                let ok = Rgb::parse(value).is_some();
                all_parse &= ok;
                checks.check(
                    ok,
                    &name(field),
                    "hex_colour",
                    format!("{field} must be a colour written #rrggbb"),
                );
            }
        }
        if let Some(radius) = self.corner_radius {
            checks.check(
                radius <= MAX_RADIUS,
                &name("corner_radius"),
                "range",
                format!("corner_radius must be 0 to {MAX_RADIUS} (CSS pixels)"),
            );
        }
        if let Some(stack) = &self.font_stack {
            if let Err(message) = font_stack_problem(stack) {
                checks.fail(&name("font_stack"), "font_stack", message);
            }
        }
        let Some(base) = self.base().filter(|_| all_parse) else {
            return;
        };
        // Each pair names the field the operator set, the foreground when both are set.
        let blame = |fg: (&str, &Option<String>), bg: (&str, &Option<String>)| {
            name(if fg.1.is_some() || bg.1.is_none() {
                fg.0
            } else {
                bg.0
            })
        };
        let (accent, accent_text, background, text) = (
            ("accent", &self.accent),
            ("accent_text", &self.accent_text),
            ("background", &self.background),
            ("text", &self.text),
        );
        let pairs = [
            (text, background, base.text, base.background, TEXT_CONTRAST),
            (
                accent_text,
                accent,
                base.accent_text,
                base.accent,
                TEXT_CONTRAST,
            ),
            (
                accent,
                background,
                base.accent,
                base.background,
                CONTROL_CONTRAST,
            ),
        ];
        for (fg, bg, fg_colour, bg_colour, needed) in pairs {
            let ratio = contrast(fg_colour, bg_colour);
            checks.check(
                ratio >= needed,
                &blame(fg, bg),
                "contrast",
                format!(
                    "{} on {} has a contrast of {:.2}:1; at least {needed}:1 is needed",
                    fg.0,
                    bg.0,
                    (ratio * 100.0).floor() / 100.0
                ),
            );
        }
        let background_is_lighter = base.background.luminance() > base.text.luminance();
        let dark = self.color_scheme == ColorScheme::Dark;
        checks.check(
            background_is_lighter != dark,
            &blame(background, text),
            "color_scheme",
            if dark {
                "a dark color_scheme needs a background darker than its text"
            } else {
                "a light or auto color_scheme needs a background lighter than its text"
            },
        );
    }
}

/// Why `stack` is not a font stack the frame writes into its CSS, if it is not: comma-separated
/// family names, each either words of `A–Z a–z 0–9 - _` or a name in matching quotes that
/// also allows spaces and `.`. Nothing else (no `;`, braces, backslashes, `<`, `/`, `(`) can
/// appear, so the value cannot end its declaration or the `<style>` element.
pub fn font_stack_problem(stack: &str) -> Result<(), String> {
    if stack.chars().count() > MAX_FONT_STACK {
        return Err(format!(
            "font_stack must be at most {MAX_FONT_STACK} characters"
        ));
    }
    let families: Vec<&str> = stack.split(',').map(str::trim).collect();
    if families.len() > MAX_FONT_FAMILIES {
        return Err(format!(
            "font_stack may name at most {MAX_FONT_FAMILIES} families"
        ));
    }
    let word = |w: &str| {
        w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '-' || c == '_')
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let family_ok = |family: &str| {
        let quoted = ['"', '\'']
            .iter()
            .find_map(|q| family.strip_prefix(*q)?.strip_suffix(*q));
        match quoted {
            Some(inner) => {
                !inner.trim().is_empty()
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || " -_.".contains(c))
            }
            None => !family.is_empty() && family.split(' ').all(word),
        }
    };
    if families.iter().all(|f| family_ok(f)) {
        Ok(())
    } else {
        Err(
            "font_stack must be family names separated by commas: letters, digits, spaces \
             and - _ . only, a name with spaces or dots in quotes"
                .to_owned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(theme: &Theme) -> Vec<(String, String)> {
        let mut checks = Checks::default();
        theme.check("theme", &mut checks);
        checks
            .errors()
            .iter()
            .map(|e| (e.field.clone(), e.code.clone()))
            .collect()
    }

    fn theme(json: serde_json::Value) -> Theme {
        let mut theme: Theme = serde_json::from_value(json).unwrap();
        theme.normalize();
        theme
    }

    #[test]
    fn an_empty_theme_and_a_readable_one_pass() {
        assert!(problems(&Theme::default()).is_empty());
        for scheme in ["light", "dark", "auto"] {
            assert!(problems(&theme(serde_json::json!({ "color_scheme": scheme }))).is_empty());
        }
        let good = theme(serde_json::json!({
            "accent": "#0B5CAD", "accent_text": "#FFFFFF", "background": "#fbfaf7",
            "text": "#1d1d1f", "corner_radius": 12, "font_stack": "\"Source Sans 3\", Arial, sans-serif"
        }));
        assert!(problems(&good).is_empty(), "{:?}", problems(&good));
        assert_eq!(good.accent.as_deref(), Some("#0b5cad"));
        let dark = theme(serde_json::json!({
            "color_scheme": "dark", "background": "#101418", "text": "#f0f0f0",
            "accent": "#ffb454", "accent_text": "#1a1000"
        }));
        assert!(problems(&dark).is_empty(), "{:?}", problems(&dark));
    }

    #[test]
    fn low_contrast_names_the_field_that_was_set() {
        let grey_text = theme(serde_json::json!({ "text": "#999999" }));
        assert_eq!(
            problems(&grey_text),
            [("theme.text".into(), "contrast".into())]
        );
        let pale_accent = theme(serde_json::json!({ "accent": "#ffe08a" }));
        let found = problems(&pale_accent);
        assert!(
            found.contains(&("theme.accent".into(), "contrast".into())),
            "{found:?}"
        );
        // The accent's own text set too low: that field is named.
        let low = theme(serde_json::json!({ "accent": "#1f3a5f", "accent_text": "#3a5a80" }));
        assert_eq!(
            problems(&low),
            [("theme.accent_text".into(), "contrast".into())]
        );
    }

    #[test]
    fn a_scheme_must_match_its_background() {
        let dark_on_light =
            theme(serde_json::json!({ "color_scheme": "dark", "background": "#ffffff" }));
        let found = problems(&dark_on_light);
        assert!(
            found.contains(&("theme.background".into(), "color_scheme".into())),
            "{found:?}"
        );
    }

    #[test]
    fn bad_colours_radius_and_fonts_are_named() {
        let bad = theme(serde_json::json!({
            "accent": "blue", "background": "#fff", "corner_radius": 25,
            "font_stack": "Arial; } body { display: none"
        }));
        let mut fields: Vec<String> = problems(&bad).into_iter().map(|p| p.0).collect();
        fields.sort();
        assert_eq!(
            fields,
            [
                "theme.accent",
                "theme.background",
                "theme.corner_radius",
                "theme.font_stack"
            ]
        );
    }

    #[test]
    fn a_font_stack_cannot_leave_its_declaration() {
        for good in [
            "system-ui",
            "Inter, sans-serif",
            "\"Source Sans 3\", 'Helvetica Neue', Arial, sans-serif",
            "Fira Sans, -apple-system",
            "\"Open Sans 1.5\"",
        ] {
            assert_eq!(font_stack_problem(good), Ok(()), "{good}");
        }
        for bad in [
            "Arial; color: red",
            "Arial}",
            "</style><script>alert(1)</script>",
            "\"Arial",
            "'Arial\"",
            "Arial, , serif",
            "url(https://evil.example/font)",
            "Arial\\3b",
            "3D Sans",
            "\"\"",
            "Ari\u{a0}al",
            &"a, ".repeat(11),
            &"x".repeat(201),
        ] {
            assert!(font_stack_problem(bad).is_err(), "{bad}");
        }
    }
}
