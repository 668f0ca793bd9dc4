//! Apple Wallet: an `eventTicket` pass per ticket (`.pkpass`), several tickets as one bundle
//! (`.pkpasses`). Each pass is a zip of `pass.json`, its icon, `pass.strings` in the four
//! languages, `manifest.json` (the SHA-1 of every file) and `signature`: a PKCS#7 detached
//! signature over the manifest with the operator's Pass Type ID certificate and key, the
//! Apple WWDR intermediate included (OpenSSL does the signing, `zip` the archive). Offered
//! only when the operator configured the certificate, key, intermediate, pass type id and team
//! id (`BOXOFFICE_APPLE_PASS_*`).

use std::io::{Cursor, Write};

use anyhow::Context;
use app::wire::{Locale, Ticket};
use openssl::{
    pkcs7::{Pkcs7, Pkcs7Flags},
    pkey::{PKey, Private},
    stack::Stack,
    x509::X509,
};
use serde_json::{json, Map, Value};
use zip::{write::SimpleFileOptions, CompressionMethod, ZipWriter};

use super::{facts, order_doc::OrderDoc, texts::texts};
use crate::config::Config;

/// The operator's Pass Type ID certificate, its key and Apple's intermediate.
#[derive(Clone)]
pub struct AppleWallet {
    pass_type_id: String,
    team_id: String,
    certificate: X509,
    key: PKey<Private>,
    intermediate: X509,
}

impl std::fmt::Debug for AppleWallet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppleWallet")
            .field("pass_type_id", &self.pass_type_id)
            .finish_non_exhaustive()
    }
}

/// A signed pass or bundle and its media type.
#[derive(Debug)]
pub struct PassFile {
    pub content_type: &'static str,
    pub file_name: &'static str,
    pub bytes: Vec<u8>,
}

impl axum::response::IntoResponse for PassFile {
    /// The file as a download, never cached.
    fn into_response(self) -> axum::response::Response {
        use axum::http::{header, HeaderValue};
        let disposition = format!("attachment; filename=\"{}\"", self.file_name);
        (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(self.content_type),
                ),
                (
                    header::CONTENT_DISPOSITION,
                    HeaderValue::from_str(&disposition)
                        .unwrap_or_else(|_| HeaderValue::from_static("attachment")),
                ),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
            self.bytes,
        )
            .into_response()
    }
}

impl AppleWallet {
    /// The configured wallet, or `None` without every setting; unreadable files stop the start.
    pub fn from_config(config: &Config) -> anyhow::Result<Option<Self>> {
        let (Some(pass_type_id), Some(team_id), Some(cert), Some(key), Some(wwdr)) = (
            &config.apple_pass_type_id,
            &config.apple_team_id,
            &config.apple_pass_cert,
            &config.apple_pass_key,
            &config.apple_wwdr_cert,
        ) else {
            return Ok(None);
        };
        let read = |path: &std::path::PathBuf, what: &str| {
            std::fs::read(path).with_context(|| format!("reading {what} {}", path.display()))
        };
        Ok(Some(Self {
            pass_type_id: pass_type_id.clone(),
            team_id: team_id.clone(),
            certificate: X509::from_pem(&read(cert, "BOXOFFICE_APPLE_PASS_CERT")?)
                .context("BOXOFFICE_APPLE_PASS_CERT is not a PEM certificate")?,
            key: PKey::private_key_from_pem(&read(key, "BOXOFFICE_APPLE_PASS_KEY")?)
                .context("BOXOFFICE_APPLE_PASS_KEY is not a PEM private key")?,
            intermediate: X509::from_pem(&read(wwdr, "BOXOFFICE_APPLE_WWDR_CERT")?)
                .context("BOXOFFICE_APPLE_WWDR_CERT is not a PEM certificate")?,
        }))
    }

    /// The order's passes: one `.pkpass`, or a `.pkpasses` bundle of one per ticket.
    pub fn passes(&self, doc: &OrderDoc) -> anyhow::Result<PassFile> {
        let passes = doc
            .order
            .tickets
            .iter()
            .map(|ticket| self.pass(doc, ticket))
            .collect::<anyhow::Result<Vec<_>>>()?;
        if let [one] = passes.as_slice() {
            return Ok(PassFile {
                content_type: "application/vnd.apple.pkpass",
                file_name: "tickets.pkpass",
                bytes: one.clone(),
            });
        }
        let files: Vec<(String, Vec<u8>)> = passes
            .into_iter()
            .enumerate()
            .map(|(i, pass)| (format!("ticket-{}.pkpass", i + 1), pass))
            .collect();
        Ok(PassFile {
            content_type: "application/vnd.apple.pkpasses",
            file_name: "tickets.pkpasses",
            bytes: zip_files(&files)?,
        })
    }

