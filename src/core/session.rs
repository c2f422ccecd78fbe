//! Live sessions: whether the session behind a verified access token still holds, and what
//! its account may do now. A signature only proves that a token was issued; logout, a reset,
//! refresh-token reuse, deletion, a role change or a ban must count from the next request, so
//! every bearer extractor asks [`Sessions::live`] (through `core::auth`).
//!
//! The database is the truth; answers are cached in process (bounded, with a time to live),
//! and a service announces every change it commits with [`Sessions::changed`], which drops
//! the cached answers it touches before the next request can read them, tells subscribers
//! (open sockets), and carries the change over the cluster bus to every other node, which
//! does the same. A node that may have missed changes (its bus was down) empties its cache;
//! the time to live bounds what is left: an operator's CLI, which runs no bus subscriber.

use super::bus::{Bus, Heard};
use super::config::AuthSettings;
use super::error::ApiError;
use super::jwt::Claims;
use super::role::Role;
use async_trait::async_trait;
use moka::sync::Cache;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::broadcast;
use uuid::Uuid;

/// Which session a token speaks for: its account (`sub`) and its session (`sid`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SessionKey {
    pub account: Uuid,
    pub session: Uuid,
}

impl SessionKey {
    /// The key a token names; None when it names no session (or not as UUIDs).
    pub fn of(claims: &Claims) -> Option<Self> {
        Some(Self {
            account: Uuid::parse_str(&claims.sub).ok()?,
            session: Uuid::parse_str(claims.sid.as_deref()?).ok()?,
        })
    }
}

/// A live session as its service's database has it now.
pub struct Live {
    /// What the account may act as now (not what the token said at login).
    pub roles: Vec<Role>,
    /// The service's snapshot of the account (identity and marketplace: the user row).
    account: Arc<dyn Any + Send + Sync>,
}

impl Live {
    pub fn new<A: Any + Send + Sync>(account: A, roles: Vec<Role>) -> Self {
        Self {
            roles,
            account: Arc::new(account),
        }
    }

    /// The account snapshot, when it is of type `A`.
    pub fn account<A: Any + Send + Sync>(&self) -> Option<Arc<A>> {
        self.account.clone().downcast::<A>().ok()
    }
}

/// Where a service keeps its sessions: asked on a cache miss.
#[async_trait]
pub trait SessionSource: Send + Sync + 'static {
    /// The session as the database has it now; None when it ended or its account is gone.
    async fn load(&self, key: SessionKey) -> Result<Option<Live>, ApiError>;
}

/// Why sessions ended, as open sockets are told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The user signed out (this device or all of them).
    LoggedOut,
    /// The user ended this session from another device.
    Revoked,
    /// A rotated refresh token was presented again: the login may be stolen.
    RefreshTokenReused,
    /// The password or PIN was reset.
    CredentialsReset,
    AccountDeleted,
    Banned,
    /// Staff suspended the account (it may sign in again, to fewer things).
    Suspended,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::LoggedOut => "logged_out",
            Self::Revoked => "revoked",
            Self::RefreshTokenReused => "refresh_token_reused",
            Self::CredentialsReset => "credentials_reset",
            Self::AccountDeleted => "account_deleted",
            Self::Banned => "banned",
            Self::Suspended => "suspended",
        }
    }
}

/// A committed change to sessions or accounts, announced by the service that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// One session ended.
    SessionEnded { key: SessionKey, reason: EndReason },
    /// Every session of the account ended.
    AccountEnded { account: Uuid, reason: EndReason },
    /// The account changed (a role, its profile, its lockout); its sessions go on.
    AccountChanged { account: Uuid },
}

impl Change {
    fn touches(&self, key: &SessionKey) -> bool {
        match *self {
            Self::SessionEnded { key: k, .. } => k == *key,
            Self::AccountEnded { account, .. } | Self::AccountChanged { account } => {
                key.account == account
            }
        }
    }
}

type Answer = Option<Arc<Live>>;

/// The session check of one service: its source, the cache in front of it, and the
/// subscribers to its changes.
pub struct Sessions {
    source: Box<dyn SessionSource>,
    /// None when `session_cache_secs` is 0: every request asks the database.
    cache: Option<Cache<SessionKey, Answer, ahash::RandomState>>,
    /// Counts changes; a load that saw a change while it read is used once, not cached,
    /// since it may have read the state from before the change.
    changes: AtomicU64,
    /// Orders "no change since my read, so cache it" against "a change: drop the cached".
    writing: Mutex<()>,
    /// This node's subscribers (open sockets).
    local: broadcast::Sender<Change>,
    /// The other nodes, when the service shares its changes with them.
    peers: Option<Peers>,
}

struct Peers {
    bus: Bus,
    topic: String,
}

