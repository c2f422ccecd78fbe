//! A poster's fields, parsed: the sign-in phone and country, the profile's name, email and
//! avatar, and referral codes.

use super::super::error::{AdvertisingError, Result};
pub use super::super::fields::{country, email, https_url};
use crate::core::phone::PhoneNumber;
use rand::Rng;

/// `phoneNumber`: E.164.
pub fn phone(raw: &str) -> Result<PhoneNumber> {
    PhoneNumber::parse(raw).map_err(|_| {
        AdvertisingError::invalid(
            "phoneNumber",
            "must be an E.164 number such as +447700900123",
        )
        .into()
    })
}

/// `name`: 1 to 80 characters after trimming.
pub fn name(raw: &str) -> Result<String> {
    let name = raw.trim();
    let chars = name.chars().count();
    if !(1..=80).contains(&chars) {
        return Err(AdvertisingError::invalid("name", "must be 1 to 80 characters").into());
    }
    if name.chars().any(char::is_control) {
        return Err(AdvertisingError::invalid("name", "must not hold control characters").into());
    }
    Ok(name.to_owned())
}

/// The referral code alphabet: no 0, O, 1, I or L, so a code read off a screen or out loud
/// is never ambiguous.
pub const REFERRAL_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
pub const REFERRAL_LEN: usize = 8;

/// A fresh random referral code (uniqueness is the database's to enforce).
pub fn referral_code() -> String {
    let mut rng = rand::rng();
    (0..REFERRAL_LEN)
        .map(|_| REFERRAL_ALPHABET[rng.random_range(0..REFERRAL_ALPHABET.len())] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referral_codes_use_only_the_unambiguous_alphabet() {
        for _ in 0..200 {
            let code = referral_code();
            assert_eq!(code.len(), REFERRAL_LEN);
            assert!(!code.contains(['0', 'O', '1', 'I', 'L']), "{code}");
            assert!(code.bytes().all(|b| REFERRAL_ALPHABET.contains(&b)));
        }
    }

    #[test]
    fn profile_fields_parse() {
        assert_eq!(name("  Ada  ").unwrap(), "Ada");
        assert!(name("").is_err());
        assert!(name(&"x".repeat(81)).is_err());
        assert_eq!(email("Ada@Example.com").unwrap(), "ada@example.com");
        for bad in ["ada", "a@b", "a@@b.c", "a b@c.d", "@c.d"] {
            assert!(email(bad).is_err(), "{bad}");
        }
        assert!(https_url("avatarUrl", "https://cdn.example.com/a.png").is_ok());
        assert!(https_url("avatarUrl", "http://cdn.example.com/a.png").is_err());
    }
}
