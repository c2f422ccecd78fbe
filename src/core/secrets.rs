//! Random secrets, their stored digests and constant-time comparison.

use hmac::{Hmac, KeyInit, Mac};
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A URL-safe random token with `bytes` bytes of entropy.
pub fn random_token(bytes: usize) -> String {
    use base64::Engine;
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
}

/// Lowercase hex of `bytes` random bytes.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    hex::encode(buf)
}

/// A numeric code of `digits` digits, uniformly distributed.
pub fn random_digits(digits: u32) -> String {
    use rand::Rng;
    let max = 10u32.pow(digits);
    format!(
        "{:0width$}",
        rand::rng().random_range(0..max),
        width = digits as usize
    )
}

/// SHA-256 hex digest; used for high-entropy tokens where a fast hash suffices.
pub fn sha256_hex(input: &[u8]) -> String {
    hex::encode(Sha256::digest(input))
}

/// HMAC-SHA256 hex; used for low-entropy secrets (OTP codes) so a database leak alone
/// does not allow brute-forcing them.
pub fn hmac_sha256_hex(key: &[u8], input: &[u8]) -> String {
    hex::encode(hmac_sha256(key, input))
}

pub fn hmac_sha256(key: &[u8], input: &[u8]) -> Vec<u8> {
    #[expect(
        clippy::expect_used,
        reason = "HMAC accepts keys of any length (RFC 2104)"
    )]
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(input);
    mac.finalize().into_bytes().to_vec()
}

pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// `plaintext` sealed with AES-256-GCM under `key` (a fresh random nonce each time), bound to
/// `aad` (what the value belongs to, so a sealed value moved to another row does not open):
/// base64 of the nonce, the ciphertext and the tag.
pub fn seal(key: &[u8; 32], aad: &[u8], plaintext: &[u8]) -> Option<String> {
    use base64::Engine;
    use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
    let sealing = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key).ok()?);
    let mut nonce = [0u8; NONCE_LEN];
    rand::rng().fill_bytes(&mut nonce);
    let mut data = plaintext.to_vec();
    sealing
        .seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(aad),
            &mut data,
        )
        .ok()?;
    let mut out = nonce.to_vec();
    out.extend_from_slice(&data);
    Some(base64::engine::general_purpose::STANDARD.encode(out))
}

/// What [`seal`] sealed, when `sealed` is intact and was sealed under `key` with `aad`.
pub fn open(key: &[u8; 32], aad: &[u8], sealed: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
    let raw = base64::engine::general_purpose::STANDARD
        .decode(sealed)
        .ok()?;
    if raw.len() < NONCE_LEN {
        return None;
    }
    let (nonce, data) = raw.split_at(NONCE_LEN);
    let opening = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key).ok()?);
    let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
    let mut data = data.to_vec();
    let plain = opening
        .open_in_place(nonce, Aad::from(aad), &mut data)
        .ok()?;
    Some(plain.to_vec())
}

/// A 32-byte key for `purpose` derived from the process's `secret`.
pub fn derive_key(secret: &[u8], purpose: &[u8]) -> [u8; 32] {
    let mut key = [0u8; 32];
    key.copy_from_slice(&hmac_sha256(secret, purpose));
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231, test cases 1 and 2: the published HMAC-SHA256 vectors, so every webhook
    /// signature built on this helper is pinned to the standard, not to itself.
    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        assert_eq!(
            hmac_sha256_hex(&[0x0b; 20], b"Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hmac_sha256_hex(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn sha256_matches_fips_180_2() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn constant_time_eq_compares_whole_values() {
        assert!(constant_time_eq(b"same", b"same"));
        assert!(!constant_time_eq(b"same", b"sama"));
        assert!(!constant_time_eq(b"same", b"same!"));
    }

    #[test]
    fn sealed_values_open_only_with_their_key_and_owner() {
        let key = derive_key(b"secret", b"purpose");
        let sealed = seal(&key, b"row-1", b"plain").unwrap();
        assert!(!sealed.contains("plain"));
        assert_eq!(
            open(&key, b"row-1", &sealed).as_deref(),
            Some(&b"plain"[..])
        );
        assert_eq!(open(&key, b"row-2", &sealed), None);
        assert_eq!(
            open(&derive_key(b"other", b"purpose"), b"row-1", &sealed),
            None
        );
        assert_ne!(
            seal(&key, b"row-1", b"plain").unwrap(),
            sealed,
            "fresh nonce"
        );
    }
}
