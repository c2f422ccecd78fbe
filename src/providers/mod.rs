//! Ports to the outside world and their adapters. Each port is a trait with a built-in
//! default (the local outbox) and a real adapter chosen in config.

pub mod ai;
pub mod email;
pub mod kyc;
pub mod outbox;
pub mod sms;
pub mod twilio;
pub mod voice;
pub mod whatsapp;

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("provider unreachable: {0}")]
    Unreachable(String),
    #[error("provider refused the request ({status}): {message}")]
    Rejected { status: u16, message: String },
    #[error("outbox write failed: {0}")]
    Outbox(#[from] std::io::Error),
}
