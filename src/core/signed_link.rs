//! Short signed tokens for links that open without a login: `{subject}.{expiry}.{signature}`,
//! the signature an HMAC-SHA256 of purpose, subject and expiry (unix seconds) under a key
//! derived from the service's secret. Anyone holding a token may use it until it expires;
//! nobody can make one, and a token of one purpose never opens for another. The services
//! give tokens their subjects (a subscription, a stored object, an unsubscribing address).

use crate::core::secrets::{constant_time_eq, hmac_sha256};
use chrono::{DateTime, Utc};

/// Signature length in hex characters (128 bits).
const SIG_HEX: usize = 32;

#[derive(Clone)]
pub struct LinkKey {
    key: Vec<u8>,
    /// Signed with the subject, so a token of one purpose never opens for another.
    purpose: &'static str,
}

#[derive(Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Not a token we made.
    Invalid,
    Expired,
}

impl LinkKey {
    /// A key for tokens of `purpose`, derived from `secret` under `label`.
    pub fn for_purpose(secret: &str, label: &[u8], purpose: &'static str) -> Self {
        Self {
            key: hmac_sha256(secret.as_bytes(), label),
            purpose,
        }
    }

    fn sign(&self, subject: &str, expires: i64) -> String {
        let mac = hmac_sha256(
            &self.key,
            format!("{}|{subject}|{expires}", self.purpose).as_bytes(),
        );
        hex::encode(mac)[..SIG_HEX].to_owned()
    }

    /// `{subject}.{expires}.{signature}`; `subject` holds no `.` (base64url it if it may).
    pub fn signed(&self, subject: &str, expires: DateTime<Utc>) -> String {
        let exp = expires.timestamp();
        format!("{subject}.{exp}.{}", self.sign(subject, exp))
    }

    /// The subject of a token of ours not expired at `now`.
    pub fn opened<'t>(&self, token: &'t str, now: DateTime<Utc>) -> Result<&'t str, LinkError> {
        let mut parts = token.split('.');
        let (Some(subject), Some(exp), Some(sig), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(LinkError::Invalid);
        };
        let exp: i64 = exp.parse().map_err(|_| LinkError::Invalid)?;
        if !constant_time_eq(self.sign(subject, exp).as_bytes(), sig.as_bytes()) {
            return Err(LinkError::Invalid);
        }
        if exp <= now.timestamp() {
            return Err(LinkError::Expired);
        }
        Ok(subject)
    }
}
