//! Where rate-limit hits are counted: the [`RateLimitStore`] trait and its in-memory store, a
//! sliding window per key ("N per window" holds over every span of the window's length). The
//! rules and the middleware that ask it are in `core::rate_limit`; a shared store for many
//! nodes slots in behind the same trait.

use super::config::LimitSettings;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Unix time (seconds) at which the next slot frees up.
    pub reset: i64,
}

impl Decision {
    pub fn retry_after_secs(&self, now: DateTime<Utc>) -> i64 {
        (self.reset - now.timestamp()).max(1)
    }

    /// Whether this decision says less room is left than `other`.
    pub(super) fn tighter_than(&self, other: &Decision) -> bool {
        (!self.allowed && other.allowed)
            || (self.allowed == other.allowed && self.remaining < other.remaining)
    }
}

#[async_trait]
pub trait RateLimitStore: Send + Sync + 'static {
    /// Counts one hit against `key` and says whether it is within `limit`.
    async fn hit(&self, key: &str, limit: LimitSettings, now: DateTime<Utc>) -> Decision;
}

/// The hits let through during the last window, oldest first, as (time in ms, how many in
/// that millisecond): as exact as one entry per hit, since hits of one millisecond leave the
/// window together, and memory per key is bounded by both the limit and the window's
/// milliseconds (a raised limit under heavy load keeps thousands of entries, not millions).
struct Log {
    window_ms: i64,
    hits: VecDeque<(i64, u32)>,
    /// The sum of the counts in `hits`.
    count: u64,
}

#[derive(Default)]
pub struct MemoryStore {
    /// aHash (keyed at random per process), not SipHash: a key is hashed on every request.
    logs: DashMap<String, Log, ahash::RandomState>,
    calls: AtomicU64,
}

#[async_trait]
impl RateLimitStore for MemoryStore {
    async fn hit(&self, key: &str, limit: LimitSettings, now: DateTime<Utc>) -> Decision {
        let window_ms = limit.window_secs.max(1).saturating_mul(1000) as i64;
        let now_ms = now.timestamp_millis();
        let decision = {
            // A known key is found without allocating its name again.
            let mut log = match self.logs.get_mut(key) {
                Some(log) => log,
                None => self.logs.entry(key.to_owned()).or_insert_with(|| Log {
                    window_ms,
                    hits: VecDeque::new(),
                    count: 0,
                }),
            };
            log.window_ms = window_ms;
            while let Some(&(t, n)) = log.hits.front() {
                if t > now_ms - window_ms {
                    break;
                }
                log.hits.pop_front();
                log.count -= u64::from(n);
            }
            let allowed = log.count < u64::from(limit.limit);
            if allowed {
                match log.hits.back_mut() {
                    Some((t, n)) if *t == now_ms => *n += 1,
                    _ => log.hits.push_back((now_ms, 1)),
                }
                log.count += 1;
            }
            // Refused hits are not logged: a caller that keeps knocking gets in again once
            // the window has moved past its earlier hits.
            let oldest = log.hits.front().map_or(now_ms, |&(t, _)| t);
            let used = u32::try_from(log.count).unwrap_or(u32::MAX);
            Decision {
                allowed,
                limit: limit.limit,
                remaining: limit.limit.saturating_sub(used),
                // Rounded up: a client waiting until then is never early.
                reset: (oldest + window_ms + 999).div_euclid(1000),
            }
        };
        // Now and then drop logs whose every hit has left its window, so memory stays bounded.
        if self.calls.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
            self.logs.retain(|_, log| {
                log.hits
                    .back()
                    .is_some_and(|&(t, _)| t > now_ms - log.window_ms)
            });
        }
        decision
    }
}
