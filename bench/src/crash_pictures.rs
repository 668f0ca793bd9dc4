//! Pictures in the crash run (issue 44): the operator uploads pictures of the shop's merchant
//! and deletes some while the server is killed; then the invariants of what it changed. An
//! upload keeps its files and the owner's list in one transaction, a delete removes both in
//! one: every picture answered 201 and never deleted is listed with every file it names, every
//! picture answered 204 is gone with its files, and no file is left without a listed picture.

use std::{
    collections::{BTreeSet, HashMap, HashSet},
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, RwLock,
    },
    time::Duration,
};

use bytes::Bytes;
use hyper::{Method, StatusCode};
use image::ImageEncoder;
use rand::{seq::IteratorRandom, Rng};
use serde_json::Value;
use sqlx::Connection;
use uuid::Uuid;

use crate::{
    crash_after_sale::ADMIN_TOKEN,
    crash_load::on_database,
    load::{self, Call},
    process::ServerProcess,
};

/// What the uploader sent and was answered.
#[derive(Debug, Default, Clone)]
pub struct Uploads {
    pub sent: usize,
    /// Answered 201.
    pub added: HashSet<Uuid>,
    /// Answered 204.
    pub removed: HashSet<Uuid>,
    pub unanswered: usize,
}

const BOUNDARY: &str = "crash-run-picture";

/// A small gradient as PNG: enough for every rendition, quick to encode.
fn picture() -> Vec<u8> {
    let (width, height) = (96, 54);
    let pixels = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x * 2) as u8, (y * 4) as u8, 120])
    });
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(
            pixels.as_raw(),
            width,
            height,
            image::ExtendedColorType::Rgb8,
        )
        .expect("a drawn picture encodes");
    png
}

