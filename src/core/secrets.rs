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
}
