//! Signed, expiring links to personalised videos: `/media/videos/{token}`, where the token
//! is `{subscription id}.{expiry (unix seconds)}.{signature}` and the signature is an
//! HMAC-SHA256 of the first two under a key derived from the service's secret. Anyone with
//! the link can play the video until it expires (players fetch without a bearer token);
//! nobody can make one. The same short signed tokens serve other purposes too (an
//! administrator's TOTP enrolment token), each under its own key and purpose.

use crate::core::secrets::{constant_time_eq, hmac_sha256};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// Signature length in hex characters (128 bits).
const SIG_HEX: usize = 32;

#[derive(Clone)]
pub struct LinkKey {
    key: Vec<u8>,
    /// Signed with the id, so a token of one purpose never opens for another.
    purpose: &'static str,
}

#[derive(Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Not a token we made.
    Invalid,
    Expired,
}

impl LinkKey {
    /// The key of video links.
    pub fn derive(secret: &str) -> Self {
        Self::for_purpose(secret, b"advertising-video-links", "video")
    }

    /// A key for tokens of `purpose`, derived from `secret` under `label`.
    pub fn for_purpose(secret: &str, label: &[u8], purpose: &'static str) -> Self {
        Self {
            key: hmac_sha256(secret.as_bytes(), label),
            purpose,
        }
    }

    fn sign(&self, subscription: Uuid, expires: i64) -> String {
        let mac = hmac_sha256(
            &self.key,
            format!("{}|{}|{expires}", self.purpose, subscription.simple()).as_bytes(),
        );
        hex::encode(mac)[..SIG_HEX].to_owned()
    }

    /// A token for `subscription`'s video, valid until `expires`.
    pub fn token(&self, subscription: Uuid, expires: DateTime<Utc>) -> String {
        let exp = expires.timestamp();
        format!(
            "{}.{exp}.{}",
            subscription.simple(),
            self.sign(subscription, exp)
        )
    }

    /// The subscription a token opens, if it is ours and not expired at `now`.
    pub fn open(&self, token: &str, now: DateTime<Utc>) -> Result<Uuid, LinkError> {
        let mut parts = token.split('.');
        let (Some(id), Some(exp), Some(sig), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(LinkError::Invalid);
        };
        let id = Uuid::parse_str(id).map_err(|_| LinkError::Invalid)?;
        let exp: i64 = exp.parse().map_err(|_| LinkError::Invalid)?;
        if !constant_time_eq(self.sign(id, exp).as_bytes(), sig.as_bytes()) {
            return Err(LinkError::Invalid);
        }
        if exp <= now.timestamp() {
            return Err(LinkError::Expired);
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn a_link_opens_until_it_expires_and_cannot_be_forged() {
        let key = LinkKey::derive("secret-of-at-least-thirty-two-bytes!!");
        let now = Utc::now();
        let id = Uuid::new_v4();
        let token = key.token(id, now + Duration::hours(1));
        assert_eq!(key.open(&token, now), Ok(id));
        assert_eq!(
            key.open(&token, now + Duration::hours(2)),
            Err(LinkError::Expired)
        );
        let other = LinkKey::derive("another-secret-of-thirty-two-bytes!!");
        assert_eq!(other.open(&token, now), Err(LinkError::Invalid));
        let forged = token.replace(
            &id.simple().to_string(),
            &Uuid::new_v4().simple().to_string(),
        );
        assert_eq!(key.open(&forged, now), Err(LinkError::Invalid));
        assert_eq!(key.open("a.b.c", now), Err(LinkError::Invalid));
        assert_eq!(
            key.open(&format!("{token}.x"), now),
            Err(LinkError::Invalid)
        );
    }

    #[test]
    fn a_token_of_one_purpose_does_not_open_for_another() {
        let secret = "secret-of-at-least-thirty-two-bytes!!";
        let now = Utc::now();
        let id = Uuid::new_v4();
        let video = LinkKey::derive(secret).token(id, now + Duration::hours(1));
        let other = LinkKey::for_purpose(secret, b"advertising-video-links", "other");
        assert_eq!(other.open(&video, now), Err(LinkError::Invalid));
    }
}
