//! Credentials, parsed in one place: the bearer token of `Authorization` (verified, with
//! role checks), a service API key and an admin key. Each service registers an [`Auth`] with
//! its token type, its keys and its error codes; extractors read it, so no handler parses a
//! header. A service with sessions registers its [`Sessions`]: every bearer extractor then
//! asks whether the session behind the token is live and takes the account's roles as they
//! are now, not as the token says. Resolving a key to a record (the workspace behind a key)
//! stays with the service, which owns those records.

use super::clock::SharedClock;
use super::error::ApiError;
use super::jwt::{Claims, JwtError, JwtKeys};
pub use super::role::Role;
use super::secrets::constant_time_eq;
use super::session::{Live, SessionKey, Sessions};
use actix_web::dev::Payload;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use futures_util::future::LocalBoxFuture;
use std::future::{ready, Ready};
use std::marker::PhantomData;
use std::sync::Arc;

/// How a service words credential failures (its codes and messages).
#[derive(Clone, Copy)]
pub struct AuthErrors {
    /// No credential where one is required (`what` names it: "Authorization", "X-API-Key").
    pub missing: fn(what: &'static str) -> ApiError,
    /// A bearer token that is malformed, forged, of another type or expired.
    pub invalid_token: fn(JwtError) -> ApiError,
    /// A valid token without the role the operation needs.
    pub forbidden: fn(needed: &'static [Role]) -> ApiError,
    /// A key that does not match.
    pub invalid_key: fn(what: &'static str) -> ApiError,
}

/// A service's credentials policy, registered as app data on its listener.
#[derive(Clone)]
pub struct Auth {
    pub jwt: JwtKeys,
    pub clock: SharedClock,
    /// The `typ` claims this service accepts (tokens of other services are refused). A
    /// service with several kinds of account names each; roles tell them apart after.
    pub token_types: &'static [&'static str],
    /// The service key (`X-API-Key`) when it is one configured secret.
    pub api_key: Option<String>,
    /// The admin key (`X-Admin-Key`).
    pub admin_key: Option<String>,
    pub errors: AuthErrors,
    /// The service's sessions, when its tokens name one (`sid`): checked on every request.
    pub sessions: Option<Arc<Sessions>>,
}

pub const API_KEY_HEADER: &str = "X-API-Key";
pub const ADMIN_KEY_HEADER: &str = "X-Admin-Key";

impl Auth {
    /// A policy for tokens of `token_types` signed with the process's keys; no API or admin
    /// key.
    pub fn new(
        core: &super::CoreContext,
        token_types: &'static [&'static str],
        errors: AuthErrors,
    ) -> Self {
        Self {
            jwt: core.jwt.clone(),
            clock: core.clock.clone(),
            token_types,
            api_key: None,
            admin_key: None,
            errors,
            sessions: None,
        }
    }

    /// Tokens of this service name a session, which must be live on every request.
    pub fn with_sessions(mut self, sessions: Arc<Sessions>) -> Self {
        self.sessions = Some(sessions);
        self
    }

    /// The configured service key (`X-API-Key`) alone.
    pub fn with_api_key(mut self, api_key: &str) -> Self {
        self.api_key = Some(api_key.to_owned());
        self
    }

    /// The configured service and admin keys (`X-API-Key`, `X-Admin-Key`).
    pub fn with_keys(mut self, api_key: &str, admin_key: &str) -> Self {
        self.api_key = Some(api_key.to_owned());
        self.admin_key = Some(admin_key.to_owned());
        self
    }

    pub fn of(req: &HttpRequest) -> Result<&Self, ApiError> {
        Self::data(req).map(|d| d.get_ref())
    }

    fn data(req: &HttpRequest) -> Result<&web::Data<Self>, ApiError> {
        req.app_data::<web::Data<Self>>()
            .ok_or_else(|| ApiError::internal(std::io::Error::other("auth policy not registered")))
    }

    /// Verifies a bearer token of this service's type against the injected clock.
    pub fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        self.jwt
            .verify(token, self.token_types, self.clock.now())
            .map_err(self.errors.invalid_token)
    }

