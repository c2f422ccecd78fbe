//! What every adapter of a message port shares: the message handed over, what a provider
//! answers, and how a failed request is described.

use std::time::Duration;

/// How long one request to a provider's HTTP API may take.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// What a failed request to a provider's API records: its cause ("certificate not trusted",
/// "connection refused", "timed out after 30 s"), never the URL.
pub fn http_failure(e: &reqwest::Error) -> String {
    crate::core::net_error::describe_http(e, HTTP_TIMEOUT)
}

/// The message a provider is handed, so that it hands each message over once.
#[derive(Debug, Clone, Copy)]
pub struct Handover<'a> {
    /// The sender's id of the message (the built-in providers and status callbacks carry it).
    pub message_id: uuid::Uuid,
    /// Set when an earlier claim on the message lapsed: it may have been handed over already.
    pub retake: Option<Retake<'a>>,
}

/// What the sender knows of a message whose earlier hand-over may have happened.
#[derive(Debug, Clone, Copy)]
pub struct Retake<'a> {
    /// The provider's id, when one was recorded (a status callback can bring it first).
    pub provider_message_id: Option<&'a str>,
    /// When the message was created: it cannot have left before.
    pub since: chrono::DateTime<chrono::Utc>,
    /// Provider ids other messages already hold: never adopted for this one.
    pub taken: &'a [String],
}

/// A message the provider has: the id it gave it and, when an earlier hand-over was found
/// rather than made now, the provider's status word for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    pub provider_message_id: String,
    pub status: Option<String>,
}

impl Accepted {
    pub fn new(provider_message_id: String) -> Self {
        Self {
            provider_message_id,
            status: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("provider unreachable: {0}")]
    Unreachable(String),
    #[error("provider refused the request ({status}): {message}")]
    Rejected { status: u16, message: String },
    #[error("outbox write failed: {0}")]
    Outbox(#[from] std::io::Error),
    /// The request may have reached the provider (it timed out, or the answer to a create
    /// named no id), so whether it took the message is unknown until someone looks. Only
    /// adapters that can look a hand-over up (`Handover::retake`) answer it.
    #[error("provider outcome unknown: {0}")]
    Unknown(String),
}
