//! A ticket's fields, parsed: what a poster may write into a ticket and its messages.

use super::super::error::{AdvertisingError, Result};
use super::super::fields::https_url;

/// Longest subject, category and message, in characters.
pub const SUBJECT_MAX: usize = 200;
pub const CATEGORY_MAX: usize = 50;
pub const MESSAGE_MAX: usize = 5000;

/// `field` trimmed, 1 to `max` characters; line breaks only where `multiline`.
fn text(field: &'static str, raw: Option<&str>, max: usize, multiline: bool) -> Result<String> {
    let value = raw.map(str::trim).unwrap_or_default();
    if value.is_empty() {
        return Err(AdvertisingError::invalid(field, "is required").into());
    }
    if value.chars().count() > max {
        return Err(
            AdvertisingError::invalid(field, format!("must be at most {max} characters")).into(),
        );
    }
    let allowed = |c: char| multiline && matches!(c, '\n' | '\r' | '\t');
    if value.chars().any(|c| c.is_control() && !allowed(c)) {
        return Err(AdvertisingError::invalid(field, "must not hold control characters").into());
    }
    Ok(value.to_owned())
}

/// The text of one message of a ticket (`message`: 1 to 5000 characters, line breaks kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageText(String);

impl MessageText {
    pub fn parse(raw: Option<&str>) -> Result<Self> {
        text("message", raw, MESSAGE_MAX, true).map(Self)
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// A ticket as a poster opens it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTicket {
    pub subject: String,
    pub category: String,
    pub message: MessageText,
    pub screenshot_url: Option<String>,
}

impl NewTicket {
    pub fn parse(
        subject: Option<&str>,
        category: Option<&str>,
        message: Option<&str>,
        screenshot_url: Option<&str>,
    ) -> Result<Self> {
        Ok(Self {
            subject: text("subject", subject, SUBJECT_MAX, false)?,
            category: text("category", category, CATEGORY_MAX, false)?,
            message: MessageText::parse(message)?,
            screenshot_url: screenshot_url
                .map(|u| https_url("screenshotUrl", u))
                .transpose()?,
        })
    }
}

pub use switchboard_entities::advertising::support_ticket::TicketStatus;

/// The words a `status` filter of the ticket lists accepts.
pub const STATUSES: &[&str] = TicketStatus::WORDS;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticket_fields_are_trimmed_and_bounded() {
        let t = NewTicket::parse(
            Some("  Payout late "),
            Some("payments"),
            Some("Hi\nthere"),
            None,
        )
        .unwrap();
        assert_eq!(t.subject, "Payout late");
        assert_eq!(t.message.into_inner(), "Hi\nthere");
        assert!(NewTicket::parse(Some("a\nb"), Some("c"), Some("m"), None).is_err());
        assert!(NewTicket::parse(Some(&"s".repeat(201)), Some("c"), Some("m"), None).is_err());
        assert!(NewTicket::parse(Some("s"), Some(&"c".repeat(51)), Some("m"), None).is_err());
        assert!(NewTicket::parse(Some("s"), Some("   "), Some("m"), None).is_err());
        assert!(MessageText::parse(Some(&"é".repeat(5000))).is_ok());
        assert!(MessageText::parse(Some(&"é".repeat(5001))).is_err());
        assert!(MessageText::parse(Some("a\u{0}b")).is_err());
    }
}
