//! An advertiser's fields, parsed, and the refusals only advertisers meet.

use super::super::error::{AdvertisingError, Result};
use super::super::places::data;
use crate::core::error::{ApiError, Kind};
use crate::core::phone::PhoneNumber;

/// Shortest password accepted (the issue: 10 characters).
pub const MIN_PASSWORD_CHARS: usize = 10;
/// Longest: argon2 is slow on purpose, so a megabyte "password" must not reach it.
const MAX_PASSWORD_CHARS: usize = 256;

/// A password as typed: 10 to 256 characters, kept as given (spaces count).
pub struct Password(String);

impl Password {
    pub fn parse(field: &'static str, raw: &str) -> Result<Self> {
        let chars = raw.chars().count();
        if !(MIN_PASSWORD_CHARS..=MAX_PASSWORD_CHARS).contains(&chars) {
            return Err(AdvertisingError::invalid(
                field,
                format!("must be {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters"),
            )
            .into());
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn expose(&self) -> String {
        self.0.clone()
    }
}

/// A required string field: present and not blank.
pub fn required<'a>(field: &'static str, value: &'a Option<String>) -> Result<&'a str> {
    value
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| AdvertisingError::invalid(field, "is required").into())
}

/// `email`, lowercased (one account per address however it is typed).
pub fn email(raw: &str) -> Result<String> {
    super::super::fields::email(raw)
}

/// A free-text field of 1 to `max` characters without control characters, trimmed.
pub fn text(field: &'static str, raw: &str, max: usize) -> Result<String> {
    let t = raw.trim();
    if !(1..=max).contains(&t.chars().count()) || t.chars().any(char::is_control) {
        return Err(AdvertisingError::invalid(
            field,
            format!("must be 1 to {max} characters without control characters"),
        )
        .into());
    }
    Ok(t.to_owned())
}

/// `countryCode`: the alpha-2 code of a known country, any case; answers it upper-case.
pub fn country_code(field: &'static str, raw: &str) -> Result<String> {
    let code = raw.trim();
    match data::country(code) {
        Some(c) if c.alpha2.eq_ignore_ascii_case(code) => Ok(c.alpha2.to_string()),
        _ => Err(AdvertisingError::invalid(
            field,
            "must be the ISO 3166-1 alpha-2 code of a known country",
        )
        .into()),
    }
}

/// `phone`: E.164.
pub fn phone(raw: &str) -> Result<String> {
    PhoneNumber::parse(raw)
        .map(|p| p.as_str().to_owned())
        .map_err(|_| {
            AdvertisingError::invalid("phone", "must be an E.164 number such as +447700900123")
                .into()
        })
}

/// `website`: an https URL.
pub fn website(raw: &str) -> Result<String> {
    super::super::fields::https_url("website", raw)
}

/// Wrong email and wrong password answer alike.
pub fn invalid_credentials() -> ApiError {
    ApiError::unauthorized("email or password is incorrect").code("invalid_credentials")
}

pub fn email_not_verified() -> ApiError {
    ApiError::forbidden(
        "verify your email address first: follow the link we mailed you (a new one is on its way)",
    )
    .code("email_not_verified")
}

pub fn email_taken() -> ApiError {
    ApiError::new(
        Kind::Conflict,
        "an advertiser with this email already exists",
    )
    .code("email_taken")
}

/// A mailed token that is unknown, used or expired (the three answer alike).
pub fn invalid_token() -> ApiError {
    ApiError::bad_request("this link is invalid, used or expired; ask for a new one")
        .code("invalid_token")
        .detail("field", "token")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_parse() {
        assert!(Password::parse("password", "123456789").is_err());
        assert!(Password::parse("password", "1234567890").is_ok());
        assert!(Password::parse("password", &"x".repeat(257)).is_err());
        assert_eq!(country_code("countryCode", "gb").unwrap(), "GB");
        assert!(country_code("countryCode", "GBR").is_err());
        assert!(country_code("countryCode", "XX").is_err());
        assert!(text("companyName", "  ", 120).is_err());
        assert_eq!(text("companyName", " Acme ", 120).unwrap(), "Acme");
    }
}
