//! HS256 JWTs with a `typ` claim. Expiry is checked against the injected clock so that tests
//! can move time; the library only checks the signature and algorithm. Tokens that verified
//! are remembered (the exact bytes, for a while), so a client's every request does not pay
//! for the signature and two JSON parses again.

use chrono::{DateTime, Utc};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use moka::sync::Cache;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

/// Verified tokens remembered at most (about half a kilobyte each).
const VERIFIED_CAPACITY: u64 = 20_000;
/// How long a verified token is remembered before its signature is checked again.
const VERIFIED_TTL: Duration = Duration::from_secs(600);

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub typ: String,
    pub iat: i64,
    pub exp: i64,
    /// Session (refresh token family) the token belongs to, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
    pub jti: String,
    /// What the bearer may act as (services with roles: marketplace, advertising).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<super::role::Role>,
}

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum JwtError {
    #[error("token invalid")]
    Invalid,
    #[error("token expired")]
    Expired,
    /// A genuine token whose session has ended (logout, reset, revocation, deletion, ban).
    #[error("session ended")]
    Revoked,
    #[error("token signing failed")]
    Sign,
}

/// A token failure the caller did not word in its own terms is an internal error.
impl From<JwtError> for super::error::ApiError {
    fn from(e: JwtError) -> Self {
        Self::internal(e)
    }
}

#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    /// HS256 only; expiry is checked here against the injected clock, not by the library.
    validation: Validation,
    /// Tokens whose signature held, by their exact text. Its claims are the token's own, so
    /// type and expiry are still checked on every use. Hashed with aHash, not SipHash: a
    /// token is ~300 bytes, hashed on every request, and only tokens this process signed are
    /// ever stored, so nobody can choose keys that collide.
    verified: Cache<Box<str>, Arc<Claims>, ahash::RandomState>,
}

impl JwtKeys {
    pub fn new(secret: &str) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_exp = false;
        validation.required_spec_claims.clear();
        Self {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            validation,
            verified: Cache::builder()
                .max_capacity(VERIFIED_CAPACITY)
                .time_to_live(VERIFIED_TTL)
                .build_with_hasher(ahash::RandomState::new()),
        }
    }

    pub fn issue(
        &self,
        typ: &str,
        sub: &str,
        sid: Option<&str>,
        now: DateTime<Utc>,
        ttl_secs: i64,
    ) -> Result<String, JwtError> {
        self.issue_with_roles(typ, sub, sid, &[], now, ttl_secs)
    }

    /// A token whose bearer may act as `roles` (checked by `core::auth::Bearer`).
    pub fn issue_with_roles(
        &self,
        typ: &str,
        sub: &str,
        sid: Option<&str>,
        roles: &[super::role::Role],
        now: DateTime<Utc>,
        ttl_secs: i64,
    ) -> Result<String, JwtError> {
        let claims = Claims {
            sub: sub.to_owned(),
            typ: typ.to_owned(),
            iat: now.timestamp(),
            exp: now.timestamp() + ttl_secs,
            sid: sid.map(str::to_owned),
            jti: uuid::Uuid::new_v4().to_string(),
            roles: roles.to_vec(),
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(|_| JwtError::Sign)
    }

    /// The token's claims when it is well signed, unexpired and of one of the `typs`.
    pub fn verify(
        &self,
        token: &str,
        typs: &[&str],
        now: DateTime<Utc>,
    ) -> Result<Claims, JwtError> {
        self.verify_shared(token, typs, now).map(|c| (*c).clone())
    }

    /// [`Self::verify`], answering the remembered claims themselves.
    pub fn verify_shared(
        &self,
        token: &str,
        typs: &[&str],
        now: DateTime<Utc>,
    ) -> Result<Arc<Claims>, JwtError> {
        let claims = match self.verified.get(token) {
            Some(known) => known,
            None => {
                let data = decode::<Claims>(token, &self.decoding, &self.validation)
                    .map_err(|_| JwtError::Invalid)?;
                if data.header.alg != Algorithm::HS256 {
                    return Err(JwtError::Invalid);
                }
                let claims = Arc::new(data.claims);
                self.verified.insert(token.into(), claims.clone());
                claims
            }
        };
        if !typs.contains(&claims.typ.as_str()) {
            return Err(JwtError::Invalid);
        }
        if claims.exp <= now.timestamp() {
            return Err(JwtError::Expired);
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_token_is_still_checked_for_type_and_expiry_and_its_twin_forgery_fails() {
        let keys = JwtKeys::new("test-secret-test-secret-test-secret");
        let now = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let token = keys
            .issue("access", "u1", Some("s1"), now, 60)
            .expect("signed");
        for _ in 0..2 {
            let c = keys.verify(&token, &["access"], now).expect("valid");
            assert_eq!((c.sub.as_str(), c.sid.as_deref()), ("u1", Some("s1")));
        }
        assert_eq!(
            keys.verify(&token, &["other"], now).err(),
            Some(JwtError::Invalid)
        );
        let later = now + chrono::Duration::seconds(60);
        assert_eq!(
            keys.verify(&token, &["access"], later).err(),
            Some(JwtError::Expired)
        );
        // The same claims under a changed signature are not the remembered token.
        let mut forged = token.clone();
        let last = forged.pop().expect("a signature");
        forged.push(if last == 'A' { 'B' } else { 'A' });
        assert_eq!(
            keys.verify(&forged, &["access"], now).err(),
            Some(JwtError::Invalid)
        );
        let other = JwtKeys::new("another-secret-another-secret-xx");
        assert_eq!(
            other.verify(&token, &["access"], now).err(),
            Some(JwtError::Invalid)
        );
    }
}
