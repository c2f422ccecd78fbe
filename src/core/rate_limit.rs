//! Rate limiting: each service's declared limits (per route, per caller, per phone) and the
//! one middleware that applies them, counting in a `core::rate_store` over a sliding window
//! ("N per window" holds over every span of the window's length, not per calendar window, so
//! no burst on each side of a boundary gets 2N through). Decisions ride in request
//! extensions so one middleware can write the `X-RateLimit-*` headers of the tightest limit
//! that applied to the request.

use super::clock::SharedClock;
use super::config::LimitSettings;
use super::error::{ApiError, Kind};
use super::http::pass_unless;
pub use super::rate_store::{Decision, Hit, MemoryStore, Outage, RateLimitStore};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpRequest};
use std::sync::Arc;

/// How long a client refused because its limit could not be counted is asked to wait.
const UNCOUNTED_RETRY_SECS: i64 = 5;

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

/// The two limits on requests about one phone (see [`Limits::check_phone`]; codes sent to
/// it: `core::code_limits`).
#[derive(Debug, Clone, Copy)]
pub struct PhoneLimit {
    /// Per (phone, sender's address).
    pub per_sender: LimitSettings,
    /// Per phone, from every address together; set above `per_sender`.
    pub per_phone: LimitSettings,
}

/// A hit counted by [`Limits::take`], to record or give back.
pub(super) struct Taken {
    key: String,
    pub decision: Decision,
    hit: Option<Hit>,
}

/// Who a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    /// The client's address (`core::client::ip`, proxies resolved; an IPv6 caller's /64).
    Ip,
    /// The account behind the caller's verified bearer token (every login of it shares one
    /// budget); the address when the request carries none. Only a genuine token earns its
    /// own bucket: keyed by anything the caller sends, a fresh made-up value per request
    /// would dodge the limit, and keyed by login, each fresh sign-in would bring a fresh
    /// budget.
    Caller,
}

/// One declared limit: requests of `method` to the route `pattern` count in `bucket`.
#[derive(Debug, Clone)]
pub struct Rule {
    pub method: Method,
    pub pattern: &'static str,
    pub bucket: &'static str,
    pub limit: LimitSettings,
    pub per: Per,
    /// What the limit does while the cluster's counters cannot be reached.
    pub outage: Outage,
}

impl Rule {
    pub fn new(
        method: Method,
        pattern: &'static str,
        bucket: &'static str,
        limit: LimitSettings,
        per: Per,
    ) -> Self {
        Self {
            method,
            pattern,
            bucket,
            limit,
            per,
            outage: Outage::CountLocally,
        }
    }

    /// Refused (503) while the cluster's counters cannot be reached: sign-in and the like,
    /// where an uncounted burst is a burst of guesses.
    pub fn refused_when_unreachable(mut self) -> Self {
        self.outage = Outage::Refuse;
        self
    }
}

/// A service's limits, registered as app data on its listener: the rules of its routes and
/// the default for every other request (unknown routes included). [`middleware`] applies
/// them before routing; [`Limits::check`] counts a limit keyed by something a handler
/// parsed (a phone number, a workspace).
#[derive(Clone)]
pub struct Limits {
    service: &'static str,
    rules: Vec<Rule>,
    exempt: Vec<&'static str>,
    default: Option<(LimitSettings, Per)>,
    store: Arc<dyn RateLimitStore>,
    clock: SharedClock,
}

impl Limits {
    pub fn new(service: &'static str, store: Arc<dyn RateLimitStore>, clock: SharedClock) -> Self {
        Self {
            service,
            rules: Vec::new(),
            exempt: Vec::new(),
            default: None,
            store,
            clock,
        }
    }

    /// `service`'s limits, counted in the context's store on its clock (rules added by the
    /// service).
    pub fn of_service(service: &'static str, core: &super::CoreContext) -> Self {
        Self::new(service, core.limiter.clone(), core.clock.clone())
    }

