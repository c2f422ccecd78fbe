//! Signed, expiring links to personalised videos, `/media/videos/{token}` (the token's
//! subject is the subscription id; the format is `core::signed_link`'s). Anyone with the link
//! can play the video until it expires (players fetch without a bearer token); nobody can
//! make one. The same tokens serve other purposes under keys of their own: an
//! administrator's TOTP enrolment token, and staff links to any stored image or video,
//! `/media/staff/{token}`, whose subject is the object's storage key.

pub use crate::core::signed_link::{LinkError, LinkKey};
use crate::providers::storage::StorageKey;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Utc};
use uuid::Uuid;

// The advertising service's tokens (inherent methods beside the core's generic ones).
impl LinkKey {
    /// The key of video links.
    pub fn derive(secret: &str) -> Self {
        Self::for_purpose(secret, b"advertising-video-links", "video")
    }

    /// The key of staff links to stored objects.
    pub fn staff(secret: &str) -> Self {
        Self::for_purpose(secret, b"advertising-staff-media", "staff-media")
    }

    /// A token for `subscription`'s video, valid until `expires`.
    pub fn token(&self, subscription: Uuid, expires: DateTime<Utc>) -> String {
        self.signed(&subscription.simple().to_string(), expires)
    }

    /// The subscription a token opens, if it is ours and not expired at `now`.
    pub fn open(&self, token: &str, now: DateTime<Utc>) -> Result<Uuid, LinkError> {
        let id = self.opened(token, now)?;
        Uuid::parse_str(id).map_err(|_| LinkError::Invalid)
    }

    /// A token for the stored object `key`, valid until `expires`: it opens that object
    /// alone (the key is signed, so no other path can be put in its place).
    pub fn object_token(&self, key: &StorageKey, expires: DateTime<Utc>) -> String {
        self.signed(&URL_SAFE_NO_PAD.encode(key.as_str()), expires)
    }

    /// The object a token of [`Self::object_token`] opens at `now`.
    pub fn open_object(&self, token: &str, now: DateTime<Utc>) -> Result<StorageKey, LinkError> {
        let subject = self.opened(token, now)?;
        let raw = URL_SAFE_NO_PAD
            .decode(subject)
            .map_err(|_| LinkError::Invalid)?;
        let key = String::from_utf8(raw).map_err(|_| LinkError::Invalid)?;
        StorageKey::parse(&key).map_err(|_| LinkError::Invalid)
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
    fn an_object_link_opens_its_own_key_only() {
        let key = LinkKey::staff("secret-of-at-least-thirty-two-bytes!!");
        let now = Utc::now();
        let shot = StorageKey::parse("screenshots/s1/a.png").unwrap();
        let token = key.object_token(&shot, now + Duration::minutes(15));
        assert_eq!(key.open_object(&token, now), Ok(shot));
        assert_eq!(
            key.open_object(&token, now + Duration::minutes(16)),
            Err(LinkError::Expired)
        );
        // Another path in the token's place does not open.
        let (_, rest) = token.split_once('.').unwrap();
        let other = URL_SAFE_NO_PAD.encode("screenshots/s2/b.png");
        assert_eq!(
            key.open_object(&format!("{other}.{rest}"), now),
            Err(LinkError::Invalid)
        );
        // Nor does a video link's key, nor a video link.
        let video = LinkKey::derive("secret-of-at-least-thirty-two-bytes!!");
        assert_eq!(video.open_object(&token, now), Err(LinkError::Invalid));
        let sub = video.token(Uuid::new_v4(), now + Duration::hours(1));
        assert_eq!(key.open_object(&sub, now), Err(LinkError::Invalid));
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
