//! The demo's pictures: drawn here, not shipped (the repository carries no photographs), and
//! uploaded through the same path an operator's go through (`images::add`), so the demo shows
//! covers in the frame, `images` in the reads and `media` in OCTO.

use app::wire::{ImageRole, LocalizedText};
use image::{ImageEncoder, Rgb, RgbImage};
use uuid::Uuid;

use crate::{
    images::{self, Upload},
    state::AppState,
    store::ImageOwner,
};

/// The colours of a drawn landscape: the sky from top to horizon, the sun, the far and the
/// near ground.
#[derive(Clone, Copy)]
pub struct Palette {
    pub sky: ([u8; 3], [u8; 3]),
    pub sun: [u8; 3],
    pub far: [u8; 3],
    pub near: [u8; 3],
}

/// A calm blue day over green hills.
pub const DAY: Palette = Palette {
    sky: ([86, 156, 214], [200, 228, 245]),
    sun: [255, 236, 160],
    far: [104, 160, 96],
    near: [58, 118, 64],
};

/// A warm evening over dunes.
pub const EVENING: Palette = Palette {
    sky: ([64, 52, 120], [246, 170, 110]),
    sun: [255, 214, 120],
    far: [176, 120, 92],
    near: [110, 70, 62],
};

/// A night with a moon over dark water and a glowing shore.
pub const NIGHT: Palette = Palette {
    sky: ([10, 16, 48], [48, 60, 120]),
    sun: [236, 236, 250],
    far: [232, 120, 40],
    near: [18, 30, 70],
};

/// A grey-blue morning over a city of canal houses' roofs.
pub const MORNING: Palette = Palette {
    sky: ([150, 170, 196], [236, 230, 220]),
    sun: [255, 248, 224],
    far: [122, 112, 120],
    near: [70, 62, 72],
};

/// A 1280 × 720 landscape in `palette`, as PNG; `seed` moves the sun and the hills.
pub fn landscape(palette: Palette, seed: u32) -> Vec<u8> {
    let (width, height) = (1280u32, 720u32);
    let shift = f64::from(seed % 7) * 0.9;
    let sun = (
        f64::from(width) * (0.2 + f64::from(seed % 5) * 0.15),
        f64::from(height) * 0.3,
    );
    let ridge = |x: f64, base: f64, size: f64, wave: f64| {
        base - size
            * ((x / wave + shift).sin() * 0.6 + (x / (wave * 0.37) + shift * 2.0).sin() * 0.4)
    };
    let image = RgbImage::from_fn(width, height, |x, y| {
        let (fx, fy) = (f64::from(x), f64::from(y));
        let near = ridge(fx, f64::from(height) * 0.82, 50.0, 140.0);
        let far = ridge(fx, f64::from(height) * 0.66, 70.0, 230.0);
        if fy > near {
            return Rgb(palette.near);
        }
        if fy > far {
            return Rgb(palette.far);
        }
        let distance = ((fx - sun.0).powi(2) + (fy - sun.1).powi(2)).sqrt();
        if distance < 70.0 {
            return Rgb(palette.sun);
        }
        let t = fy / f64::from(height);
        let glow = (1.0 - (distance / 400.0)).clamp(0.0, 1.0) * 0.35;
        let mix = |i: usize| {
            let sky = f64::from(palette.sky.0[i]) * (1.0 - t) + f64::from(palette.sky.1[i]) * t;
            (sky * (1.0 - glow) + f64::from(palette.sun[i]) * glow).round() as u8
        };
        Rgb([mix(0), mix(1), mix(2)])
    });
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(
            image.as_raw(),
            width,
            height,
            image::ExtendedColorType::Rgb8,
        )
        .expect("a drawn picture encodes");
    png
}

/// Alternative text in the four languages.
pub fn alt(nl: &str, en: &str, de: &str, fr: &str) -> LocalizedText {
    LocalizedText {
        nl_nl: Some(nl.to_owned()),
        en_gb: Some(en.to_owned()),
        de_de: Some(de.to_owned()),
        fr_fr: Some(fr.to_owned()),
    }
}

/// Uploads a drawn landscape as `owner`'s cover.
pub async fn cover(
    state: &AppState,
    owner: ImageOwner,
    (palette, seed): (Palette, u32),
    alt: LocalizedText,
) -> anyhow::Result<Uuid> {
    let upload = Upload {
        bytes: landscape(palette, seed),
        role: ImageRole::Cover,
        alt,
        position: None,
    };
    let image = images::add(state, owner, upload)
        .await
        .map_err(|e| anyhow::anyhow!("a demo picture: {e}"))?;
    Ok(image.image_id)
}

/// The demo's covers: one per merchant, and two products'.
pub async fn seed(
    state: &AppState,
    [museum, zoo, park, lights]: [Uuid; 4],
    [admission, feeding]: [Uuid; 2],
) -> anyhow::Result<()> {
    let hills = |nl: &str, en: &str, de: &str, fr: &str| {
        alt(
            &format!("Getekend landschap: {nl}"),
            &format!("Drawn landscape: {en}"),
            &format!("Gezeichnete Landschaft: {de}"),
            &format!("Paysage dessiné : {fr}"),
        )
    };
    let morning = hills(
        "heuvels onder een ochtendhemel",
        "hills under a morning sky",
        "Hügel unter einem Morgenhimmel",
        "collines sous un ciel du matin",
    );
    let day = hills(
        "groene heuvels onder een blauwe lucht",
        "green hills under a blue sky",
        "grüne Hügel unter blauem Himmel",
        "collines vertes sous un ciel bleu",
    );
    let evening = hills(
        "duinen bij zonsondergang",
        "dunes at sunset",
        "Dünen bei Sonnenuntergang",
        "dunes au coucher du soleil",
    );
    let night = hills(
        "de maan boven het water bij nacht",
        "the moon over the water at night",
        "der Mond über dem Wasser bei Nacht",
        "la lune au-dessus de l’eau, la nuit",
    );
    cover(
        state,
        ImageOwner::Merchant(museum),
        (MORNING, 1),
        morning.clone(),
    )
    .await?;
    cover(state, ImageOwner::Merchant(zoo), (DAY, 2), day.clone()).await?;
    cover(state, ImageOwner::Merchant(park), (EVENING, 3), evening).await?;
    cover(state, ImageOwner::Merchant(lights), (NIGHT, 4), night).await?;
    cover(state, ImageOwner::Product(admission), (MORNING, 5), morning).await?;
    cover(state, ImageOwner::Product(feeding), (DAY, 6), day).await?;
    Ok(())
}
