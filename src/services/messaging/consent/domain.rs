//! What a recipient's consent is made of: the keywords texted back, the address a
//! suppression names (one spelling per recipient), and the default answers.

use super::super::error::MessagingError;
use super::super::messages::domain::{Channel, EmailAddress, E164};

/// A whole inbound text that changes consent or asks for help (case and surrounding space
/// ignored; a keyword inside a longer text is an ordinary message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    OptOut,
    OptIn,
    Help,
}

/// The carriers' (CTIA's) opt-out words, as Twilio honours them.
const OPT_OUT: [&str; 8] = [
    "STOP",
    "STOPALL",
    "UNSUBSCRIBE",
    "CANCEL",
    "END",
    "QUIT",
    "REVOKE",
    "OPTOUT",
];
const OPT_IN: [&str; 3] = ["START", "UNSTOP", "YES"];
const HELP: [&str; 2] = ["HELP", "INFO"];

impl Keyword {
    pub fn of(text: &str) -> Option<Self> {
        let word = text.trim().to_uppercase();
        let is = |list: &[&str]| list.contains(&word.as_str());
        if is(&OPT_OUT) {
            Some(Self::OptOut)
        } else if is(&OPT_IN) {
            Some(Self::OptIn)
        } else if is(&HELP) {
            Some(Self::Help)
        } else {
            None
        }
    }
}

pub const DEFAULT_OPT_OUT_REPLY: &str =
    "You have been unsubscribed and will receive no more messages from this number. Reply START to resubscribe.";
pub const DEFAULT_OPT_IN_REPLY: &str =
    "You have been resubscribed and will receive messages from this number again. Reply STOP to unsubscribe.";
pub const DEFAULT_HELP_REPLY: &str =
    "Reply STOP to unsubscribe, START to resubscribe. Message and data rates may apply.";

/// Longest reply a workspace may set: one GSM-7 segment and a half is plenty, and a reply is
/// never charged, so it may not grow into a free bulk channel.
pub const MAX_REPLY_CHARS: usize = 320;

/// A recipient as a suppression names it: E.164 for phone channels (separators a person
/// types are dropped), `local@domain` with the domain lower-cased for email (mailbox
/// providers treat the domain case-insensitively; the local part is the provider's to read).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Address {
    pub channel: Channel,
    pub address: String,
}

impl Address {
    pub fn parse(channel: Channel, raw: &str) -> Result<Self, MessagingError> {
        let raw = raw.trim();
        let address = if channel.is_phone() {
            let compact: String = raw
                .chars()
                .filter(|c| !matches!(c, ' ' | '-' | '(' | ')' | '.'))
                .collect();
            E164::parse(&compact)?.as_str().to_owned()
        } else {
            normalised_email(EmailAddress::parse(raw)?.as_str())
        };
        Ok(Self { channel, address })
    }

    /// The address of a recipient already parsed for sending.
    pub fn of_recipient(channel: Channel, recipient: &str) -> Self {
        let address = if channel.is_phone() {
            recipient.to_owned()
        } else {
            normalised_email(recipient)
        };
        Self { channel, address }
    }
}

fn normalised_email(s: &str) -> String {
    match s.rsplit_once('@') {
        Some((local, domain)) => format!("{local}@{}", domain.to_ascii_lowercase()),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_whole_messages_in_any_case() {
        assert_eq!(Keyword::of("  stop \n"), Some(Keyword::OptOut));
        assert_eq!(Keyword::of("OptOut"), Some(Keyword::OptOut));
        assert_eq!(Keyword::of("unstop"), Some(Keyword::OptIn));
        assert_eq!(Keyword::of("Info"), Some(Keyword::Help));
        assert_eq!(Keyword::of("please stop"), None);
        assert_eq!(Keyword::of("STOP!"), None);
        assert_eq!(Keyword::of(""), None);
    }

    #[test]
    fn addresses_have_one_spelling() {
        let a = Address::parse(Channel::Sms, " +1 (415) 555-0123 ").unwrap();
        assert_eq!(a.address, "+14155550123");
        assert!(Address::parse(Channel::Sms, "4155550123").is_err());
        let e = Address::parse(Channel::Email, "Ann.Lee@Example.COM").unwrap();
        assert_eq!(e.address, "Ann.Lee@example.com");
        assert_eq!(
            Address::of_recipient(Channel::Email, "Ann.Lee@EXAMPLE.com"),
            e
        );
    }
}
