//! Parsed inputs of the interactions: ratings, test-drive slots, contact methods, share
//! channels. Each can only hold a value that obeys its rule.

use crate::services::marketplace::clock_text;
use crate::services::marketplace::domain;
use crate::services::marketplace::error::MarketplaceError;
use crate::services::marketplace::wire::Scalar;
use chrono::{Days, NaiveDate, NaiveTime};

/// Comments and replies: 1 to 1000 characters.
pub const COMMENT_CHARS: usize = 1000;
/// Test-drive messages: at most 1000 characters (may be empty).
pub const TEST_DRIVE_MESSAGE_CHARS: usize = 1000;
/// How far ahead a test drive may be asked for.
const TEST_DRIVE_HORIZON_DAYS: u64 = 365;

const RATING_RULE: &str = "rating must be a whole number from 1 to 5";

/// A star rating: a whole number from 1 to 5, when one is given.
pub fn optional_rating(raw: Option<&Scalar>) -> Result<Option<i16>, MarketplaceError> {
    raw.map(|v| {
        let r = v.integer("rating")?;
        match i16::try_from(r) {
            Ok(r @ 1..=5) => Ok(r),
            _ => Err(MarketplaceError::invalid(
                "rating",
                &r.to_string(),
                RATING_RULE,
            )),
        }
    })
    .transpose()
}

/// A star rating that must be given (a dealer review).
pub fn rating(raw: Option<&Scalar>) -> Result<i16, MarketplaceError> {
    optional_rating(raw)?.ok_or_else(|| MarketplaceError::Validation {
        field: "rating",
        value: None,
        message: RATING_RULE.into(),
    })
}

/// When a customer would like to drive: a day from today (UTC) up to a year ahead, and the
/// time as they wrote it (the spec's "clock text"), with the clock time it reads as if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestDriveSlot {
    pub date: NaiveDate,
    pub time: String,
    pub clock: Option<NaiveTime>,
}

impl TestDriveSlot {
    pub fn parse(date: &str, time: &str, today: NaiveDate) -> Result<Self, MarketplaceError> {
        // The fixed widths refuse `2026-1-5` and `9:30`, which chrono's parser would take.
        let date_ok = NaiveDate::parse_from_str(date, "%Y-%m-%d")
            .ok()
            .filter(|_| date.len() == 10);
        let Some(day) = date_ok else {
            return Err(MarketplaceError::invalid(
                "preferredDate",
                date,
                "preferredDate must be a date YYYY-MM-DD",
            ));
        };
        let last = today
            .checked_add_days(Days::new(TEST_DRIVE_HORIZON_DAYS))
            .unwrap_or(today);
        if day < today || day > last {
            return Err(MarketplaceError::invalid(
                "preferredDate",
                date,
                "preferredDate must be today or a later day within a year (UTC)",
            ));
        }
        let text = time.trim();
        if text.is_empty() || text.chars().count() > clock_text::MAX_CHARS {
            return Err(MarketplaceError::invalid(
                "preferredTime",
                time,
                format!(
                    "preferredTime must be 1 to {} characters, e.g. 14:30 or 2:30 PM",
                    clock_text::MAX_CHARS
                ),
            ));
        }
        Ok(Self {
            date: day,
            time: text.to_owned(),
            clock: clock_text::read_clock(text),
        })
    }

    pub fn date_text(&self) -> String {
        self.date.format("%Y-%m-%d").to_string()
    }
}

/// How the dealer should answer an inquiry.
pub fn contact_method(raw: &str) -> Result<&'static str, MarketplaceError> {
    match raw {
        "whatsapp" => Ok("whatsapp"),
        "phone" => Ok("phone"),
        "email" => Ok("email"),
        _ => Err(MarketplaceError::invalid(
            "contactMethod",
            raw,
            "contactMethod must be whatsapp, phone or email",
        )),
    }
}

/// An inquiry's message: 10 to 1000 characters after trimming.
pub fn inquiry_message(raw: &str) -> Result<String, MarketplaceError> {
    let v = domain::text("message", raw, 1000)?;
    if v.chars().count() < 10 {
        return Err(MarketplaceError::invalid(
            "message",
            raw,
            "message must be 10 to 1000 characters",
        ));
    }
    Ok(v)
}

/// Where a car was shared: a short lowercase word such as whatsapp, facebook or link.
pub fn share_channel(raw: &str) -> Result<String, MarketplaceError> {
    let v = raw.trim().to_lowercase();
    let ok = (1..=30).contains(&v.len())
        && v.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if ok {
        Ok(v)
    } else {
        Err(MarketplaceError::invalid(
            "channel",
            raw,
            "channel must be 1 to 30 letters, digits, _ or -",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date")
    }

    #[test]
    fn slots_are_today_or_later_with_the_time_as_written() {
        let today = day("2026-11-24");
        let ok = TestDriveSlot::parse("2026-11-24", " 2:30 PM ", today).expect("today");
        assert_eq!(ok.date_text(), "2026-11-24");
        assert_eq!(ok.time, "2:30 PM");
        assert_eq!(ok.clock, NaiveTime::from_hms_opt(14, 30, 0));
        let free = TestDriveSlot::parse("2027-11-24", "after lunch", today).expect("text");
        assert_eq!(free.clock, None);
        for (d, t) in [
            ("2026-11-23", "09:30"),
            ("2027-11-25", "09:30"),
            ("2026-11-31", "09:30"),
            ("2026-1-5", "09:30"),
            ("tomorrow", "09:30"),
            ("2026-11-25", "  "),
        ] {
            assert!(TestDriveSlot::parse(d, t, today).is_err(), "{d} {t}");
        }
        assert!(TestDriveSlot::parse("2026-11-25", &"x".repeat(101), today).is_err());
    }

    #[test]
    fn ratings_methods_messages_and_channels() {
        let r = |n: f64| rating(Some(&Scalar::Number(n)));
        assert_eq!(r(5.0).ok(), Some(5));
        assert_eq!(rating(Some(&Scalar::Text("3".into()))).ok(), Some(3));
        assert!(r(0.0).is_err() && r(6.0).is_err() && r(4.5).is_err() && rating(None).is_err());
        assert_eq!(contact_method("email").ok(), Some("email"));
        assert!(contact_method("Email").is_err() && contact_method("fax").is_err());
        assert!(inquiry_message("too short").is_err());
        assert!(inquiry_message("  long enough now ").is_ok());
        assert!(inquiry_message(&"x".repeat(1001)).is_err());
        assert_eq!(
            share_channel(" WhatsApp ").ok().as_deref(),
            Some("whatsapp")
        );
        assert!(share_channel("").is_err() && share_channel("a b").is_err());
    }
}
