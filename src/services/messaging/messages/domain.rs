//! Parsed values of messages: channels, recipients, senders, SMS segments, templates and
//! statuses. Once constructed they are valid.

use super::super::error::MessagingError;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    Sms,
    Email,
    WhatsApp,
    Voice,
}

impl Channel {
    pub fn parse(s: &str) -> Result<Self, MessagingError> {
        match s {
            "sms" => Ok(Self::Sms),
            "email" => Ok(Self::Email),
            "whatsapp" => Ok(Self::WhatsApp),
            "voice" => Ok(Self::Voice),
            _ => Err(MessagingError::validation(
                "channel must be one of sms, email, whatsapp, voice",
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sms => "sms",
            Self::Email => "email",
            Self::WhatsApp => "whatsapp",
            Self::Voice => "voice",
        }
    }

    /// Channels addressed by phone number.
    pub fn is_phone(self) -> bool {
        !matches!(self, Self::Email)
    }
}

/// `+`, a non-zero digit, then up to 14 more digits (the spec's format rule, not a
/// carrier lookup).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct E164(String);

impl E164 {
    pub fn parse(s: &str) -> Result<Self, MessagingError> {
        let ok = s
            .strip_prefix('+')
            .filter(|d| (1..=15).contains(&d.len()))
            .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))
            .is_some_and(|d| !d.starts_with('0'));
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(MessagingError::validation(format!(
                "invalid phone number '{}': use E.164, e.g. +14155550123",
                clip(s, 40)
            )))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An e-mail address (`core::email`), refused in messaging's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailAddress(crate::core::email::EmailAddress);

impl EmailAddress {
    pub fn parse(s: &str) -> Result<Self, MessagingError> {
        crate::core::email::EmailAddress::parse(s)
            .map(Self)
            .map_err(|_| {
                MessagingError::validation(format!("invalid email address '{}'", clip(s, 60)))
            })
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// A recipient address valid for its channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipient {
    Phone(E164),
    Email(EmailAddress),
}

impl Recipient {
    pub fn parse(channel: Channel, s: &str) -> Result<Self, MessagingError> {
        if channel.is_phone() {
            E164::parse(s).map(Self::Phone)
        } else {
            EmailAddress::parse(s).map(Self::Email)
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Phone(p) => p.as_str(),
            Self::Email(e) => e.as_str(),
        }
    }
}

/// An email sender: the display name as given, the address `<slug>@{mail_domain}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    pub name: String,
    pub address: String,
}

impl Sender {
    pub fn parse(name: &str, mail_domain: &str) -> Result<Self, MessagingError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
            return Err(MessagingError::validation(
                "from must be a display name of 1 to 100 printable characters",
            ));
        }
        Ok(Self {
            address: format!("{}@{}", local_part(name), mail_domain),
            name: name.to_owned(),
        })
    }

    pub fn header(&self) -> String {
        format!("{} <{}>", self.name, self.address)
    }
}

/// Lowercase ASCII letters and digits of the name, other runs become one `-`.
fn local_part(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(64).collect();
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "noreply".into()
    } else {
        out
    }
}

pub fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

// ---- SMS segments ----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Gsm7,
    Ucs2,
}

/// The GSM 03.38 default alphabet (one septet each).
const GSM7_BASIC: &str = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";

/// The extension table: escape plus the character, two septets each.
const GSM7_EXTENSION: &str = "\u{000C}^{}\\[~]|€";

fn gsm7_width(c: char) -> Option<usize> {
    if GSM7_BASIC.contains(c) {
        Some(1)
    } else if GSM7_EXTENSION.contains(c) {
        Some(2)
    } else {
        None
    }
}

/// How carriers split `text`: GSM-7 when every character is in the GSM alphabets (160
/// septets single, 153 per part), else UCS-2 (70 code units single, 67 per part). A
/// two-septet extension character or a surrogate pair is never split across parts.
pub fn sms_segments(text: &str) -> (Encoding, u32) {
    let gsm: Option<Vec<usize>> = text.chars().map(gsm7_width).collect();
    let (encoding, widths, single, part) = match gsm {
        Some(w) => (Encoding::Gsm7, w, 160, 153),
        None => (
            Encoding::Ucs2,
            text.chars().map(char::len_utf16).collect(),
            70,
            67,
        ),
    };
    let total: usize = widths.iter().sum();
    if total <= single {
        return (encoding, 1);
    }
    let mut parts = 1u32;
    let mut used = 0usize;
    for w in widths {
        if used + w > part {
            parts += 1;
            used = 0;
        }
        used += w;
    }
    (encoding, parts)
}

