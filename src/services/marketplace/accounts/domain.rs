//! Parsed inputs of the accounts: passwords, e-mail addresses, what a one-time code proves,
//! and a stored role. Each type can only hold a value that obeys its rule.

use crate::core::auth::Role;
use crate::services::marketplace::error::MarketplaceError;

/// Longest password accepted: argon2 time grows with input, and nobody types more.
const MAX_PASSWORD_CHARS: usize = 128;

/// A new password: at least 6 characters (the spec), at most 128.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub fn parse(field: &'static str, raw: &str) -> Result<Self, MarketplaceError> {
        let n = raw.chars().count();
        if n < 6 {
            return Err(MarketplaceError::invalid_secret(
                field,
                format!("{field} must be at least 6 characters"),
            ));
        }
        if n > MAX_PASSWORD_CHARS {
            return Err(MarketplaceError::invalid_secret(
                field,
                format!("{field} must be at most {MAX_PASSWORD_CHARS} characters"),
            ));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn expose(&self) -> String {
        self.0.clone()
    }
}

/// An e-mail address (`core::email`), stored trimmed.
pub struct Email(crate::core::email::EmailAddress);

impl Email {
    pub fn parse(raw: &str) -> Result<Self, MarketplaceError> {
        crate::core::email::EmailAddress::parse(raw)
            .map(Self)
            .map_err(|_| {
                MarketplaceError::invalid("email", raw, "email must be a valid e-mail address")
            })
    }

    pub fn into_inner(self) -> String {
        self.0.into_inner()
    }
}

/// What a one-time code proves (the spec's resend-otp `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtpPurpose {
    Signup,
    PasswordReset,
}

impl OtpPurpose {
    pub fn parse(raw: &str) -> Result<Self, MarketplaceError> {
        match raw {
            "signup" => Ok(Self::Signup),
            "password_reset" => Ok(Self::PasswordReset),
            _ => Err(MarketplaceError::invalid(
                "type",
                raw,
                "type must be signup or password_reset",
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Signup => "signup",
            Self::PasswordReset => "password_reset",
        }
    }
}

/// A stored role name as the token role; an unknown name grants the least.
pub fn role(stored: &str) -> Role {
    match stored {
        "admin" => Role::Admin,
        "dealer" => Role::Dealer,
        _ => Role::User,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::marketplace::domain::name;

    #[test]
    fn passwords_need_six_characters_and_are_never_echoed() {
        assert!(Password::parse("password", "secret").is_ok());
        let Err(MarketplaceError::Validation { field, value, .. }) =
            Password::parse("password", "12345")
        else {
            panic!("refused")
        };
        assert_eq!((field, value), ("password", None));
        assert!(Password::parse("password", &"x".repeat(129)).is_err());
    }

    #[test]
    fn emails_and_names() {
        assert_eq!(
            Email::parse(" a.b@example.com ").unwrap().into_inner(),
            "a.b@example.com"
        );
        for bad in [
            "a@b",
            "@example.com",
            "a b@example.com",
            "a@@example.com",
            "a@example..com",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(name("  Ada  ").unwrap(), "Ada");
        assert!(name("   ").is_err());
    }

    #[test]
    fn purposes_and_roles() {
        assert_eq!(
            OtpPurpose::parse("password_reset").unwrap().as_str(),
            "password_reset"
        );
        assert!(OtpPurpose::parse("login").is_err());
        assert_eq!(role("dealer"), Role::Dealer);
        assert_eq!(role("anything"), Role::User);
    }
}