    /// The verified claims of the request's bearer token, None without one. Verified once
    /// per request: the rate limiter and the extractors share the answer (and its memory:
    /// the claims are the verified-token memo's own, not a copy).
    pub fn shared_claims(&self, req: &HttpRequest) -> Result<Option<Arc<Claims>>, ApiError> {
        let known = req.extensions().get::<Verified>().map(|v| v.0.clone());
        let outcome = known.unwrap_or_else(|| {
            let outcome = bearer_str(req).and_then(|token| {
                token
                    .map(|t| {
                        self.jwt
                            .verify_shared(t, self.token_types, self.clock.now())
                    })
                    .transpose()
            });
            req.extensions_mut().insert(Verified(outcome.clone()));
            outcome
        });
        outcome.map_err(self.errors.invalid_token)
    }

    /// Whether the session behind `claims` is live now (services without sessions: yes),
    /// with the account's current roles put in place of the token's (copied only when they
    /// differ).
    pub async fn admit(&self, mut claims: Arc<Claims>) -> Result<Admitted, ApiError> {
        let Some(sessions) = &self.sessions else {
            return Ok(Admitted { claims, live: None });
        };
        let ended = || (self.errors.invalid_token)(JwtError::Revoked);
        let key = SessionKey::of(&claims).ok_or_else(ended)?;
        let live = sessions.live(key).await?.ok_or_else(ended)?;
        if claims.roles != live.roles {
            Arc::make_mut(&mut claims).roles.clone_from(&live.roles);
        }
        Ok(Admitted {
            claims,
            live: Some(live),
        })
    }

    /// A token (from a socket handshake) verified and admitted.
    pub async fn admit_token(&self, token: &str) -> Result<Admitted, ApiError> {
        let claims = self
            .jwt
            .verify_shared(token, self.token_types, self.clock.now())
            .map_err(self.errors.invalid_token)?;
        self.admit(claims).await
    }

    /// Whether `presented` is the configured key (constant time; no key configured: no).
    fn matches(configured: Option<&str>, presented: Option<&str>) -> bool {
        match (configured, presented) {
            (Some(k), Some(p)) if !k.is_empty() => constant_time_eq(k.as_bytes(), p.as_bytes()),
            _ => false,
        }
    }
}

/// The outcome of verifying the request's bearer token, kept on the request.
struct Verified(Result<Option<Arc<Claims>>, JwtError>);

/// A verified token whose session is live.
pub struct Admitted {
    /// The token's claims, its roles those of the account now.
    pub claims: Arc<Claims>,
    /// The live session (None for services whose tokens name none).
    pub live: Option<Arc<Live>>,
}

impl Admitted {
    /// The service's snapshot of the account, when it keeps one of type `A`.
    pub fn account<A: std::any::Any + Send + Sync>(&self) -> Option<Arc<A>> {
        self.live.as_ref().and_then(|l| l.account::<A>())
    }
}

/// The credential carried by `Authorization`: None when absent; an error when present but
/// not `Bearer <token>`, so a malformed credential is never passed over for another one.
pub fn bearer_token<'a>(req: &'a HttpRequest, auth: &Auth) -> Result<Option<&'a str>, ApiError> {
    bearer_str(req).map_err(auth.errors.invalid_token)
}

fn bearer_str(req: &HttpRequest) -> Result<Option<&str>, JwtError> {
    let Some(value) = req.headers().get(AUTHORIZATION) else {
        return Ok(None);
    };
    // UTF-8 rather than `to_str`'s visible-ASCII check byte by byte (a token is ~300 bytes,
    // read on every request): a token with other characters is no token this service
    // signed, so it fails verification as invalid all the same.
    let token = std::str::from_utf8(value.as_bytes())
        .ok()
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|t| !t.is_empty());
    match token {
        Some(t) => Ok(Some(t)),
        None => Err(JwtError::Invalid),
    }
}

/// A header's value, trimmed; None when absent, empty or not text.
pub fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// Which roles an extractor accepts.
pub trait Roles: 'static {
    /// Empty: any role, or none.
    const ANY_OF: &'static [Role];
}

/// Any valid token of the service.
pub struct AnyRole;
impl Roles for AnyRole {
    const ANY_OF: &'static [Role] = &[];
}

