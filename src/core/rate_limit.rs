//! Fixed-window rate limiting behind a store trait (in memory here; a Redis store slots in
//! for many nodes). Decisions ride in request extensions so one middleware can write the
//! `X-RateLimit-*` headers of the tightest limit that applied to the request.

use super::config::LimitSettings;
use actix_web::HttpMessage;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Unix time (seconds) at which the window resets.
    pub reset: i64,
}

impl Decision {
    pub fn retry_after_secs(&self, now: DateTime<Utc>) -> i64 {
        (self.reset - now.timestamp()).max(1)
    }

    /// Whether this decision says less room is left than `other`.
    fn tighter_than(&self, other: &Decision) -> bool {
        (!self.allowed && other.allowed)
            || (self.allowed == other.allowed && self.remaining < other.remaining)
    }
}

#[async_trait]
pub trait RateLimitStore: Send + Sync + 'static {
    /// Counts one hit against `key` and says whether it is within `limit`.
    async fn hit(&self, key: &str, limit: LimitSettings, now: DateTime<Utc>) -> Decision;
}

#[derive(Default)]
pub struct MemoryStore {
    windows: DashMap<String, (i64, u32)>,
    hits: AtomicU64,
}

#[async_trait]
impl RateLimitStore for MemoryStore {
    async fn hit(&self, key: &str, limit: LimitSettings, now: DateTime<Utc>) -> Decision {
        let window = limit.window_secs.max(1) as i64;
        let now_s = now.timestamp();
        let start = now_s - now_s.rem_euclid(window);
        let count = {
            let mut entry = self.windows.entry(key.to_owned()).or_insert((start, 0));
            if entry.0 != start {
                *entry = (start, 0);
            }
            entry.1 = entry.1.saturating_add(1);
            entry.1
        };
        // Occasionally drop windows that have ended so memory stays bounded.
        if self.hits.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
            self.windows.retain(|_, (s, _)| *s + 86_400 > now_s);
        }
        Decision {
            allowed: count <= limit.limit,
            limit: limit.limit,
            remaining: limit.limit.saturating_sub(count),
            reset: start + window,
        }
    }
}

/// The tightest decision taken for the current request.
#[derive(Debug, Clone, Copy)]
pub struct AppliedLimit(pub Decision);

/// Records `decision` on the request so the headers middleware can report it.
pub fn record(req: &impl HttpMessage, decision: Decision) {
    let mut ext = req.extensions_mut();
    let replace = match ext.get::<AppliedLimit>() {
        Some(AppliedLimit(prev)) => decision.tighter_than(prev),
        None => true,
    };
    if replace {
        ext.insert(AppliedLimit(decision));
    }
}

/// The entry of a service's limit table for this request's method and matched route
/// ([`super::http::matched_route`]); never the raw path, which percent-encoding disguises.
pub fn by_route<'a, P>(
    req: &actix_web::HttpRequest,
    table: &'a [(actix_web::http::Method, &str, P)],
) -> Option<&'a P> {
    let route = super::http::matched_route(req)?;
    table
        .iter()
        .find(|(method, pattern, _)| method == req.method() && *pattern == route)
        .map(|(_, _, policy)| policy)
}
