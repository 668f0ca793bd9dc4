//! What a public bearer may do, cached per node so that a request spends no query on it:
//! whether its session stands (not revoked, this bearer its one bearer) and whether the
//! session's partner client may use a campaign.
//!
//! Only what grants is cached; a bearer the cache does not vouch for is checked in the
//! database, which stays the authority. A right is taken away by a change that also moves
//! `auth_revision` (migration 0011) in its transaction: a session revoked (its code was
//! replayed), a partner client changed or removed. Then:
//! - on the node that made the change, nothing cached before it is served again
//!   ([`AuthCache::revoked`]);
//! - every node re-reads the revision when its last read is [`AuthCache::interval`] old, and
//!   while it is older serves nothing from the cache. A revocation therefore reaches every
//!   node within the interval (`BOXOFFICE_AUTH_REVISION_INTERVAL_MS`, 1 s by default), plus
//!   the time of that one read (docs/security.md, "Revocation across nodes").

use std::{
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Mutex,
    },
    time::{Duration, Instant},
};

use uuid::Uuid;

use crate::{
    cache::TtlCache,
    error::{Error, ProblemType, Result},
    store::Store,
};

/// How long a cached grant is kept at one generation: it only bounds the memory's age, as
/// revocations reach the cache through the generation.
const KEEP: Duration = Duration::from_secs(300);

/// What a bearer's check learns of its session.
#[derive(Debug, Clone, Copy)]
pub enum SessionCheck {
    Stands(StandingSession),
    /// Revoked: its code was presented a second time.
    Revoked,
    /// No such session, or one whose code was never exchanged for a bearer.
    Unknown,
}

/// A session that stands, as its bearer's check needs it.
#[derive(Debug, Clone, Copy)]
pub struct StandingSession {
    /// The one bearer the session's code produced.
    pub bearer_jti: Uuid,
    pub partner_client_id: Option<Uuid>,
}

pub struct AuthCache {
    interval: Duration,
    /// Moves with every revocation this node sees; grants cached before are not served.
    generation: AtomicU64,
    /// The database's revision at the last read, and when that read began.
    seen: Mutex<Option<(i64, Instant)>>,
    /// One request re-reads the revision at a time; the others meanwhile go to the database.
    reading: AtomicBool,
    sessions: TtlCache<Uuid, StandingSession>,
    campaigns: TtlCache<(Uuid, Uuid), ()>,
    /// Standing gate credentials by client id (a gate's own or a paired device's).
    gates: TtlCache<String, crate::store::GateCredential>,
}

impl AuthCache {
    /// A cache whose revocations from other nodes arrive within `interval`; zero turns it off.
    pub fn new(interval: Duration) -> Self {
        let keep = if interval.is_zero() {
            Duration::ZERO
        } else {
            KEEP
        };
        Self {
            interval,
            generation: AtomicU64::new(0),
            seen: Mutex::new(None),
            reading: AtomicBool::new(false),
            sessions: TtlCache::new(keep),
            campaigns: TtlCache::new(keep),
            gates: TtlCache::new(keep),
        }
    }

    /// How long a revocation made on another node can go unseen here.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Records a revocation made through this node (after it committed).
    pub fn revoked(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// The generation grants may be served at, or `None` when the revision is too old to
    /// vouch for them; then it is re-read, by this request unless another already is.
    async fn current(&self, store: &dyn Store) -> Result<Option<u64>> {
        if self.interval.is_zero() {
            return Ok(None);
        }
        let last = *self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, at)) = last {
            if at.elapsed() < self.interval {
                return Ok(Some(self.generation.load(Ordering::Acquire)));
            }
        }
        if self.reading.swap(true, Ordering::AcqRel) {
            return Ok(None);
        }
        let began = Instant::now();
        let read = store.auth_revision().await;
        self.reading.store(false, Ordering::Release);
        let revision = read?;
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.is_some_and(|(before, _)| before != revision) {
            self.revoked();
        }
        *seen = Some((revision, began));
        Ok(Some(self.generation.load(Ordering::Acquire)))
    }

    /// Session `sid`, whether it stands; from the cache when it vouches for it, else read.
    pub async fn session(&self, store: &dyn Store, sid: Uuid) -> Result<SessionCheck> {
        let generation = self.current(store).await?;
        if let Some(cached) = generation.and_then(|g| self.sessions.get(&sid, g)) {
            return Ok(SessionCheck::Stands(cached));
        }
        let check = match store.session(sid).await? {
            Some(s) if s.revoked_at.is_some() => SessionCheck::Revoked,
            Some(s) => match s.bearer_jti {
                Some(bearer_jti) => SessionCheck::Stands(StandingSession {
                    bearer_jti,
                    partner_client_id: s.partner_client_id,
                }),
                None => SessionCheck::Unknown,
            },
            None => SessionCheck::Unknown,
        };
        if let (SessionCheck::Stands(standing), Some(generation)) = (check, generation) {
            self.sessions.put(sid, standing, generation);
        }
        Ok(check)
    }

    /// Whether partner client `client` may use campaign `campaign`; a yes is cached.
    pub async fn client_may_use_campaign(
        &self,
        store: &dyn Store,
        client: Uuid,
        campaign: Uuid,
    ) -> Result<bool> {
        let generation = self.current(store).await?;
        if let Some(()) = generation.and_then(|g| self.campaigns.get(&(client, campaign), g)) {
            return Ok(true);
        }
        let allowed = store.client_may_use_campaign(client, campaign).await?;
        if let (true, Some(generation)) = (allowed, generation) {
            self.campaigns.put((client, campaign), (), generation);
        }
        Ok(allowed)
    }

    /// The standing gate credential `client_id` names, from the cache when it vouches for it,
    /// else read; `None` for no credential or a revoked gate. A gate changed or revoked moves
    /// the revision, so its old copy is not served after it.
    pub async fn gate_credential(
        &self,
        store: &dyn Store,
        client_id: &str,
    ) -> Result<Option<crate::store::GateCredential>> {
        let generation = self.current(store).await?;
        if let Some(cached) = generation.and_then(|g| self.gates.get(&client_id.to_owned(), g)) {
            return Ok(Some(cached));
        }
        let credential = store
            .gate_credential(client_id)
            .await?
            .filter(|c| c.gate.revoked_at.is_none());
        if let (Some(credential), Some(generation)) = (&credential, generation) {
            self.gates
                .put(client_id.to_owned(), credential.clone(), generation);
        }
        Ok(credential)
    }

    /// `client_may_use_campaign` as every public route refuses it: 403 `forbidden`. A partner
    /// client removed from a campaign loses its sessions' work in it at once, reservations
    /// made before the removal included (docs/security.md, "Revocation across nodes").
    pub async fn require_campaign(
        &self,
        store: &dyn Store,
        client: Uuid,
        campaign: Uuid,
    ) -> Result<()> {
        if self
            .client_may_use_campaign(store, client, campaign)
            .await?
        {
            return Ok(());
        }
        Err(Error::new(
            ProblemType::Forbidden,
            format!("This partner client may not use campaign {campaign}."),
        ))
    }
}

impl std::fmt::Debug for AuthCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthCache")
            .field("interval", &self.interval)
            .field("generation", &self.generation.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}
