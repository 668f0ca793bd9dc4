//! A paired device at work: each read checked online, or offline against the day's signed
//! manifest when the network is gone; what it let in offline kept in local storage and
//! uploaded when the network is back (docs/gate.md, "The scanner").

use std::{cell::RefCell, collections::BTreeSet};

use serde::{Deserialize, Serialize};

use super::{
    answer::{Answer, Refusal},
    browser,
    client::{self, Failure, GateClient, Jwk},
    offline::{self, Jws},
    signature,
};
use crate::wire::{
    code_hash, GateManifest, OfflineScan, PairedDevice, ProblemType, RedemptionBatch,
    RedemptionRequest, RedemptionStatus, TicketClaims, MANIFEST_TYPE, PROBLEM_TYPE_PREFIX,
    TICKET_TOKEN_TYPE,
};

/// Where the device keeps what it knows, in local storage.
pub const DEVICE_KEY: &str = "boxoffice.gate.device";
const MANIFEST_KEY: &str = "boxoffice.gate.manifest";
const KEYS_KEY: &str = "boxoffice.gate.keys";
const QUEUE_KEY: &str = "boxoffice.gate.queue";
const HERE_KEY: &str = "boxoffice.gate.here";

/// The most scans one upload carries (the batch endpoint's limit).
const BATCH_LIMIT: usize = 500;

/// The printed codes this device let in on a day (their manifest names), offline or online,
/// so it refuses a second entry before the next manifest lists it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct LetInHere {
    date: String,
    hashes: BTreeSet<String>,
}

#[derive(Default)]
struct Book {
    manifest: Option<GateManifest>,
    keys: Vec<Jwk>,
    here: LetInHere,
    queue: Vec<OfflineScan>,
}

/// What an upload found.
pub struct Uploaded {
    /// Scans the server kept as double entries or refused.
    pub reported: usize,
}

/// The device's scanning state.
pub struct Station {
    pub device: PairedDevice,
    client: GateClient,
    book: RefCell<Book>,
}

impl Station {
    /// The station of `device`, with what it kept from before.
    pub fn new(device: PairedDevice) -> Self {
        let keys: Vec<Jwk> = browser::load(KEYS_KEY).unwrap_or_default();
        let manifest = browser::load::<String>(MANIFEST_KEY)
            .and_then(|jws| offline::parse::<GateManifest>(&jws))
            .filter(|jws| jws.claims.gate_id == device.gate_id)
            .map(|jws| jws.claims);
        let book = Book {
            manifest,
            keys,
            here: browser::load(HERE_KEY).unwrap_or_default(),
            queue: browser::load(QUEUE_KEY).unwrap_or_default(),
        };
        Self {
            client: GateClient::new(device.clone()),
            device,
            book: RefCell::new(book),
        }
    }

    fn today(&self) -> String {
        browser::today_in(&self.device.timezone)
    }

    /// Scans waiting to be uploaded.
    pub fn waiting(&self) -> usize {
        self.book.borrow().queue.len()
    }

    /// When today's manifest was made (Unix seconds), if the device has it.
    pub fn list_made_at(&self) -> Option<i64> {
        let today = self.today();
        let book = self.book.borrow();
        book.manifest
            .as_ref()
            .filter(|m| m.date.to_string() == today)
            .map(|m| m.iat)
    }

    /// Fetches the keys and today's manifest, kept only when its signature verifies.
    pub async fn refresh(&self) -> Result<(), Failure> {
        let keys = client::keys().await?;
        browser::store(KEYS_KEY, &keys);
        self.book.borrow_mut().keys = keys.clone();
        let jws = self.client.manifest(&self.today()).await?;
        let Some(parsed) = offline::parse::<GateManifest>(&jws) else {
            return Err(Failure::Unexpected);
        };
        let ours = parsed.typ == MANIFEST_TYPE && parsed.claims.gate_id == self.device.gate_id;
        if !ours || !signature::verifies(&parsed, &keys).await {
            return Err(Failure::Unexpected);
        }
        browser::store(MANIFEST_KEY, &jws);
        self.book.borrow_mut().manifest = Some(parsed.claims);
        Ok(())
    }

