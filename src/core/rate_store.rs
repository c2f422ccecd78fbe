//! Where rate-limit hits are counted: the [`RateLimitStore`] trait and its in-memory store, a
//! sliding window per key ("N per window" holds over every span of the window's length). The
//! rules and the middleware that ask it are in `core::rate_limit`; a shared store for many
//! nodes slots in behind the same trait. A hit let through can be given back, for limits
//! that count only what happened (`core::code_limits`: codes actually sent).

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
    /// The same to the millisecond (`reset` is it rounded up).
    pub frees_at_ms: i64,
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

/// What a limit does while its shared store cannot be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outage {
    /// Counts on this node alone meanwhile (each node allows the limit): reads and ordinary
    /// writes go on.
    CountLocally,
    /// Refuses (503): codes sent by SMS and sign-in attempts, where an uncounted burst costs
    /// money or guesses.
    Refuse,
}

/// One hit a store let through, by which [`RateLimitStore::give_back`] finds it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    at_ms: i64,
    /// Its member of the Redis set; None when it was counted in this process.
    member: Option<String>,
}

#[async_trait]
pub trait RateLimitStore: Send + Sync + 'static {
    /// Counts one hit against `key` and says whether it is within `limit`, with the hit when
    /// it was let through; None when the store cannot count it and `outage` says to refuse.
    async fn hit(
        &self,
        key: &str,
        limit: LimitSettings,
        now: DateTime<Utc>,
        outage: Outage,
    ) -> Option<(Decision, Option<Hit>)>;

    /// Takes back `hit` of `key` (what it counted did not happen): the slot is free again
    /// at once, not when the hit would have left the window. Answers whether the store
    /// could; a hit it could not take back stays counted, erring on the safe side.
    async fn give_back(&self, key: &str, hit: &Hit) -> bool;
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
    async fn hit(
        &self,
        key: &str,
        limit: LimitSettings,
        now: DateTime<Utc>,
        _: Outage,
    ) -> Option<(Decision, Option<Hit>)> {
        let decision = self.count(key, limit, now);
        Some((decision, decision.allowed.then(|| Hit::local(now))))
    }

    async fn give_back(&self, key: &str, hit: &Hit) -> bool {
        self.forget(key, hit.at_ms);
        true
    }
}

impl Hit {
    fn local(now: DateTime<Utc>) -> Self {
        Self {
            at_ms: now.timestamp_millis(),
            member: None,
        }
    }
}

impl MemoryStore {
    /// Counts one hit against `key` in this process.
    pub fn count(&self, key: &str, limit: LimitSettings, now: DateTime<Utc>) -> Decision {
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
            decision(allowed, limit, used, oldest.saturating_add(window_ms))
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

    /// Takes back one hit of `key` made at `at_ms`, if it is still in the window.
    pub fn forget(&self, key: &str, at_ms: i64) {
        let Some(mut log) = self.logs.get_mut(key) else {
            return;
        };
        // Hits are given back moments after they were made: search from the newest.
        let Some(i) = log.hits.iter().rposition(|&(t, _)| t == at_ms) else {
            return;
        };
        log.count -= 1;
        match log.hits.get_mut(i) {
            Some((_, n)) if *n > 1 => *n -= 1,
            _ => {
                log.hits.remove(i);
            }
        }
    }
}

/// The decision on a hit: `used` slots of `limit` taken, the next one free at `frees_at_ms`.
fn decision(allowed: bool, limit: LimitSettings, used: u32, frees_at_ms: i64) -> Decision {
    Decision {
        allowed,
        limit: limit.limit,
        remaining: limit.limit.saturating_sub(used),
        // Rounded up: a client waiting until then is never early.
        reset: (frees_at_ms + 999).div_euclid(1000),
        frees_at_ms,
    }
}

/// One sliding window in a Redis sorted set, atomically: drop the hits that left the window,
/// count the rest, add this one when under the limit, keep the key only as long as the
/// window. Answers [allowed (0/1), hits in the window, oldest hit (ms)].
const SLIDING_WINDOW: &str = r"
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local used = redis.call('ZCARD', key)
local allowed = 0
if used < limit then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window)
  used = used + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2] or now
return {allowed, used, tonumber(oldest)}
";

/// The counters every node shares (`[cluster] redis_url`): the same sliding window as
/// [`MemoryStore`], each hit one atomic script on Redis, so N per window holds across the
/// cluster. While Redis cannot be reached a limit counts on this node or refuses, as its
/// [`Outage`] says.
pub struct RedisStore {
    redis: redis::aio::ConnectionManager,
    script: redis::Script,
    /// Where limits that go on during an outage count meanwhile.
    local: MemoryStore,
    /// Keys are `<prefix><service>:<bucket>:<subject>`.
    prefix: String,
}

impl RedisStore {
    pub fn new(redis: redis::aio::ConnectionManager) -> Self {
        Self {
            redis,
            script: redis::Script::new(SLIDING_WINDOW),
            local: MemoryStore::default(),
            prefix: "switchboard:rate:".to_owned(),
        }
    }

    async fn count(
        &self,
        key: &str,
        limit: LimitSettings,
        now: DateTime<Utc>,
    ) -> redis::RedisResult<(Decision, Option<Hit>)> {
        let window_ms = limit.window_secs.max(1).saturating_mul(1000);
        let now_ms = now.timestamp_millis();
        // Unique per hit: two hits of one millisecond are two members.
        let member = format!("{now_ms}:{}", super::secrets::random_hex(6));
        let (allowed, used, oldest): (i64, i64, i64) = self
            .script
            .key(format!("{}{key}", self.prefix))
            .arg(now_ms)
            .arg(window_ms)
            .arg(limit.limit)
            .arg(&member)
            .invoke_async(&mut self.redis.clone())
            .await?;
        let window_ms = i64::try_from(window_ms).unwrap_or(i64::MAX);
        let used = u32::try_from(used).unwrap_or(u32::MAX);
        let decision = decision(allowed == 1, limit, used, oldest.saturating_add(window_ms));
        let hit = decision.allowed.then_some(Hit {
            at_ms: now_ms,
            member: Some(member),
        });
        Ok((decision, hit))
    }
}

#[async_trait]
impl RateLimitStore for RedisStore {
    async fn hit(
        &self,
        key: &str,
        limit: LimitSettings,
        now: DateTime<Utc>,
        outage: Outage,
    ) -> Option<(Decision, Option<Hit>)> {
        match self.count(key, limit, now).await {
            Ok(counted) => Some(counted),
            Err(e) => {
                tracing::warn!(error = %e, ?outage, "rate-limit store unreachable");
                match outage {
                    Outage::CountLocally => self.local.hit(key, limit, now, outage).await,
                    Outage::Refuse => None,
                }
            }
        }
    }

    async fn give_back(&self, key: &str, hit: &Hit) -> bool {
        let Some(member) = &hit.member else {
            return self.local.give_back(key, hit).await;
        };
        let removed: redis::RedisResult<i64> = redis::cmd("ZREM")
            .arg(format!("{}{key}", self.prefix))
            .arg(member)
            .query_async(&mut self.redis.clone())
            .await;
        match removed {
            Ok(_) => true,
            Err(e) => {
                tracing::warn!(error = %e, "rate-limit store unreachable; a hit stays counted");
                false
            }
        }
    }
}