macro_rules! role {
    ($name:ident, $($role:ident),+) => {
        /// Tokens carrying one of these roles.
        pub struct $name;
        impl Roles for $name {
            const ANY_OF: &'static [Role] = &[$(Role::$role),+];
        }
    };
}
role!(UserRole, User);
role!(DealerRole, Dealer);
role!(AdminRole, Admin);
role!(AdvertiserRole, Advertiser);
role!(PosterRole, Poster);
role!(DealerOrAdminRole, Dealer, Admin);
role!(ModeratorRole, Admin, Moderator);
role!(FinanceRole, Admin, Finance);
role!(StaffRole, Admin, Moderator, Finance);

/// A bearer token, verified, whose session is live and whose account's current roles
/// satisfy `R`.
pub struct Bearer<R: Roles = AnyRole> {
    /// The token's claims, its roles those of the account now.
    pub claims: Arc<Claims>,
    /// The live session (None for services whose tokens name none).
    pub live: Option<Arc<Live>>,
    _roles: PhantomData<R>,
}

impl<R: Roles> Bearer<R> {
    /// The service's snapshot of the account, when it keeps one of type `A`.
    pub fn account<A: std::any::Any + Send + Sync>(&self) -> Option<Arc<A>> {
        self.live.as_ref().and_then(|l| l.account::<A>())
    }

    async fn admit(auth: web::Data<Auth>, claims: Arc<Claims>) -> Result<Self, ApiError> {
        let Admitted { claims, live } = auth.admit(claims).await?;
        if !R::ANY_OF.is_empty() && !R::ANY_OF.iter().any(|r| claims.roles.contains(r)) {
            return Err((auth.errors.forbidden)(R::ANY_OF));
        }
        Ok(Self {
            claims,
            live,
            _roles: PhantomData,
        })
    }
}

impl<R: Roles> FromRequest for Bearer<R> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let verified = Auth::data(req).cloned().and_then(|auth| {
            let claims = auth
                .shared_claims(req)?
                .ok_or_else(|| (auth.errors.missing)("Authorization"))?;
            Ok((auth, claims))
        });
        Box::pin(async move {
            let (auth, claims) = verified?;
            Self::admit(auth, claims).await
        })
    }
}

/// The bearer when a token is sent (operations open to anonymous callers that know a
/// signed-in one): `None` without a token; a token that is sent but invalid, or whose
/// session ended, is refused, never taken for an anonymous caller.
pub struct MaybeBearer(pub Option<Bearer>);

impl FromRequest for MaybeBearer {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let verified = Auth::data(req)
            .cloned()
            .and_then(|auth| Ok((auth.shared_claims(req)?, auth)));
        Box::pin(async move {
            match verified? {
                (Some(claims), auth) => Ok(Self(Some(Bearer::admit(auth, claims).await?))),
                (None, _) => Ok(Self(None)),
            }
        })
    }
}

/// The `X-API-Key` a caller presented, not yet resolved (a service whose keys are records
/// looks it up; see [`ServiceKey`] for one configured key).
pub struct PresentedKey(pub String);

impl FromRequest for PresentedKey {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Auth::of(req).and_then(|auth| {
            header(req, API_KEY_HEADER)
                .map(|k| Self(k.to_owned()))
                .ok_or_else(|| (auth.errors.missing)(API_KEY_HEADER))
        }))
    }
}

/// What a caller presented: a bearer token (verified, its session live) or an API key (to
/// resolve).
pub enum Credential {
    Token(Arc<Claims>),
    Key(String),
}

impl FromRequest for Credential {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let presented = Auth::data(req).cloned().and_then(|auth| {
            let claims = auth.shared_claims(req)?;
            let key = header(req, API_KEY_HEADER).map(str::to_owned);
            Ok((auth, claims, key))
        });
        Box::pin(async move {
            match presented? {
                (auth, Some(claims), _) => Ok(Self::Token(auth.admit(claims).await?.claims)),
                (_, None, Some(key)) => Ok(Self::Key(key)),
                (auth, None, None) => Err((auth.errors.missing)("Authorization or X-API-Key")),
            }
        })
    }
}

/// The caller holds the service's configured `X-API-Key`.
pub struct ServiceKey;

impl ServiceKey {
    /// Whether the request carries the configured key (for operations open to other
    /// callers too).
    pub fn presented(req: &HttpRequest) -> bool {
        Auth::of(req)
            .is_ok_and(|auth| Auth::matches(auth.api_key.as_deref(), header(req, API_KEY_HEADER)))
    }
}