// ---- templates ----

/// A part of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Var(String),
}

/// A bulk template parsed once and checked against its caps before any rendering: at most
/// `max_chars` characters and `max_placeholders` `{{ name }}` placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(Vec<Part>);

impl Template {
    pub fn parse(
        field: &str,
        template: &str,
        max_chars: usize,
        max_placeholders: usize,
    ) -> Result<Self, MessagingError> {
        // Bytes bound characters from above, so most templates skip the count.
        if template.len() > max_chars && template.chars().count() > max_chars {
            return Err(MessagingError::validation(format!(
                "{field} is longer than {max_chars} characters"
            )));
        }
        let mut parts = Vec::new();
        let mut placeholders = 0usize;
        let mut rest = template;
        while let Some(start) = rest.find("{{") {
            let Some(len) = rest[start + 2..].find("}}") else {
                break;
            };
            let name = rest[start + 2..start + 2 + len].trim();
            let is_name = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.');
            let end = start + 2 + len + 2;
            if is_name {
                placeholders += 1;
                if placeholders > max_placeholders {
                    return Err(MessagingError::validation(format!(
                        "{field} has more than {max_placeholders} placeholders"
                    )));
                }
                if start > 0 {
                    parts.push(Part::Text(rest[..start].to_owned()));
                }
                parts.push(Part::Var(name.to_owned()));
            } else {
                // Not a placeholder (e.g. "{{ }}"): kept as written.
                parts.push(Part::Text(rest[..end].to_owned()));
            }
            rest = &rest[end..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_owned()));
        }
        Ok(Self(parts))
    }

    /// Fills the placeholders with the recipient's values, stopping as soon as the text
    /// passes `budget` characters, so a large value repeated many times never builds more
    /// than `budget + 1` characters. A placeholder without a value is an error naming it
    /// (the recipient is counted as failed), so nobody receives "Hello {{name}}".
    pub fn render(&self, vars: &Map<String, Value>, budget: usize) -> Result<String, RenderError> {
        let mut out = String::new();
        let mut left = budget;
        for part in &self.0 {
            match part {
                Part::Text(t) => push_within(&mut out, &mut left, t)?,
                Part::Var(name) => match vars.get(name) {
                    Some(Value::String(s)) => push_within(&mut out, &mut left, s)?,
                    Some(Value::Null) => {}
                    Some(v @ (Value::Number(_) | Value::Bool(_))) => {
                        push_within(&mut out, &mut left, &v.to_string())?
                    }
                    // Arrays and objects: their JSON, itself cut at the budget.
                    Some(v) => {
                        let json = json_prefix(v, left + 1);
                        push_within(&mut out, &mut left, &json)?
                    }
                    None => return Err(RenderError::Missing(name.clone())),
                },
            }
        }
        Ok(out)
    }
}

/// Appends `piece` when it fits in the `left` characters; otherwise appends only what fits
/// and fails. At most `left + 1` characters of `piece` are looked at.
fn push_within(out: &mut String, left: &mut usize, piece: &str) -> Result<(), RenderError> {
    match piece.char_indices().nth(*left) {
        Some((i, _)) => {
            out.push_str(&piece[..i]);
            Err(RenderError::TooLong)
        }
        None => {
            out.push_str(piece);
            *left -= piece.chars().count();
            Ok(())
        }
    }
}