    /// Checks one read: online when it can, offline when the network is gone. `Err` only
    /// when the device's credential is refused. The product is named in `locale` (a tag)
    /// when the day's list has its title in it.
    pub async fn check(&self, code: &str, read_ms: f64, locale: &str) -> Result<Answer, Failure> {
        let token = offline::parse::<TicketClaims>(code);
        let (product, age_group) = self.product_of(token.as_ref(), locale);
        let answer = |verdict, offline| Answer {
            code: code.to_owned(),
            verdict,
            product: product.clone(),
            age_group: age_group.clone(),
            offline,
            read_ms,
        };
        if browser::online() {
            let request = RedemptionRequest {
                code: code.to_owned(),
                nonce: browser::nonce(),
                scanned_at: Some(chrono::Utc::now().fixed_offset()),
            };
            match self.client.redeem(&request).await {
                Ok(entry) => {
                    if let Some(token) = &token {
                        self.remember(&token.claims.code);
                    }
                    return Ok(Answer {
                        product: product.clone().or(Some(entry.product_title)),
                        age_group: entry.age_group,
                        ..answer(Ok(()), false)
                    });
                }
                Err(Failure::Problem(kind, members)) => {
                    let name = kind.strip_prefix(PROBLEM_TYPE_PREFIX).unwrap_or(&kind);
                    let refusal = ProblemType::from_name(name)
                        .and_then(|kind| Refusal::of_problem(kind, &members))
                        .unwrap_or(Refusal::Failed);
                    return Ok(answer(Err(refusal), false));
                }
                Err(Failure::Revoked) => return Err(Failure::Revoked),
                Err(Failure::Unexpected) => return Ok(answer(Err(Refusal::Failed), false)),
                Err(Failure::Offline) => {}
            }
        }
        Ok(answer(self.judge_here(code, token.as_ref()).await, true))
    }

    /// The offline verdict: a verified token against today's manifest and this device's own
    /// entries; a let-in is queued for upload.
    async fn judge_here(
        &self,
        code: &str,
        token: Option<&Jws<TicketClaims>>,
    ) -> Result<(), Refusal> {
        let Some(token) = token.filter(|t| t.typ == TICKET_TOKEN_TYPE) else {
            return Err(Refusal::CheckOnline);
        };
        let today = self.today();
        let (manifest, keys) = {
            let book = self.book.borrow();
            (book.manifest.clone(), book.keys.clone())
        };
        let Some(manifest) = manifest.filter(|m| m.date.to_string() == today) else {
            return Err(Refusal::CheckOnline);
        };
        if !keys.iter().any(|key| key.kid == token.kid) {
            return Err(Refusal::CheckOnline);
        }
        if !signature::verifies(token, &keys).await {
            return Err(Refusal::Unknown);
        }
        let here = self.here_today(&today);
        offline::judge(&token.claims, &manifest, &here, browser::unix_now())?;
        self.remember(&token.claims.code);
        let mut book = self.book.borrow_mut();
        book.queue.push(OfflineScan {
            code: code.to_owned(),
            nonce: browser::nonce(),
            scanned_at: chrono::Utc::now().fixed_offset(),
        });
        browser::store(QUEUE_KEY, &book.queue);
        Ok(())
    }

    /// The codes let in here today.
    fn here_today(&self, today: &str) -> BTreeSet<String> {
        let book = self.book.borrow();
        if book.here.date == today {
            book.here.hashes.clone()
        } else {
            BTreeSet::new()
        }
    }

    /// Notes that the ticket of `printed_code` was let in here today.
    fn remember(&self, printed_code: &str) {
        let today = self.today();
        let mut book = self.book.borrow_mut();
        if book.here.date != today {
            book.here = LetInHere {
                date: today,
                hashes: BTreeSet::new(),
            };
        }
        book.here.hashes.insert(code_hash(printed_code));
        browser::store(HERE_KEY, &book.here);
    }

    /// The product title (in `locale`) and age group of a token's product, from the manifest.
    fn product_of(
        &self,
        token: Option<&Jws<TicketClaims>>,
        locale: &str,
    ) -> (Option<String>, Option<String>) {
        let book = self.book.borrow();
        let found = token.and_then(|token| {
            book.manifest
                .as_ref()?
                .products
                .iter()
                .find(|p| p.product_id == token.claims.pid)
        });
        match found {
            Some(product) => (
                Some(product.title_in(locale).to_owned()),
                product.age_group.clone(),
            ),
            None => (None, None),
        }
    }

    /// Uploads what waits (up to a batch); the scans the server answered leave the queue
    /// (it keeps each by its nonce, so sending one again is harmless).
    pub async fn upload(&self) -> Result<Uploaded, Failure> {
        let scans: Vec<OfflineScan> = {
            let book = self.book.borrow();
            book.queue.iter().take(BATCH_LIMIT).cloned().collect()
        };
        if scans.is_empty() {
            return Ok(Uploaded { reported: 0 });
        }
        let sent: BTreeSet<String> = scans.iter().map(|s| s.nonce.clone()).collect();
        let results = self.client.upload(&RedemptionBatch { scans }).await?;
        let reported = results
            .results
            .iter()
            .filter(|r| r.status != RedemptionStatus::Redeemed)
            .count();
        let mut book = self.book.borrow_mut();
        book.queue.retain(|scan| !sent.contains(&scan.nonce));
        browser::store(QUEUE_KEY, &book.queue);
        Ok(Uploaded { reported })
    }
}

/// Forgets everything the device kept (its gate was revoked).
pub fn forget_all() {
    for key in [DEVICE_KEY, MANIFEST_KEY, KEYS_KEY, QUEUE_KEY, HERE_KEY] {
        browser::forget(key);
    }
}
