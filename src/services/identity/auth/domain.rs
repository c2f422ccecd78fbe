//! Parsed sign-in types: a PIN and what an OTP is for. Once built, a value is known to be valid.

use super::super::error::IdentityError;

/// A 4 to 6 digit PIN.
#[derive(Clone)]
pub struct Pin(String);

impl Pin {
    pub fn parse(raw: &str) -> Result<Self, IdentityError> {
        let ok = (4..=6).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_digit());
        ok.then(|| Self(raw.to_owned()))
            .ok_or(IdentityError::InvalidPin)
    }

    pub fn expose(&self) -> String {
        self.0.clone()
    }
}

impl std::fmt::Debug for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pin(***)")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtpPurpose {
    Signup,
    PinReset,
}

impl OtpPurpose {
    pub fn parse(raw: &str) -> Result<Self, IdentityError> {
        match raw {
            "signup" => Ok(Self::Signup),
            "pin_reset" => Ok(Self::PinReset),
            _ => Err(IdentityError::InvalidRequest(
                "purpose must be signup or pin_reset".into(),
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Signup => "signup",
            Self::PinReset => "pin_reset",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins() {
        assert!(Pin::parse("1234").is_ok());
        assert!(Pin::parse("123456").is_ok());
        for bad in ["123", "1234567", "12a4", " 1234", "١٢٣٤"] {
            assert!(Pin::parse(bad).is_err(), "{bad}");
        }
    }
}
