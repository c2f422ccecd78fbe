//! One e-mail address type for every service: a practical check (one `@`, a dot-atom local
//! part of at most 64 characters, a domain of letter/digit/hyphen labels under a top-level
//! label of letters, 254 characters in all), made on the trimmed input. Services turn
//! [`InvalidEmail`] into their own envelope's error.

use std::fmt;

/// A well-formed address, as typed (trimmed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailAddress(String);

/// The input is not an e-mail address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidEmail;

impl fmt::Display for InvalidEmail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a valid e-mail address")
    }
}

impl std::error::Error for InvalidEmail {}

impl EmailAddress {
    pub fn parse(raw: &str) -> Result<Self, InvalidEmail> {
        let s = raw.trim();
        if well_formed(s) {
            Ok(Self(s.to_owned()))
        } else {
            Err(InvalidEmail)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_inner(self) -> String {
        self.0
    }

    /// The whole address in lower case: one account per address however it is typed.
    pub fn lowercased(&self) -> String {
        self.0.to_ascii_lowercase()
    }
}

fn well_formed(s: &str) -> bool {
    if s.len() > 254 {
        return false;
    }
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~-".contains(c);
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && local
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(atext));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && domain.len() <= 253
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        && labels
            .last()
            .is_some_and(|t| t.len() >= 2 && t.chars().all(|c| c.is_ascii_alphabetic()));
    local_ok && domain_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_people_use_pass_and_trimmed() {
        for ok in ["a@b.co", "first.last+tag@mail.example.org", "x_y@a-b.io"] {
            assert_eq!(EmailAddress::parse(ok).unwrap().as_str(), ok);
        }
        assert_eq!(
            EmailAddress::parse(" a.b@example.com ")
                .unwrap()
                .into_inner(),
            "a.b@example.com"
        );
        assert_eq!(
            EmailAddress::parse("Ada@Example.COM").unwrap().lowercased(),
            "ada@example.com"
        );
    }

    #[test]
    fn malformed_addresses_fail() {
        for bad in [
            "",
            "a",
            "a@b",
            "@b.co",
            "a@.co",
            "a..b@c.co",
            "a b@c.co",
            "a@@example.com",
            "a@example..com",
            "a@b.c0",
            "a@-b.co",
            "a\u{7}@b.co",
        ] {
            assert_eq!(EmailAddress::parse(bad), Err(InvalidEmail), "{bad:?}");
        }
        let long = format!("{}@example.com", "a".repeat(65));
        assert!(EmailAddress::parse(&long).is_err());
    }
}
