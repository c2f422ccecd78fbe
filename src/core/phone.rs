//! Phone numbers parsed to E.164: every written form of one number is one account.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PhoneNumber {
    e164: String,
    region: Option<String>,
    calling_code: Option<u16>,
}

#[derive(Debug, thiserror::Error)]
#[error("phone number must be in international format, e.g. +4917667111638")]
pub struct InvalidPhone;

impl PhoneNumber {
    /// Accepts international numbers with spaces, dashes, dots or brackets; requires a
    /// leading `+` and a number its region could have ([`plausible`]).
    pub fn parse(raw: &str) -> Result<Self, InvalidPhone> {
        let trimmed = raw.trim();
        if !trimmed.starts_with('+') || trimmed.len() > 32 {
            return Err(InvalidPhone);
        }
        if !trimmed
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | ' ' | '-' | '.' | '(' | ')'))
        {
            return Err(InvalidPhone);
        }
        let parsed = phonenumber::parse(None, trimmed).map_err(|_| InvalidPhone)?;
        if !plausible(&parsed) {
            return Err(InvalidPhone);
        }
        let e164 = parsed.format().mode(phonenumber::Mode::E164).to_string();
        Ok(Self::of(e164, &parsed))
    }

    fn of(e164: String, parsed: &phonenumber::PhoneNumber) -> Self {
        Self {
            e164,
            region: parsed.country().id().map(|id| id.as_ref().to_owned()),
            calling_code: Some(parsed.code().value()),
        }
    }

    /// Rebuilds a number already stored in E.164 form.
    pub fn from_stored(e164: String) -> Self {
        match phonenumber::parse(None, &e164) {
            Ok(parsed) => Self::of(e164, &parsed),
            Err(_) => Self {
                e164,
                region: None,
                calling_code: None,
            },
        }
    }

    pub fn as_str(&self) -> &str {
        &self.e164
    }

    /// Two-letter region of the number (e.g. `DE`), when the numbering plan names one.
    pub fn region(&self) -> Option<&str> {
        self.region.as_deref()
    }

    /// The country calling code, as dialled: `+44`, `+1` (one code may serve several
    /// regions: `+1` is all of North America).
    pub fn calling_code(&self) -> Option<String> {
        self.calling_code.map(|c| format!("+{c}"))
    }

    /// `+49******1638`: enough to recognise one's own number, not enough to harvest it.
    pub fn masked(&self) -> String {
        let digits: Vec<char> = self.e164.chars().collect();
        let keep_start = 3.min(digits.len());
        let keep_end = 4.min(digits.len().saturating_sub(keep_start));
        let hidden = digits.len() - keep_start - keep_end;
        let mut out: String = digits[..keep_start].iter().collect();
        out.extend(std::iter::repeat_n('*', hidden));
        out.extend(&digits[digits.len() - keep_end..]);
        out
    }
}

/// A number valid for its region, or one of the region's general pattern (its lengths and
/// leading digits) though in no range of a known type: the
/// numbering metadata knows assigned ranges only, and a number of a range held back (the UK's
/// +44 7700 900xxx, kept for drama) or opened since the metadata was cut is still written
/// in international format, which is what is asked.
fn plausible(parsed: &phonenumber::PhoneNumber) -> bool {
    if phonenumber::is_valid(parsed) {
        return true;
    }
    let national = parsed.national().to_string();
    // The region is known only for a valid number: ask every region of the calling code.
    let regions = phonenumber::metadata::DATABASE.by_code(&parsed.code().value());
    regions.into_iter().flatten().any(|meta| {
        // The whole national number, not a prefix of it, matches the pattern.
        let pattern = meta.descriptors().general().national_number();
        pattern
            .find(&national)
            .is_some_and(|m| m.start() == 0 && m.end() == national.len())
    })
}

impl fmt::Display for PhoneNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.e164)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_forms_are_one_number() {
        let a = PhoneNumber::parse("+49 176 671 11 638").unwrap();
        let b = PhoneNumber::parse("+4917667111638").unwrap();
        let c = PhoneNumber::parse("+49-176-671-11-638").unwrap();
        assert_eq!(a, b);
        assert_eq!(b, c);
        assert_eq!(a.as_str(), "+4917667111638");
        assert_eq!(a.region(), Some("DE"));
        assert_eq!(a.calling_code().as_deref(), Some("+49"));
        let us = PhoneNumber::from_stored("+12025550123".into());
        assert_eq!(us.calling_code().as_deref(), Some("+1"));
    }

    #[test]
    fn numbers_of_unassigned_ranges_are_still_international() {
        let uk = PhoneNumber::parse("+447700900123").unwrap();
        assert_eq!(uk.as_str(), "+447700900123");
        assert!(
            PhoneNumber::parse("+44 7700 900").is_err(),
            "too short for GB"
        );
        assert!(PhoneNumber::parse("+4477009001234567").is_err(), "too long");
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            "",
            "12345",
            "+",
            "+0123",
            "+49abc",
            "+1 555",
            "4917667111638",
        ] {
            assert!(PhoneNumber::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn masks_middle() {
        let p = PhoneNumber::parse("+4917667111638").unwrap();
        assert_eq!(p.masked(), "+49*******1638");
    }
}
