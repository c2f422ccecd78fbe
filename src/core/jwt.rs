//! HS256 JWTs with a `typ` claim. Expiry is checked against the injected clock so that tests
//! can move time; the library only checks the signature and algorithm.

use chrono::{DateTime, Utc};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

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
    pub roles: Vec<super::auth::Role>,
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

#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    /// HS256 only; expiry is checked here against the injected clock, not by the library.
    validation: Validation,
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
        roles: &[super::auth::Role],
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

    pub fn verify(&self, token: &str, typ: &str, now: DateTime<Utc>) -> Result<Claims, JwtError> {
        let data = decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|_| JwtError::Invalid)?;
        if data.header.alg != Algorithm::HS256 || data.claims.typ != typ {
            return Err(JwtError::Invalid);
        }
        if data.claims.exp <= now.timestamp() {
            return Err(JwtError::Expired);
        }
        Ok(data.claims)
    }
}