    pub fn rule(mut self, rule: Rule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Every rule of `rules`, in order.
    pub fn rules(self, rules: impl IntoIterator<Item = Rule>) -> Self {
        rules.into_iter().fold(self, Self::rule)
    }

    /// Routes the default does not cover (Socket.IO transport, which has its own limits).
    pub fn exempt(mut self, pattern: &'static str) -> Self {
        self.exempt.push(pattern);
        self
    }

    pub fn default_limit(mut self, limit: LimitSettings, per: Per) -> Self {
        self.default = Some((limit, per));
        self
    }

    /// Counts one hit of `bucket` for `subject`; refused with Retry-After when over.
    pub async fn check(
        &self,
        req: &HttpRequest,
        bucket: &str,
        limit: LimitSettings,
        subject: &str,
    ) -> Result<(), ApiError> {
        self.count(req, (bucket, limit, Outage::CountLocally), &[subject])
            .await
    }

    /// [`Self::check`] for the subject `parts` joined by `:`; the key
    /// `service:bucket:parts…` is put together on the stack, not allocated per request.
    async fn count(
        &self,
        req: &HttpRequest,
        (bucket, limit, outage): (&str, LimitSettings, Outage),
        parts: &[&str],
    ) -> Result<(), ApiError> {
        let (mut stack, mut heap) = ([0u8; 192], String::new());
        let pieces = [self.service, bucket]
            .into_iter()
            .chain(parts.iter().copied());
        let key = join(pieces, &mut stack, &mut heap);
        let now = self.clock.now();
        let Some((decision, _)) = self.store.hit(key, limit, now, outage).await else {
            return Err(uncounted());
        };
        record(req, decision);
        if decision.allowed {
            Ok(())
        } else {
            Err(ApiError::rate_limited(decision.retry_after_secs(now)))
        }
    }

    /// Counts one code sent to `phone` twice: under `limit.per_sender`, keyed by the phone
    /// and the caller's address, and under the higher `limit.per_phone` ceiling, keyed by the
    /// phone alone. One sender spends only their own share, so nobody can spend a stranger's
    /// budget (and block their sign-in or password reset) from one address, while many
    /// senders together still cannot flood a phone with texts.
    pub async fn check_phone(
        &self,
        req: &HttpRequest,
        bucket: &str,
        limit: PhoneLimit,
        phone: &str,
    ) -> Result<(), ApiError> {
        let sender = format!("{phone}@{}", super::client::limit_key(req));
        let sender_bucket = format!("{bucket}_sender");
        let per_sender = (sender_bucket.as_str(), limit.per_sender, Outage::Refuse);
        self.count(req, per_sender, &[&sender]).await?;
        self.count(req, (bucket, limit.per_phone, Outage::Refuse), &[phone])
            .await
    }

    /// Counts one hit of `bucket` for the subject `parts` (refused while the cluster's
    /// counters cannot be reached), neither recorded for the headers nor refused when over:
    /// the caller decides, and gives the hit back ([`Self::give_back`]) if what it counted
    /// did not happen.
    pub(super) async fn take(
        &self,
        bucket: &str,
        limit: LimitSettings,
        parts: &[&str],
    ) -> Result<Taken, ApiError> {
        let key = [self.service, bucket]
            .into_iter()
            .chain(parts.iter().copied())
            .collect::<Vec<_>>()
            .join(":");
        let now = self.clock.now();
        let (decision, hit) = self
            .store
            .hit(&key, limit, now, Outage::Refuse)
            .await
            .ok_or_else(uncounted)?;
        Ok(Taken { key, decision, hit })
    }

    /// Takes back what [`Self::take`] counted.
    pub(super) async fn give_back(&self, taken: Taken) {
        if let Some(hit) = &taken.hit {
            self.store.give_back(&taken.key, hit).await;
        }
    }

    /// The time the limits count on.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// The service's limits on this request.
    pub fn of(req: &HttpRequest) -> Result<&Self, ApiError> {
        req.app_data::<web::Data<Self>>()
            .map(|d| d.get_ref())
            .ok_or_else(|| ApiError::internal(std::io::Error::other("limits not registered")))
    }

    fn policy(&self, req: &HttpRequest) -> Option<(&'static str, LimitSettings, Per, Outage)> {
        if never_limited(req.path()) {
            return None;
        }
        let route = super::http::matched_route(req);
        if route.as_deref().is_some_and(|r| self.exempt.contains(&r)) {
            return None;
        }
        self.rules
            .iter()
            .find(|r| r.method == req.method() && route.as_deref() == Some(r.pattern))
            .map(|r| (r.bucket, r.limit, r.per, r.outage))
            .or_else(|| {
                let (limit, per) = self.default?;
                Some(("default", limit, per, Outage::CountLocally))
            })
    }
}

/// Refused, since the cluster's counters cannot be reached.
fn uncounted() -> ApiError {
    ApiError::new(
        Kind::Unavailable,
        "this request cannot be counted against its rate limit right now; try again shortly",
    )
    .retry_after(UNCOUNTED_RETRY_SECS)
}

/// `pieces` joined by `:`, in `stack` when they fit (always, for the keys of routes), else in
/// `heap`.
fn join<'a, 'p>(
    pieces: impl Iterator<Item = &'p str> + Clone,
    stack: &'a mut [u8; 192],
    heap: &'a mut String,
) -> &'a str {
    let len = pieces.clone().map(|p| p.len() + 1).sum::<usize>();
    if len > stack.len() {
        *heap = pieces.collect::<Vec<_>>().join(":");
        return heap;
    }
    let mut at = 0;
    for p in pieces {
        if at > 0 {
            stack[at] = b':';
            at += 1;
        }
        stack[at..at + p.len()].copy_from_slice(p.as_bytes());
        at += p.len();
    }
    // Whole strings and ASCII colons: always UTF-8.
    std::str::from_utf8(&stack[..at]).unwrap_or_default()
}

