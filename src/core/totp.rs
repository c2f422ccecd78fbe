//! Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 30-second
//! steps, 6 digits, the secrets authenticator apps take (base32 and `otpauth://` URIs).

use hmac::{Hmac, KeyInit, Mac};
use sha1::Sha1;

/// Seconds per step (RFC 6238's default, the one every authenticator app uses).
pub const STEP_SECS: i64 = 30;
/// Digits of a code.
pub const DIGITS: u32 = 6;
/// Bytes of a new secret (160 bits, RFC 4226's recommendation).
pub const SECRET_BYTES: usize = 20;

/// RFC 4226's HOTP of `counter`: dynamic truncation to `digits` decimal digits.
pub fn hotp(secret: &[u8], counter: u64, digits: u32) -> u32 {
    #[expect(
        clippy::expect_used,
        reason = "HMAC accepts keys of any length (RFC 2104)"
    )]
    let mut mac = <Hmac<Sha1> as KeyInit>::new_from_slice(secret).expect("HMAC takes any key");
    mac.update(&counter.to_be_bytes());
    let h = mac.finalize().into_bytes();
    let offset = usize::from(h[h.len() - 1] & 0x0f);
    let bin = u32::from_be_bytes([
        h[offset] & 0x7f,
        h[offset + 1],
        h[offset + 2],
        h[offset + 3],
    ]);
    bin % 10u32.pow(digits)
}

/// The step that `unix_secs` falls in.
pub fn step_of(unix_secs: i64) -> i64 {
    unix_secs.div_euclid(STEP_SECS)
}

/// The 6-digit code of `step`, zero-padded.
pub fn code_at(secret: &[u8], step: i64) -> String {
    let counter = u64::try_from(step).unwrap_or(0);
    format!("{:0w$}", hotp(secret, counter, DIGITS), w = DIGITS as usize)
}

/// The step, among the current one and `skew` either side (clocks of phones drift), whose
/// code is `code`; every candidate is compared in constant time.
pub fn matching_step(secret: &[u8], code: &str, unix_secs: i64, skew: i64) -> Option<i64> {
    let code = code.trim();
    if code.len() != DIGITS as usize || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let now = step_of(unix_secs);
    let mut found = None;
    for step in (now - skew)..=(now + skew) {
        if super::secrets::constant_time_eq(code_at(secret, step).as_bytes(), code.as_bytes()) {
            found = found.or(Some(step));
        }
    }
    found
}

/// A new random secret.
pub fn new_secret() -> Vec<u8> {
    use rand::RngCore;
    let mut s = vec![0u8; SECRET_BYTES];
    rand::rng().fill_bytes(&mut s);
    s
}

/// The secret as authenticator apps take it typed in: base32 without padding (RFC 4648).
pub fn base32(secret: &[u8]) -> String {
    data_encoding::BASE32_NOPAD.encode(secret)
}

/// The `otpauth://totp/...` URI of a QR code for `account` at `issuer` (Key Uri Format).
pub fn uri(issuer: &str, account: &str, secret: &[u8]) -> String {
    let mut u = match url::Url::parse("otpauth://totp/") {
        Ok(u) => u,
        Err(_) => return String::new(),
    };
    u.set_path(&format!("{issuer}:{account}"));
    u.query_pairs_mut()
        .append_pair("secret", &base32(secret))
        .append_pair("issuer", issuer)
        .append_pair("algorithm", "SHA1")
        .append_pair("digits", &DIGITS.to_string())
        .append_pair("period", &STEP_SECS.to_string());
    u.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RFC_SECRET: &[u8] = b"12345678901234567890";

    /// RFC 6238 Appendix B, the SHA1 column (8 digits), and the same times at 6 digits.
    #[test]
    fn codes_match_rfc_6238_appendix_b() {
        for (time, code) in [
            (59, 94287082),
            (1111111109, 7081804),
            (1111111111, 14050471),
            (1234567890, 89005924),
            (2000000000, 69279037),
            (20000000000, 65353130),
        ] {
            let counter = u64::try_from(step_of(time)).unwrap();
            assert_eq!(hotp(RFC_SECRET, counter, 8), code, "time {time}");
            assert_eq!(
                code_at(RFC_SECRET, step_of(time)),
                format!("{:06}", code % 1_000_000)
            );
        }
        assert_eq!(code_at(RFC_SECRET, step_of(59)), "287082");
    }

    /// RFC 4226 Appendix D: HOTP of counters 0 and 9.
    #[test]
    fn hotp_matches_rfc_4226_appendix_d() {
        assert_eq!(hotp(RFC_SECRET, 0, 6), 755224);
        assert_eq!(hotp(RFC_SECRET, 9, 6), 520489);
    }

    #[test]
    fn a_code_matches_its_step_and_the_neighbours_only() {
        let t = 1111111111;
        let code = code_at(RFC_SECRET, step_of(t));
        assert_eq!(matching_step(RFC_SECRET, &code, t, 1), Some(step_of(t)));
        assert_eq!(
            matching_step(RFC_SECRET, &code, t + 30, 1),
            Some(step_of(t))
        );
        assert_eq!(matching_step(RFC_SECRET, &code, t + 90, 1), None);
        assert_eq!(matching_step(RFC_SECRET, "12345", t, 1), None);
        assert_eq!(matching_step(RFC_SECRET, "abcdef", t, 1), None);
    }

    #[test]
    fn the_uri_carries_the_base32_secret() {
        assert_eq!(base32(RFC_SECRET), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
        let u = uri("Switchboard Ads", "a@example.com", RFC_SECRET);
        assert!(
            u.starts_with("otpauth://totp/Switchboard%20Ads:a@example.com?"),
            "{u}"
        );
        assert!(u.contains("secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"), "{u}");
        assert!(u.contains("issuer=Switchboard+Ads"), "{u}");
    }
}