impl FromRequest for ServiceKey {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Auth::of(req).and_then(|auth| {
            if Self::presented(req) {
                Ok(Self)
            } else {
                Err((auth.errors.invalid_key)(API_KEY_HEADER))
            }
        }))
    }
}

/// The caller holds the service's configured `X-Admin-Key`.
pub struct AdminKey;

impl FromRequest for AdminKey {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Auth::of(req).and_then(|auth| {
            if Auth::matches(auth.admin_key.as_deref(), header(req, ADMIN_KEY_HEADER)) {
                Ok(Self)
            } else {
                Err((auth.errors.invalid_key)(ADMIN_KEY_HEADER))
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::clock::SystemClock;
    use crate::core::error::{ApiError, Kind};
    use actix_web::test::TestRequest;
    use std::sync::Arc;

    fn auth() -> Auth {
        Auth {
            jwt: JwtKeys::new("test-secret-test-secret-test-secret"),
            clock: Arc::new(SystemClock),
            token_types: &["test_access", "test_other_kind"],
            api_key: Some("service-key".into()),
            admin_key: None,
            errors: AuthErrors {
                missing: |what| ApiError::unauthorized(format!("missing {what}")),
                invalid_token: |_| ApiError::unauthorized("bad token"),
                forbidden: |_| ApiError::forbidden("wrong role"),
                invalid_key: |what| ApiError::unauthorized(format!("bad {what}")),
            },
            sessions: None,
        }
    }

    async fn bearer<R: Roles>(req: &HttpRequest) -> Result<Bearer<R>, ApiError> {
        Bearer::<R>::from_request(req, &mut Payload::None).await
    }

    fn request(auth: &Auth, authorization: Option<&str>) -> HttpRequest {
        let mut req = TestRequest::default().app_data(web::Data::new(auth.clone()));
        if let Some(v) = authorization {
            req = req.insert_header((AUTHORIZATION, v));
        }
        req.to_http_request()
    }

    fn token(auth: &Auth, typ: &str, roles: &[Role]) -> String {
        let now = auth.clock.now();
        auth.jwt
            .issue_with_roles(typ, "u1", None, roles, now, 60)
            .expect("signed")
    }

    #[actix_web::test]
    async fn roles_are_checked_and_other_services_tokens_refused() {
        let a = auth();
        let dealer = format!("Bearer {}", token(&a, "test_access", &[Role::Dealer]));
        let req = request(&a, Some(&dealer));
        assert!(bearer::<AnyRole>(&req).await.is_ok());
        assert!(bearer::<DealerRole>(&req).await.is_ok());
        let e = bearer::<AdminRole>(&req).await.err().expect("refused");
        assert_eq!(e.kind(), Kind::Forbidden);

        // A second kind of account of the same service is accepted; its roles decide.
        let other_kind = format!("Bearer {}", token(&a, "test_other_kind", &[Role::Finance]));
        let req = request(&a, Some(&other_kind));
        assert!(bearer::<FinanceRole>(&req).await.is_ok());
        let e = bearer::<ModeratorRole>(&req).await.err().expect("refused");
        assert_eq!(e.kind(), Kind::Forbidden);

        let foreign = format!("Bearer {}", token(&a, "other_access", &[Role::Admin]));
        let e = bearer::<AnyRole>(&request(&a, Some(&foreign)))
            .await
            .err()
            .expect("refused");
        assert_eq!(e.message(), "bad token");
    }

    #[actix_web::test]
    async fn missing_and_malformed_credentials_differ() {
        let a = auth();
        let e = bearer::<AnyRole>(&request(&a, None))
            .await
            .err()
            .expect("refused");
        assert_eq!(e.message(), "missing Authorization");
        let e = bearer::<AnyRole>(&request(&a, Some("Basic dXNlcjpwYXNz")))
            .await
            .err()
            .expect("refused");
        assert_eq!(e.message(), "bad token");
    }

    #[test]
    fn service_key_compares_the_configured_key() {
        let a = auth();
        let with = |k: &str| {
            TestRequest::default()
                .app_data(web::Data::new(a.clone()))
                .insert_header((API_KEY_HEADER, k))
                .to_http_request()
        };
        assert!(ServiceKey::presented(&with("service-key")));
        assert!(!ServiceKey::presented(&with("service-kez")));
        assert!(!ServiceKey::presented(&request(&a, None)));
    }
}