    /// One ticket's signed `.pkpass`.
    fn pass(&self, doc: &OrderDoc, ticket: &Ticket) -> anyhow::Result<Vec<u8>> {
        let mut files: Vec<(String, Vec<u8>)> = vec![
            (
                "pass.json".into(),
                serde_json::to_vec(&self.pass_json(doc, ticket))?,
            ),
            ("icon.png".into(), icon()?),
        ];
        for locale in Locale::ALL {
            files.push((
                format!("{}.lproj/pass.strings", locale.language()),
                pass_strings(locale).into_bytes(),
            ));
        }
        let manifest: Map<String, Value> = files
            .iter()
            .map(|(name, bytes)| {
                (
                    name.clone(),
                    Value::String(hex::encode(openssl::sha::sha1(bytes))),
                )
            })
            .collect();
        let manifest = serde_json::to_vec(&manifest)?;
        let mut chain = Stack::new()?;
        chain.push(self.intermediate.clone())?;
        let signature = Pkcs7::sign(
            &self.certificate,
            &self.key,
            &chain,
            &manifest,
            Pkcs7Flags::DETACHED | Pkcs7Flags::BINARY,
        )?
        .to_der()?;
        files.push(("manifest.json".into(), manifest));
        files.push(("signature".into(), signature));
        zip_files(&files)
    }

    fn pass_json(&self, doc: &OrderDoc, ticket: &Ticket) -> Value {
        let t = texts(doc.locale);
        let relevant = ticket
            .timeslot
            .as_ref()
            .map(|slot| slot.start_time.to_rfc3339());
        let mut pass = json!({
            "formatVersion": 1,
            "passTypeIdentifier": self.pass_type_id,
            "teamIdentifier": self.team_id,
            "serialNumber": ticket.ticket_id.to_string(),
            "organizationName": doc.merchant_name(),
            "description": format!("{} {}", t.calendar_visit, doc.merchant_name()),
            "barcodes": [{ "format": "PKBarcodeFormatQR", "message": ticket.qr_content(),
                           "messageEncoding": "iso-8859-1", "altText": ticket.code }],
            "locations": [{ "latitude": doc.merchant.location.latitude,
                            "longitude": doc.merchant.location.longitude }],
            "eventTicket": {
                "primaryFields": [{ "key": "event", "label": "event", "value": doc.merchant_name() }],
                "secondaryFields": [
                    { "key": "ticket", "label": "ticket", "value": ticket.product_title },
                    { "key": "visit", "label": "visit", "value": facts::visit_line(doc) },
                ],
                "auxiliaryFields": [
                    { "key": "order", "label": "order", "value": doc.order.order_display_id },
                    { "key": "code", "label": "code", "value": ticket.code },
                ],
                "backFields": [{ "key": "address", "label": "address", "value": doc.address() }],
            },
        });
        if let Some(relevant) = relevant {
            pass["relevantDate"] = Value::String(relevant);
        }
        pass
    }
}

/// The field labels in `locale` (Wallet shows the device's language).
fn pass_strings(locale: Locale) -> String {
    let t = texts(locale);
    [
        ("event", t.visit),
        ("ticket", t.ticket),
        ("visit", t.visit),
        ("order", t.order),
        ("code", t.code),
        ("address", t.address),
    ]
    .iter()
    .map(|(key, value)| format!("\"{key}\" = \"{}\";\n", value.replace('"', "\\\"")))
    .collect()
}

/// The pass's icon (required by Wallet): a plain 29 px square in the mail's blue.
fn icon() -> anyhow::Result<Vec<u8>> {
    const SIDE: u32 = 29;
    let pixels: Vec<u8> = (0..SIDE * SIDE).flat_map(|_| [0x1d, 0x4e, 0xd8]).collect();
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, SIDE, SIDE);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.write_header()?.write_image_data(&pixels)?;
    }
    Ok(out)
}

fn zip_files(files: &[(String, Vec<u8>)]) -> anyhow::Result<Vec<u8>> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    for (name, bytes) in files {
        zip.start_file(name.as_str(), options)?;
        zip.write_all(bytes)?;
    }
    Ok(zip.finish()?.into_inner())
}