/// The upload form of `png`.
fn form(png: &[u8]) -> Bytes {
    let mut body = Vec::new();
    let text = |body: &mut Vec<u8>, name: &str, value: &str| {
        body.extend(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .bytes(),
        );
    };
    text(&mut body, "role", "gallery");
    text(&mut body, "alt", r#"{"en-GB": "A gradient"}"#);
    body.extend(
        format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n")
            .bytes(),
    );
    body.extend(png);
    body.extend(format!("\r\n--{BOUNDARY}--\r\n").bytes());
    Bytes::from(body)
}

/// Uploads pictures of `merchant_id` and deletes one now and then (and when the merchant has
/// as many as it may) until `stop`.
pub async fn uploader(
    server: Arc<RwLock<Option<ServerProcess>>>,
    merchant_id: Uuid,
    (stop, sent): (Arc<AtomicBool>, Arc<AtomicUsize>),
) -> anyhow::Result<Uploads> {
    let mut seen = Uploads::default();
    let upload = Call {
        method: Method::POST,
        path: format!("/admin/v1/merchants/{merchant_id}/images"),
        headers: vec![
            ("authorization".into(), format!("Bearer {ADMIN_TOKEN}")),
            (
                "content-type".into(),
                format!("multipart/form-data; boundary={BOUNDARY}"),
            ),
        ],
        body: form(&picture()),
        fresh_key: None,
    };
    while !stop.load(Ordering::Relaxed) {
        let addr = server.read().unwrap().as_ref().map(|s| s.addr);
        let Some(addr) = addr else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let standing: Vec<Uuid> = seen.added.difference(&seen.removed).copied().collect();
        let delete =
            standing.len() >= 15 || (!standing.is_empty() && rand::thread_rng().gen_bool(0.3));
        let (call, deleting) = if delete {
            let id = *standing
                .iter()
                .choose(&mut rand::thread_rng())
                .expect("one");
            let mut call = Call::get(format!("/admin/v1/merchants/{merchant_id}/images/{id}"))
                .header("authorization", format!("Bearer {ADMIN_TOKEN}"));
            call.method = Method::DELETE;
            (call, Some(id))
        } else {
            (upload.clone(), None)
        };
        sent.fetch_add(1, Ordering::Relaxed);
        seen.sent += 1;
        match load::once(addr, &call).await {
            Ok((StatusCode::CREATED, body)) => {
                let read: Value = serde_json::from_slice(&body)?;
                if let Some(id) = read["data"]["image_id"].as_str() {
                    seen.added.insert(id.parse()?);
                }
            }
            // Deleted; or gone already (a delete whose answer the kill lost, then sent again).
            Ok((StatusCode::NO_CONTENT | StatusCode::NOT_FOUND, _)) if deleting.is_some() => {
                seen.removed.extend(deleting);
            }
            Ok(_) => {}
            Err(_) => seen.unanswered += 1,
        }
        let pause = rand::thread_rng().gen_range(5..40);
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
    Ok(seen)
}

/// What the pictures' invariants are checked against: each listed picture's file names, and
/// each picture's stored file names.
#[derive(Debug, Default, Clone)]
pub struct Stored {
    pub listed: HashMap<Uuid, BTreeSet<String>>,
    pub files: HashMap<Uuid, BTreeSet<String>>,
}

pub async fn read(url: &str, merchant_id: Uuid) -> anyhow::Result<Stored> {
    let list: sqlx::types::Json<Vec<Value>> = on_database!(url, |conn| sqlx::query_scalar(
        "SELECT images FROM merchant WHERE merchant_id = $1"
    )
    .bind(merchant_id)
    .fetch_one(&mut conn)
    .await?);
    let mut stored = Stored::default();
    for image in list.0 {
        let id: Uuid = image["image_id"].as_str().unwrap_or_default().parse()?;
        let names = image["files"]
            .as_array()
            .map(|files| {
                files
                    .iter()
                    .filter_map(|f| f["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        stored.listed.insert(id, names);
    }
    let files: Vec<(Uuid, String)> = on_database!(url, |conn| sqlx::query_as(
        "SELECT image_id, name FROM image_file"
    )
    .fetch_all(&mut conn)
    .await?);
    for (id, name) in files {
        stored.files.entry(id).or_default().insert(name);
    }
    Ok(stored)
}

/// The pictures' invariants.
pub fn invariants(stored: &Stored, uploads: &Uploads) -> Vec<(&'static str, bool, String)> {
    let kept: Vec<&Uuid> = uploads.added.difference(&uploads.removed).collect();
    let lost = kept
        .iter()
        .filter(|id| match stored.listed.get(id) {
            Some(names) => stored.files.get(id) != Some(names) || names.is_empty(),
            None => true,
        })
        .count();
    let lingering = uploads
        .removed
        .iter()
        .filter(|id| stored.listed.contains_key(id) || stored.files.contains_key(id))
        .count();
    let half_written = stored
        .files
        .keys()
        .filter(|id| !stored.listed.contains_key(id))
        .chain(
            stored
                .listed
                .iter()
                .filter(|(id, names)| stored.files.get(id) != Some(names))
                .map(|(id, _)| id),
        )
        .collect::<HashSet<_>>()
        .len();
    vec![
        (
            "every picture answered 201 and not deleted is listed with every file it names",
            lost == 0,
            format!("{} kept, {lost} lost or incomplete", kept.len()),
        ),
        (
            "every picture answered 204 is gone, with its files",
            lingering == 0,
            format!("{} deleted, {lingering} still there", uploads.removed.len()),
        ),
        (
            "no file without its listed picture, no listed picture without its files",
            half_written == 0,
            format!(
                "{} listed, {} with files, {half_written} half-written",
                stored.listed.len(),
                stored.files.len()
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn each_invariant_catches_its_fault() {
        let (a, b, c) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        let files = names(&["96.webp", "96.jpg"]);
        let stored = Stored {
            listed: HashMap::from([(a, files.clone())]),
            files: HashMap::from([(a, files.clone())]),
        };
        let uploads = Uploads {
            added: HashSet::from([a, b]),
            removed: HashSet::from([b]),
            ..Uploads::default()
        };
        assert!(invariants(&stored, &uploads)
            .iter()
            .all(|(_, held, _)| *held));

        let mut lost = stored.clone();
        lost.listed.remove(&a);
        lost.files.remove(&a);
        assert!(!invariants(&lost, &uploads)[0].1, "an answered upload lost");

        let mut lingering = stored.clone();
        lingering.files.insert(b, files.clone());
        assert!(
            !invariants(&lingering, &uploads)[1].1,
            "a deleted picture's files"
        );

        let mut orphan = stored.clone();
        orphan.files.insert(c, files.clone());
        assert!(
            !invariants(&orphan, &uploads)[2].1,
            "files of no listed picture"
        );
        let mut partial = stored;
        partial.files.insert(a, names(&["96.webp"]));
        assert!(
            !invariants(&partial, &uploads)[2].1,
            "a listed picture missing a file"
        );
    }
}