impl Sessions {
    pub fn new(source: impl SessionSource, settings: &AuthSettings) -> Self {
        let cache = (settings.session_cache_secs > 0).then(|| {
            Cache::builder()
                .max_capacity(settings.session_cache_capacity.max(1))
                .time_to_live(Duration::from_secs(settings.session_cache_secs))
                .support_invalidation_closures()
                // Keys are two UUIDs of sessions this service created: aHash, not SipHash.
                .build_with_hasher(ahash::RandomState::new())
        });
        Self {
            source: Box::new(source),
            cache,
            changes: AtomicU64::new(0),
            writing: Mutex::new(()),
            local: broadcast::channel(1024).0,
            peers: None,
        }
    }

    /// These sessions, their changes shared over `bus` with the other nodes' sessions of
    /// the same `name` (the service's listener, so the sandbox's stay apart). Must be
    /// called inside a Tokio runtime when the bus is shared: a task follows the others.
    pub fn across(mut self, bus: &Bus, name: &str) -> Arc<Self> {
        let topic = format!("sessions:{name}");
        let heard = bus.is_shared().then(|| bus.subscribe(&topic));
        self.peers = Some(Peers {
            bus: bus.clone(),
            topic,
        });
        let sessions = Arc::new(self);
        if let Some(heard) = heard {
            tokio::spawn(follow(Arc::downgrade(&sessions), heard));
        }
        sessions
    }

    /// The session `key` if it is live now.
    pub async fn live(&self, key: SessionKey) -> Result<Answer, ApiError> {
        let Some(cache) = &self.cache else {
            return Ok(self.source.load(key).await?.map(Arc::new));
        };
        if let Some(hit) = cache.get(&key) {
            return Ok(hit);
        }
        let seen = self.changes.load(Ordering::Acquire);
        let loaded = self.source.load(key).await?.map(Arc::new);
        let _turn = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        if self.changes.load(Ordering::Acquire) == seen {
            cache.insert(key, loaded.clone());
        }
        Ok(loaded)
    }

    /// Announces a change this node committed: the cached answers it touches are gone
    /// before this returns, here and (when the cluster bus is up) on every other node, and
    /// subscribers hear of it. Call after the commit, never before (a request in between
    /// would cache the old state again).
    pub async fn changed(&self, change: Change) {
        self.forget(change);
        if let Some(peers) = &self.peers {
            if let Err(e) = peers.bus.publish(&peers.topic, &change).await {
                // The other nodes empty their caches when their bus comes back.
                tracing::warn!(error = %e, "a session change was not shared with the other nodes");
            }
        }
    }

    /// Drops the cached answers `change` touches and tells this node's subscribers.
    fn forget(&self, change: Change) {
        if let Some(cache) = &self.cache {
            let _turn = self.writing.lock().unwrap_or_else(|p| p.into_inner());
            self.changes.fetch_add(1, Ordering::AcqRel);
            match change {
                Change::SessionEnded { key, .. } => cache.invalidate(&key),
                Change::AccountEnded { account, .. } | Change::AccountChanged { account } => {
                    // Enabled at build, so this cannot fail; dropping everything is the safe
                    // answer if it ever did.
                    if cache
                        .invalidate_entries_if(move |k, _| k.account == account)
                        .is_err()
                    {
                        cache.invalidate_all();
                    }
                }
            }
        }
        // No subscriber is fine: nobody has a socket open.
        let _ = self.local.send(change);
    }

    /// Drops every cached answer: changes may have been missed.
    fn forget_all(&self) {
        if let Some(cache) = &self.cache {
            let _turn = self.writing.lock().unwrap_or_else(|p| p.into_inner());
            self.changes.fetch_add(1, Ordering::AcqRel);
            cache.invalidate_all();
        }
    }

    /// Changes as they are announced, here or on another node (for closing the sockets of
    /// ended sessions).
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.local.subscribe()
    }
}

/// Applies the changes other nodes announce until the sessions are dropped. A socket of an
/// ended session open here closes as it would for a change made here.
async fn follow(sessions: Weak<Sessions>, mut heard: broadcast::Receiver<Heard>) {
    use broadcast::error::RecvError;
    loop {
        let next = heard.recv().await;
        let Some(sessions) = sessions.upgrade() else {
            return;
        };
        match next {
            Ok(Heard::Message(body)) => match Change::deserialize(&*body) {
                Ok(change) => sessions.forget(change),
                Err(_) => sessions.forget_all(),
            },
            Ok(Heard::Missed) | Err(RecvError::Lagged(_)) => sessions.forget_all(),
            Err(RecvError::Closed) => return,
        }
    }
}

