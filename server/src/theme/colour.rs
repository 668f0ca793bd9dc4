//! sRGB colours as partners write them (`#rrggbb`) and the WCAG 2.x contrast between two of
//! them: pure functions, so the rules a theme is held to can be tested without a browser.

/// An sRGB colour with 8-bit channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub [u8; 3]);

impl Rgb {
    /// Parses `#rrggbb` (either case); anything else, `#rgb` and names included, is `None`.
    pub fn parse(hex: &str) -> Option<Self> {
        let digits = hex.strip_prefix('#')?;
        let mut channels = [0u8; 3];
        hex::decode_to_slice(digits, &mut channels).ok()?;
        Some(Self(channels))
    }

    /// `#rrggbb`, lower-case: the only form a colour is stored and written in.
    pub fn hex(self) -> String {
        format!("#{}", hex::encode(self.0))
    }

    /// Relative luminance, WCAG 2.x: each channel linearised from sRGB, weighted
    /// 0.2126 R + 0.7152 G + 0.0722 B; 0 is black, 1 white.
    pub fn luminance(self) -> f64 {
        let linear = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let [r, g, b] = self.0;
        0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    }

    /// `share` of `self` mixed into `other` (0: `other`, 1: `self`), channel by channel in
    /// sRGB, as CSS `color-mix(in srgb, self share, other)` does.
    pub fn mix(self, other: Rgb, share: f64) -> Rgb {
        let share = share.clamp(0.0, 1.0);
        let channel = |i: usize| {
            let value = f64::from(self.0[i]) * share + f64::from(other.0[i]) * (1.0 - share);
            // In 0..=255 by construction, so the cast neither wraps nor truncates sign.
            value.round() as u8
        };
        Rgb([channel(0), channel(1), channel(2)])
    }
}

/// The WCAG 2.x contrast ratio of two colours, from 1 (equal) to 21 (black on white),
/// whichever is lighter.
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (a.luminance(), b.luminance());
    let (light, dark) = if la >= lb { (la, lb) } else { (lb, la) };
    (light + 0.05) / (dark + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgb(hex: &str) -> Rgb {
        Rgb::parse(hex).unwrap()
    }

    #[test]
    fn only_six_digit_hex_colours_parse() {
        assert_eq!(rgb("#1F3a5f"), Rgb([0x1f, 0x3a, 0x5f]));
        assert_eq!(rgb("#1F3a5f").hex(), "#1f3a5f");
        for bad in [
            "1f3a5f",
            "#fff",
            "#1f3a5g",
            "#1f3a5f0",
            "red",
            "",
            "#",
            "#ｆｆｆｆｆｆ",
        ] {
            assert_eq!(Rgb::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn luminance_follows_wcag() {
        assert_eq!(rgb("#000000").luminance(), 0.0);
        assert!((rgb("#ffffff").luminance() - 1.0).abs() < 1e-12);
        // Mid grey #777777: linearised 0.18447…
        assert!((rgb("#777777").luminance() - 0.184_475).abs() < 1e-5);
        // Green weighs most, blue least.
        assert!(rgb("#00ff00").luminance() > rgb("#ff0000").luminance());
        assert!(rgb("#ff0000").luminance() > rgb("#0000ff").luminance());
    }

    #[test]
    fn contrast_ratios_match_known_values() {
        let close = |a: &str, b: &str, want: f64| {
            let got = contrast(rgb(a), rgb(b));
            assert!((got - want).abs() < 0.01, "{a} on {b}: {got} (want {want})");
        };
        close("#000000", "#ffffff", 21.0);
        close("#ffffff", "#000000", 21.0);
        close("#123456", "#123456", 1.0);
        // The threshold pairs people quote: #767676 is the lightest grey at 4.5:1 on white,
        // #949494 about 3:1.
        close("#767676", "#ffffff", 4.54);
        close("#777777", "#ffffff", 4.48);
        close("#949494", "#ffffff", 3.03);
        close("#1f3a5f", "#ffffff", 11.48);
    }

    #[test]
    fn mixing_is_linear_per_channel() {
        let black = rgb("#000000");
        let white = rgb("#ffffff");
        assert_eq!(black.mix(white, 0.0), white);
        assert_eq!(black.mix(white, 1.0), black);
        assert_eq!(black.mix(white, 0.5), rgb("#808080"));
        assert_eq!(rgb("#ff0000").mix(rgb("#0000ff"), 0.25), rgb("#4000bf"));
    }
}