/// The first `max` bytes (at least) of a value's JSON, without serialising all of it.
fn json_prefix(v: &Value, max: usize) -> String {
    struct Capped(Vec<u8>, usize);
    impl std::io::Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0.len() >= self.1 {
                return Err(std::io::Error::other("budget reached"));
            }
            self.0.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Each char is at most 4 bytes: max × 4 bytes hold more than `max` characters.
    let mut w = Capped(Vec::new(), max.saturating_mul(4));
    let _ = serde_json::to_writer(&mut w, v);
    String::from_utf8_lossy(&w.0).into_owned()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderError {
    /// A placeholder the recipient has no value for.
    Missing(String),
    /// The text passed the budget.
    TooLong,
}

impl RenderError {
    pub fn describe(&self, field: &str, budget: usize) -> String {
        match self {
            Self::Missing(name) => format!("no value for placeholder {{{{{name}}}}}"),
            Self::TooLong => format!("{field} is longer than {budget} characters"),
        }
    }
}

pub use switchboard_entities::messaging::message::MessageStatus as Status;

/// A carrier's status word (Twilio message and call statuses: the carrier's vocabulary, which
/// only partly spells ours) as the status it reports; `None` for an intermediate one.
pub fn from_carrier(word: &str) -> Option<Status> {
    match word.to_ascii_lowercase().as_str() {
        "sent" | "in-progress" | "ringing" => Some(Status::Sent),
        "delivered" | "read" | "completed" => Some(Status::Delivered),
        "failed" | "undelivered" | "busy" | "no-answer" | "canceled" => Some(Status::Failed),
        _ => None,
    }
}

/// A list's `status` filter: one of the statuses the API shows (`queued`, `sent`,
/// `delivered`, `failed`, `received`); a validation error naming them otherwise.
pub fn listed_status(value: &str) -> Result<Status, MessagingError> {
    Status::parse(value)
        .filter(|s| s.is_public())
        .ok_or_else(|| {
            let shown: Vec<&str> = Status::ALL
                .iter()
                .filter(|s| s.is_public())
                .map(|s| s.as_str())
                .collect();
            MessagingError::validation(format!("status must be one of {}", shown.join(", ")))
        })
}

/// `value` of the query parameter `field` when it is one of `allowed`; a validation error
/// naming them otherwise.
pub fn one_of<'a>(
    field: &str,
    value: &'a str,
    allowed: &[&str],
) -> Result<&'a str, MessagingError> {
    if allowed.contains(&value) {
        Ok(value)
    } else {
        Err(MessagingError::validation(format!(
            "{field} must be one of {}",
            allowed.join(", ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn segment_table() {
        let a = |n| "a".repeat(n);
        assert_eq!(sms_segments(&a(1)), (Encoding::Gsm7, 1));
        assert_eq!(sms_segments(&a(160)), (Encoding::Gsm7, 1));
        assert_eq!(sms_segments(&a(161)), (Encoding::Gsm7, 2));
        assert_eq!(sms_segments(&a(306)), (Encoding::Gsm7, 2));
        assert_eq!(sms_segments(&a(307)), (Encoding::Gsm7, 3));
        assert_eq!(sms_segments(&a(459)), (Encoding::Gsm7, 3));
        assert_eq!(sms_segments(&a(460)), (Encoding::Gsm7, 4));
        let zh = |n| "ж".repeat(n);
        assert_eq!(sms_segments(&zh(70)), (Encoding::Ucs2, 1));
        assert_eq!(sms_segments(&zh(71)), (Encoding::Ucs2, 2));
        assert_eq!(sms_segments(&zh(134)), (Encoding::Ucs2, 2));
        assert_eq!(sms_segments(&zh(135)), (Encoding::Ucs2, 3));
    }

    #[test]
    fn extension_characters_take_two_septets_and_never_split() {
        let text = format!("{}€{}", "a".repeat(152), "a".repeat(152));
        assert_eq!(sms_segments(&text), (Encoding::Gsm7, 3));
        assert_eq!(sms_segments(&"€".repeat(80)), (Encoding::Gsm7, 1));
        assert_eq!(sms_segments(&"€".repeat(81)), (Encoding::Gsm7, 2));
        assert_eq!(sms_segments("{}[]~|^\\\u{000C}"), (Encoding::Gsm7, 1));
    }

    #[test]
    fn surrogate_pairs_never_split() {
        let text = format!("{}😀{}", "ж".repeat(66), "ж".repeat(66));
        assert_eq!(sms_segments(&text), (Encoding::Ucs2, 3));
        assert_eq!(sms_segments(&"😀".repeat(35)), (Encoding::Ucs2, 1));
        assert_eq!(sms_segments(&"😀".repeat(36)), (Encoding::Ucs2, 2));
        // One non-GSM character switches the whole message to UCS-2.
        assert_eq!(
            sms_segments(&format!("{}’", "a".repeat(69))),
            (Encoding::Ucs2, 1)
        );
        assert_eq!(
            sms_segments(&format!("{}’", "a".repeat(70))),
            (Encoding::Ucs2, 2)
        );
    }

    #[test]
    fn e164() {
        for ok in ["+14155550123", "+491761234567", "+1", "+123456789012345"] {
            assert!(E164::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "14155550123",
            "+0123",
            "+",
            "+1234567890123456",
            "+1 415",
            "+1a",
            "",
        ] {
            assert!(E164::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_malformed_email_is_refused_in_messagings_words() {
        // The rule itself is core::email's; here only its wording.
        let err = EmailAddress::parse("a b@c.co").unwrap_err().to_string();
        assert!(err.contains("invalid email address 'a b@c.co'"), "{err}");
        assert_eq!(EmailAddress::parse(" a@b.co ").unwrap().as_str(), "a@b.co");
    }

    fn tpl(s: &str) -> Template {
        Template::parse("content.text", s, 1600, 256).unwrap()
    }

    #[test]
    fn templates() {
        let vars = json!({"name": "Ann", "n": 3, "nil": null, "o": {"k": [1]}})
            .as_object()
            .unwrap()
            .clone();
        assert_eq!(
            tpl("Hi {{name}}, {{ n }} left{{nil}} {{o}}")
                .render(&vars, 100)
                .unwrap(),
            "Hi Ann, 3 left {\"k\":[1]}"
        );
        assert_eq!(
            tpl("Hi {{nope}}").render(&vars, 100),
            Err(RenderError::Missing("nope".into()))
        );
        assert_eq!(
            tpl("{{ }} and {{").render(&vars, 100).unwrap(),
            "{{ }} and {{"
        );
    }

    #[test]
    fn rendering_stops_at_the_budget() {
        let big = "x".repeat(1_000_000);
        let vars = json!({ "a": big, "o": [big] }).as_object().unwrap().clone();
        let t = tpl(&"{{a}}".repeat(256));
        assert_eq!(t.render(&vars, 1600), Err(RenderError::TooLong));
        assert_eq!(tpl("{{o}}").render(&vars, 10), Err(RenderError::TooLong));
        let exact = json!({"a": "ж".repeat(800)}).as_object().unwrap().clone();
        assert_eq!(
            tpl("{{a}}{{a}}")
                .render(&exact, 1600)
                .unwrap()
                .chars()
                .count(),
            1600
        );
        assert_eq!(
            tpl("{{a}}{{a}}x").render(&exact, 1600),
            Err(RenderError::TooLong)
        );
        // The budget bounds the work too: a million 1 MB values would take minutes.
        let started = std::time::Instant::now();
        let _ = t.render(&vars, 1600);
        assert!(started.elapsed() < std::time::Duration::from_millis(50));
    }

    #[test]
    fn templates_are_capped_before_rendering() {
        let err = |r: Result<Template, MessagingError>| r.unwrap_err().to_string();
        assert!(err(Template::parse(
            "content.text",
            &"a".repeat(1601),
            1600,
            256
        ))
        .contains("longer than 1600"));
        assert!(Template::parse("content.text", &"ж".repeat(1600), 1600, 256).is_ok());
        assert!(err(Template::parse(
            "content.text",
            &"{{a}}".repeat(257),
            2000,
            256
        ))
        .contains("more than 256 placeholders"));
        assert!(Template::parse("content.text", &"{{a}}".repeat(256), 2000, 256).is_ok());
        // "{{ }}" is text, not a placeholder.
        assert!(Template::parse("content.text", &"{{ }}".repeat(300), 2000, 256).is_ok());
    }

    #[test]
    fn sender_address_is_a_slug_of_the_name() {
        let s = Sender::parse("Acme Shop!", "mail.example.com").unwrap();
        assert_eq!(s.address, "acme-shop@mail.example.com");
        assert_eq!(
            Sender::parse("Ключ", "m.io").unwrap().address,
            "noreply@m.io"
        );
        assert!(Sender::parse(" ", "m.io").is_err());
    }

    #[test]
    fn carrier_words_read_as_statuses() {
        assert_eq!(from_carrier("undelivered"), Some(Status::Failed));
        assert_eq!(from_carrier("Delivered"), Some(Status::Delivered));
        assert_eq!(from_carrier("ringing"), Some(Status::Sent));
        assert_eq!(from_carrier("queued"), None);
    }

    #[test]
    fn a_list_is_filtered_by_the_statuses_the_api_shows() {
        for s in Status::ALL.iter().copied().filter(|s| s.is_public()) {
            assert_eq!(listed_status(s.as_str()).unwrap(), s);
        }
        let err = listed_status(Status::Sending.as_str())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("status must be one of queued, sent, delivered, failed, received"),
            "{err}"
        );
    }
}

/// A validated message, priced, not yet stored.
#[derive(Debug, Clone)]
pub struct Draft {
    pub channel: Channel,
    pub recipient: String,
    pub sender: Option<String>,
    pub subject: Option<String>,
    pub text: Option<String>,
    pub html: Option<String>,
    pub metadata: Option<Value>,
    /// Hundredths of a credit.
    pub cost: i64,
    pub segments: i32,
}
