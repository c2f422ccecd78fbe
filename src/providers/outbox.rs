//! The built-in sandbox: every message to a person is appended as one JSON line, so local
//! users and tests read OTP codes and notifications from a file instead of a phone.
//!
//! As a provider it hands each message over once: a line names its `message_id`, and a
//! retaken hand-over looks for that line (under the same lock as the appends) before it
//! appends, answering the provider id the first hand-over gave.

use super::{Accepted, Handover};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::path::PathBuf;
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;
use uuid::Uuid;

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
    /// The sending service's message id (messages of the messaging service).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<Uuid>,
    /// What a channel carries besides text (a push's platform and data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<&'a serde_json::Value>,
}

impl<'a> OutboxEntry<'a> {
    /// A line without subject, provider id or message id (the sender adds those it has).
    pub fn new(
        channel: &'a str,
        to: &'a str,
        text: &'a str,
        service: &'a str,
        created_at: DateTime<Utc>,
    ) -> Self {
        Self {
            channel,
            to,
            subject: None,
            text,
            service,
            created_at,
            provider_message_id: None,
            message_id: None,
            details: None,
        }
    }
}

pub struct Outbox {
    path: PathBuf,
    // Serialises appends (and look-ups before an append) so that lines from concurrent
    // senders never interleave and a look-up never reads half a line.
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
        let _guard = self.lock.lock().await;
        self.write_line(entry).await
    }

    async fn write_line(&self, entry: &OutboxEntry<'_>) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
        line.push(b'\n');
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir).await?;
        }
        let mut file = tokio::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .await?;
        // One write of the whole line: a process killed around it leaves the line or nothing.
        file.write_all(&line).await?;
        file.flush().await
    }

    /// Accepts a message as a provider would: appends it with a fresh provider id
    /// (`{prefix}{uuid}`) and returns that id.
    pub async fn accept(&self, prefix: &str, entry: OutboxEntry<'_>) -> std::io::Result<String> {
        let _guard = self.lock.lock().await;
        self.accept_locked(prefix, entry).await
    }

    async fn accept_locked(&self, prefix: &str, entry: OutboxEntry<'_>) -> std::io::Result<String> {
        let id = format!("{prefix}{}", Uuid::new_v4().simple());
        self.write_line(&OutboxEntry {
            provider_message_id: Some(&id),
            ..entry
        })
        .await?;
        Ok(id)
    }

    /// Accepts the message `h.message_id` once: a retaken hand-over whose line is already
    /// written answers that line's provider id and appends nothing.
    pub async fn hand_over(
        &self,
        prefix: &str,
        h: &Handover<'_>,
        entry: OutboxEntry<'_>,
    ) -> std::io::Result<Accepted> {
        let _guard = self.lock.lock().await;
        if h.retake.is_some() {
            if let Some(id) = self.find_locked(h.message_id).await? {
                return Ok(Accepted::new(id));
            }
        }
        let entry = OutboxEntry {
            message_id: Some(h.message_id),
            ..entry
        };
        self.accept_locked(prefix, entry).await.map(Accepted::new)
    }

    /// The provider id of the line written for `message_id`, if there is one.
    pub async fn find(&self, message_id: Uuid) -> std::io::Result<Option<String>> {
        let _guard = self.lock.lock().await;
        self.find_locked(message_id).await
    }

    /// The sandbox "carrier"'s status word for a message: it has delivered whatever its
    /// outbox holds.
    pub async fn status(&self, message_id: Uuid) -> std::io::Result<Option<String>> {
        Ok(self.find(message_id).await?.map(|_| "delivered".to_owned()))
    }

    async fn find_locked(&self, message_id: Uuid) -> std::io::Result<Option<String>> {
        let content = match tokio::fs::read(&self.path).await {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let needle = message_id.to_string();
        let found = content
            .split(|b| *b == b'\n')
            // Only lines that mention the id are parsed.
            .filter(|line| line.windows(needle.len()).any(|w| w == needle.as_bytes()))
            .filter_map(|line| serde_json::from_slice::<serde_json::Value>(line).ok())
            .find(|v| v["message_id"].as_str() == Some(needle.as_str()))
            .and_then(|v| v["provider_message_id"].as_str().map(str::to_owned));
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> OutboxEntry<'static> {
        let at = DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default();
        OutboxEntry::new("sms", "+14155550123", "hi", "messaging", at)
    }

    #[tokio::test]
    async fn a_retaken_hand_over_answers_the_first_id_without_a_second_line() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::new(dir.path().join("outbox.jsonl"));
        let id = Uuid::new_v4();
        let retake = super::super::Retake {
            provider_message_id: None,
            since: Utc::now(),
            taken: &[],
        };
        let first = outbox
            .hand_over(
                "SM",
                &Handover {
                    message_id: id,
                    retake: None,
                },
                entry(),
            )
            .await
            .unwrap();
        let again = Handover {
            message_id: id,
            retake: Some(retake),
        };
        let second = outbox.hand_over("SM", &again, entry()).await.unwrap();
        assert_eq!(first, second);
        let lines = std::fs::read_to_string(outbox.path()).unwrap();
        assert_eq!(lines.lines().count(), 1);
        assert!(lines.contains(&id.to_string()));
        let other = Handover {
            message_id: Uuid::new_v4(),
            retake: Some(retake),
        };
        assert_ne!(
            outbox.hand_over("SM", &other, entry()).await.unwrap(),
            first
        );
        assert_eq!(
            outbox.find(id).await.unwrap(),
            Some(first.provider_message_id)
        );
    }
}
