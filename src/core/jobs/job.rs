//! What the queue stores and hands out: ids, statuses, the job a handler receives, the job
//! a service enqueues, and a handler's answer.

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;
use std::str::FromStr;
use switchboard_entities::core::job;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub Uuid);

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for JobId {
    type Err = uuid::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Uuid::parse_str(s).map(Self)
    }
}

pub use switchboard_entities::core::job::JobStatus as Status;

/// One run of a job, as its handler receives it.
#[derive(Debug, Clone)]
pub struct Job {
    pub id: JobId,
    pub topic: String,
    pub payload: Value,
    /// This run's number: 1 on the first run, counting every claim.
    pub attempt: i32,
    pub max_attempts: i32,
}

impl Job {
    /// The payload as `T`; a payload that does not parse never will, so that failure is
    /// permanent.
    pub fn payload<T: DeserializeOwned>(&self) -> Result<T, JobFailure> {
        serde_json::from_value(self.payload.clone())
            .map_err(|e| JobFailure::permanent(format!("payload: {e}")))
    }

    /// The job as just claimed (`row` as read, before the claim counted its attempt).
    pub(super) fn claimed(row: job::Model) -> Self {
        Self {
            id: JobId(row.id),
            topic: row.topic,
            payload: row.payload,
            attempt: row.attempts + 1,
            max_attempts: row.max_attempts,
        }
    }
}

/// A job to enqueue: `NewJob::new(topic, payload)`, then optionally when, how many
/// attempts and a unique key.
#[derive(Debug, Clone)]
pub struct NewJob {
    pub topic: String,
    pub payload: Value,
    /// Not before this time; default now.
    pub run_at: Option<DateTime<Utc>>,
    /// Default `[jobs] max_attempts`.
    pub max_attempts: Option<i32>,
    /// At most one job per key ever: enqueueing a key that exists does nothing.
    pub key: Option<String>,
}

impl NewJob {
    pub fn new(topic: impl Into<String>, payload: Value) -> Self {
        Self {
            topic: topic.into(),
            payload,
            run_at: None,
            max_attempts: None,
            key: None,
        }
    }

    pub fn at(mut self, run_at: DateTime<Utc>) -> Self {
        self.run_at = Some(run_at);
        self
    }

    pub fn max_attempts(mut self, n: i32) -> Self {
        self.max_attempts = Some(n);
        self
    }

    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

/// A run that succeeded, with how many things it handled (rows purged, calls made) for the log.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    pub handled: u64,
}

impl From<u64> for Done {
    fn from(handled: u64) -> Self {
        Self { handled }
    }
}

/// A run's outcome from a count of things handled, or an error worth another try (the
/// usual shape of a purge).
pub fn counted<E: fmt::Display>(result: Result<u64, E>) -> Result<Done, JobFailure> {
    result.map(Done::from).map_err(JobFailure::retry)
}

/// A run that failed: to be tried again (at a time the handler names, or after the queue's
/// backoff), or never again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobFailure {
    Retry {
        error: String,
        at: Option<DateTime<Utc>>,
    },
    Permanent {
        error: String,
    },
}

impl JobFailure {
    /// Try again after the queue's backoff.
    pub fn retry(error: impl fmt::Display) -> Self {
        Self::Retry {
            error: error.to_string(),
            at: None,
        }
    }

    /// Try again at `at` (a receiver's Retry-After, the handler's own schedule).
    pub fn retry_at(error: impl fmt::Display, at: DateTime<Utc>) -> Self {
        Self::Retry {
            error: error.to_string(),
            at: Some(at),
        }
    }

    pub fn permanent(error: impl fmt::Display) -> Self {
        Self::Permanent {
            error: error.to_string(),
        }
    }

    pub fn error(&self) -> &str {
        match self {
            Self::Retry { error, .. } | Self::Permanent { error } => error,
        }
    }
}

/// A store error is worth another try.
impl From<sea_orm::DbErr> for JobFailure {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::retry(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_parse_from_their_names_only() {
        for st in <Status as sea_orm::Iterable>::iter() {
            assert_eq!(st.as_str().parse::<Status>(), Ok(st));
        }
        assert_eq!("DEAD".parse::<Status>(), Ok(Status::Dead));
        assert!("failed".parse::<Status>().is_err());
    }

    #[test]
    fn a_payload_that_does_not_parse_is_a_permanent_failure() {
        let job = Job {
            id: JobId(Uuid::nil()),
            topic: "t".into(),
            payload: serde_json::json!({"n": "x"}),
            attempt: 1,
            max_attempts: 3,
        };
        #[derive(serde::Deserialize)]
        struct P {
            #[expect(dead_code, reason = "read only by the deserializer under test")]
            n: u32,
        }
        assert!(matches!(
            job.payload::<P>(),
            Err(JobFailure::Permanent { .. })
        ));
    }
}