/// Who is calling, for a [`Per::Caller`] limit: the claims of a genuine token.
fn caller(req: &HttpRequest) -> Option<Arc<super::jwt::Claims>> {
    let auth = super::auth::Auth::of(req).ok()?;
    auth.shared_claims(req).ok()?
}

/// Probes and documentation are never limited: a load balancer checking `/health` every
/// few seconds, or a client reading the API document, must not spend anyone's budget.
fn never_limited(path: &str) -> bool {
    matches!(
        path,
        "/health" | "/api/v1/health" | "/livez" | "/readyz" | "/api-docs"
    ) || path.starts_with("/api-docs/")
}

/// The one rate-limit middleware of every listener: the declared limit of the matched route
/// (or the service's default) before the handler runs.
pub async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let limits = req.app_data::<web::Data<Limits>>().cloned();
    let Some((limits, (bucket, limit, per, outage))) =
        limits.and_then(|l| l.policy(req.request()).map(|p| (l, p)))
    else {
        return pass_unless(req, next, None).await;
    };
    let claims = match per {
        Per::Caller => caller(req.request()),
        Per::Ip => None,
    };
    let address;
    let who = match &claims {
        Some(c) => ["a", c.sub.as_str()],
        None => {
            address = super::client::limit_key(req.request());
            ["ip", address.as_str()]
        }
    };
    let refused = limits
        .count(req.request(), (bucket, limit, outage), &who)
        .await
        .err();
    pass_unless(req, next, refused).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;
    use chrono::{DateTime, Utc};

    fn at(ms: i64) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(ms).expect("valid time")
    }

    #[test]
    fn keys_are_joined_on_the_stack_or_the_heap_alike() {
        let (mut stack, mut heap) = ([0u8; 192], String::new());
        let short = ["identity", "default", "a", "u1"];
        assert_eq!(
            join(short.into_iter(), &mut stack, &mut heap),
            "identity:default:a:u1"
        );
        let long = "x".repeat(300);
        let (mut stack, mut heap) = ([0u8; 192], String::new());
        let key = join(["s", "b", long.as_str()].into_iter(), &mut stack, &mut heap);
        assert_eq!(key, format!("s:b:{long}"));
    }

    #[actix_web::test]
    async fn no_span_of_one_window_admits_more_than_the_limit() {
        let store = MemoryStore::default();
        let limit = LimitSettings::new(3, 3600);
        // Three just before an hour boundary, then a minute later, after the boundary.
        // 1_800_000_000_000 ms is a whole hour (500,000 h) since the epoch.
        let boundary: i64 = 1_800_000_000_000;
        for i in 0..3 {
            let d = store.count("k", limit, at(boundary - 30_000 + i));
            assert!(d.allowed, "hit {i}");
        }
        let d = store.count("k", limit, at(boundary + 30_000));
        assert!(!d.allowed, "a fixed window would reset at the boundary");
        assert_eq!(d.remaining, 0);
        // The first hit leaves the window an hour after it was made, not at the boundary.
        assert_eq!(d.reset, (boundary - 30_000 + 3_600_000) / 1000);
        let later = at(boundary - 30_000 + 3_600_000);
        let before = later - Duration::milliseconds(1);
        assert!(!store.count("k", limit, before).allowed, "not before");
        let d = store.count("k", limit, later);
        assert!(d.allowed, "one slot freed");
        assert_eq!(d.remaining, 0);
    }

    #[actix_web::test]
    async fn hits_of_one_millisecond_count_apart_and_leave_together() {
        let store = MemoryStore::default();
        let limit = LimitSettings::new(5, 1);
        let t0 = 1_800_000_000_000;
        for i in 0..5 {
            let d = store.count("k", limit, at(t0 + i / 3));
            assert!(d.allowed, "hit {i}");
            assert_eq!(d.remaining, 4 - i as u32);
        }
        assert!(!store.count("k", limit, at(t0 + 999)).allowed);
        // The three hits of t0 leave at once; the two of t0 + 1 stay a millisecond longer.
        let d = store.count("k", limit, at(t0 + 1000));
        assert!(d.allowed);
        assert_eq!(d.remaining, 2);
        assert_eq!(d.reset, (t0 + 1 + 1000 + 999).div_euclid(1000));
    }

    #[actix_web::test]
    async fn a_hit_given_back_frees_its_slot_at_once() {
        let store = MemoryStore::default();
        let limit = LimitSettings::new(2, 3600);
        let t0 = at(1_800_000_000_000);
        let (first, hit) = store.hit("k", limit, t0, Outage::Refuse).await.unwrap();
        assert!(first.allowed);
        // A second hit of the same millisecond shares its entry; one of them goes back.
        let (second, _) = store.hit("k", limit, t0, Outage::Refuse).await.unwrap();
        assert_eq!(second.remaining, 0);
        assert!(store.give_back("k", &hit.unwrap()).await);
        let (third, again) = store.hit("k", limit, t0, Outage::Refuse).await.unwrap();
        assert!(third.allowed, "the slot given back is free");
        assert_eq!(third.remaining, 0);
        let (fourth, none) = store.hit("k", limit, t0, Outage::Refuse).await.unwrap();
        assert!(
            !fourth.allowed && none.is_none(),
            "a refused hit has nothing to give"
        );
        assert_eq!(fourth.frees_at_ms, 1_800_000_000_000 + 3_600_000);
        // Giving back to another key, or a hit already gone, changes nothing.
        assert!(store.give_back("other", again.as_ref().unwrap()).await);
        assert!(!store.count("k", limit, t0).allowed);
    }

    #[actix_web::test]
    async fn refused_hits_do_not_extend_the_wait_and_keys_are_apart() {
        let store = MemoryStore::default();
        let limit = LimitSettings::new(2, 60);
        let t0 = 1_800_000_000_000;
        assert!(store.count("a", limit, at(t0)).allowed);
        assert!(store.count("a", limit, at(t0 + 1)).allowed);
        for i in 1..50 {
            assert!(!store.count("a", limit, at(t0 + i * 1000)).allowed);
        }
        assert!(store.count("b", limit, at(t0 + 2)).allowed, "other key");
        assert!(store.count("a", limit, at(t0 + 60_000)).allowed);
    }
}