/// Whether `change` ends the session `key` (sockets close; an account change does not).
pub fn ends(change: &Change, key: &SessionKey) -> Option<EndReason> {
    match *change {
        Change::SessionEnded { reason, .. } | Change::AccountEnded { reason, .. }
            if change.touches(key) =>
        {
            Some(reason)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use tokio::sync::Notify;

    /// A source whose answer the test sets, counting its loads; a load can be held open.
    #[derive(Default)]
    struct Source {
        live: Mutex<bool>,
        role: Mutex<Option<Role>>,
        loads: AtomicUsize,
        hold: Mutex<Option<Arc<Notify>>>,
    }

    #[async_trait]
    impl SessionSource for Arc<Source> {
        async fn load(&self, _: SessionKey) -> Result<Option<Live>, ApiError> {
            self.loads.fetch_add(1, Ordering::SeqCst);
            let live = *self.live.lock().expect("lock");
            let roles = self.role.lock().expect("lock").iter().copied().collect();
            let hold = self.hold.lock().expect("lock").clone();
            if let Some(n) = hold {
                n.notified().await;
            }
            Ok(live.then(|| Live::new(7u32, roles)))
        }
    }

    fn settings() -> AuthSettings {
        AuthSettings::default()
    }

    fn key(account: u128, session: u128) -> SessionKey {
        SessionKey {
            account: Uuid::from_u128(account),
            session: Uuid::from_u128(session),
        }
    }

    #[tokio::test]
    async fn answers_are_cached_until_a_change_touches_them() {
        let src = Arc::new(Source::default());
        *src.live.lock().expect("lock") = true;
        let sessions = Sessions::new(src.clone(), &settings());
        let (a, b) = (key(1, 10), key(1, 11));
        let other = key(2, 20);
        for k in [a, b, other, a, b, other] {
            assert!(sessions.live(k).await.expect("load").is_some());
        }
        assert_eq!(src.loads.load(Ordering::SeqCst), 3, "one load per session");
        let live = sessions.live(a).await.expect("load").expect("live");
        assert_eq!(*live.account::<u32>().expect("u32"), 7);
        assert!(live.account::<String>().is_none());

        *src.live.lock().expect("lock") = false;
        sessions
            .changed(Change::SessionEnded {
                key: a,
                reason: EndReason::LoggedOut,
            })
            .await;
        assert!(sessions.live(a).await.expect("load").is_none(), "ended");
        assert!(
            sessions.live(b).await.expect("load").is_some(),
            "still cached"
        );
        sessions
            .changed(Change::AccountEnded {
                account: a.account,
                reason: EndReason::CredentialsReset,
            })
            .await;
        assert!(
            sessions.live(b).await.expect("load").is_none(),
            "account ended"
        );
        assert!(
            sessions.live(other).await.expect("load").is_some(),
            "other account"
        );
    }

    #[tokio::test]
    async fn a_role_change_is_read_on_the_next_check() {
        let src = Arc::new(Source::default());
        *src.live.lock().expect("lock") = true;
        *src.role.lock().expect("lock") = Some(Role::User);
        let sessions = Sessions::new(src.clone(), &settings());
        let k = key(1, 10);
        let roles = |s: &Answer| s.as_ref().expect("live").roles.clone();
        assert_eq!(roles(&sessions.live(k).await.expect("load")), [Role::User]);
        *src.role.lock().expect("lock") = Some(Role::Dealer);
        sessions
            .changed(Change::AccountChanged { account: k.account })
            .await;
        assert_eq!(
            roles(&sessions.live(k).await.expect("load")),
            [Role::Dealer]
        );
    }

    #[tokio::test]
    async fn a_load_that_overlaps_a_change_is_not_cached() {
        let src = Arc::new(Source::default());
        *src.live.lock().expect("lock") = true;
        let gate = Arc::new(Notify::new());
        *src.hold.lock().expect("lock") = Some(gate.clone());
        let sessions = Arc::new(Sessions::new(src.clone(), &settings()));
        let k = key(1, 10);
        // A request reads the session as live, then the session ends before its load returns.
        let slow = tokio::spawn({
            let s = sessions.clone();
            async move { s.live(k).await.expect("load").is_some() }
        });
        while src.loads.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        *src.live.lock().expect("lock") = false;
        *src.hold.lock().expect("lock") = None;
        sessions
            .changed(Change::SessionEnded {
                key: k,
                reason: EndReason::Revoked,
            })
            .await;
        gate.notify_one();
        assert!(slow.await.expect("joined"), "it read before the change");
        assert!(
            sessions.live(k).await.expect("load").is_none(),
            "the stale answer was not cached"
        );
    }

    #[test]
    fn only_ending_changes_end_a_session() {
        let k = key(1, 10);
        let ended = Change::AccountEnded {
            account: k.account,
            reason: EndReason::Banned,
        };
        assert_eq!(ends(&ended, &k), Some(EndReason::Banned));
        assert_eq!(ends(&ended, &key(2, 10)), None);
        assert_eq!(
            ends(&Change::AccountChanged { account: k.account }, &k),
            None
        );
    }
}
