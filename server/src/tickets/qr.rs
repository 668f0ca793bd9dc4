//! A ticket's QR code: as a PNG for the ticket mail (mail clients do not show SVG, so the mail
//! carries each code as an inline image), and as SVG for the frame (its `ticket_qr` server
//! function). The content is the ticket's signed QR token (`gate::code`), or its printed code
//! where it has none, either way.

use qrcode::{Color, QrCode};

/// Pixels per module: a 25-module code with its quiet zone is 264 px wide, sharp when a mail
/// client scales it to 200 px.
const SCALE: usize = 8;
/// The quiet zone around the code, in modules, that scanners need (ISO/IEC 18004).
const QUIET: usize = 4;

/// The SVG of `content`'s QR code, at least 220 px square with its quiet zone.
pub fn svg(content: &str) -> anyhow::Result<String> {
    Ok(QrCode::new(content.as_bytes())?
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(220, 220)
        .quiet_zone(true)
        .build())
}

/// The PNG of `content`'s QR code: 8-bit grey, black modules on white.
pub fn png(content: &str) -> anyhow::Result<Vec<u8>> {
    let code = QrCode::new(content.as_bytes())?;
    let modules = code.width();
    let colors = code.to_colors();
    let side = (modules + 2 * QUIET) * SCALE;
    let mut pixels = vec![255u8; side * side];
    for (index, color) in colors.iter().enumerate() {
        if *color != Color::Dark {
            continue;
        }
        let (mx, my) = (index % modules + QUIET, index / modules + QUIET);
        for y in my * SCALE..(my + 1) * SCALE {
            pixels[y * side + mx * SCALE..y * side + (mx + 1) * SCALE].fill(0);
        }
    }
    let mut out = Vec::new();
    {
        let side = u32::try_from(side)?;
        let mut encoder = png::Encoder::new(&mut out, side, side);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&pixels)?;
    }
    Ok(out)
}
