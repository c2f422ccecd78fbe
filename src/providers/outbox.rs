//! The built-in sandbox: every message to a person is appended as one JSON line, so local
//! users and tests read OTP codes and notifications from a file instead of a phone.

use chrono::{DateTime, Utc};
use serde::Serialize;
use std::path::PathBuf;
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;

#[derive(Debug, Clone, Serialize)]
pub struct OutboxEntry<'a> {
    pub channel: &'a str,
    pub to: &'a str,
    pub subject: Option<&'a str>,
    pub text: &'a str,
    pub service: &'a str,
    pub created_at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_message_id: Option<&'a str>,
}

pub struct Outbox {
    path: PathBuf,
    // Serialises appends so that lines from concurrent senders never interleave.
    lock: Mutex<()>,
}

impl Outbox {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    pub async fn append(&self, entry: &OutboxEntry<'_>) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let _guard = self.lock.lock().await;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir).await?;
        }
        let mut file = tokio::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .await?;
        file.write_all(&line).await?;
        file.flush().await
    }

    /// Accepts a message as a provider would: appends it with a fresh provider id
    /// (`{prefix}{uuid}`) and returns that id.
    pub async fn accept(&self, prefix: &str, entry: OutboxEntry<'_>) -> std::io::Result<String> {
        let id = format!("{prefix}{}", uuid::Uuid::new_v4().simple());
        self.append(&OutboxEntry {
            provider_message_id: Some(&id),
            ..entry
        })
        .await?;
        Ok(id)
    }
}
