//! Pairing a device with a gate (docs/gate.md, "Pairing"): the operator hands a gate's
//! one-time pairing URL to the person at the gate; the scanner page opened at it trades its
//! code (in the URL's fragment, which no server log sees) for the device's own client
//! credentials, shown once and good until the gate is revoked. The code is single use and
//! lasts [`PAIRING_HOURS`]; only its SHA-256 is stored.

use app::wire::{PairedDevice, ProblemType};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use chrono::{DateTime, Duration, Utc};
use rand::RngCore;
use sha2::{Digest, Sha256};

use super::Gates;
use crate::{
    error::{Error, Result},
    secrets,
};

/// How long a pairing URL works.
pub const PAIRING_HOURS: i64 = 24;
/// The client id prefix of a paired device's credential.
pub const DEVICE_CLIENT_PREFIX: &str = "gdev_";

/// A fresh pairing: the URL to hand over, and the code's hash and end to store.
pub struct NewPairing {
    pub url: String,
    pub hash: Vec<u8>,
    pub expires_at: DateTime<Utc>,
}

/// A fresh one-time pairing URL under `base_url`.
pub fn new_pairing(base_url: &str, now: DateTime<Utc>) -> NewPairing {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let code = URL_SAFE_NO_PAD.encode(bytes);
    NewPairing {
        url: format!("{base_url}/gate#pairing={code}"),
        hash: Sha256::digest(code.as_bytes()).to_vec(),
        expires_at: now + Duration::hours(PAIRING_HOURS),
    }
}

/// Trades a pairing code for a device credential, once.
pub async fn pair(gates: &Gates<'_>, code: &str, now: DateTime<Utc>) -> Result<PairedDevice> {
    let client_id = secrets::new_gate_client_id(DEVICE_CLIENT_PREFIX);
    let client_secret = secrets::new_client_secret();
    let hash = Sha256::digest(code.trim().as_bytes());
    let gate = gates
        .store
        .pair_gate_device(&hash, &client_id, &secrets::hash_secret(&client_secret), now)
        .await?
        .ok_or_else(|| {
            Error::new(
                ProblemType::GatePairingInvalid,
                "This pairing code is unknown, was used already or has expired; ask the operator for a new pairing URL.",
            )
        })?;
    let merchant = gates.store.merchant(gate.merchant_id).await?;
    Ok(PairedDevice {
        gate_id: gate.gate_id,
        gate_name: gate.name,
        merchant_id: gate.merchant_id,
        timezone: merchant.map(|m| m.timezone).unwrap_or_else(|| "UTC".into()),
        client_id,
        client_secret,
    })
}
