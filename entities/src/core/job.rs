use sea_orm::entity::prelude::*;

/// One unit of background work in the durable job queue (`src/core/jobs`). A node claims a
/// due row by taking its lease; a recurring job is one row (key `every:<topic>`) that each run
/// schedules again.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "core_jobs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// Which handler runs it (`interview.webhook`, `identity.purge`, …).
    pub topic: String,
    pub payload: Json,
    /// Not run before this time (the injected clock).
    pub run_at: DateTimeUtc,
    /// Claims so far, the running one included.
    pub attempts: i32,
    pub max_attempts: i32,
    pub status: JobStatus,
    /// The node that holds the running job, and until when; a lapsed lease may be retaken.
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTimeUtc>,
    pub last_error: Option<String>,
    /// At most one job per key, for the life of the row (enqueueing it again does nothing).
    #[sea_orm(unique)]
    pub key: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// Where a job is in the queue: queued → running → done, or back to queued (a retry, a
    /// recurring job's next run), or dead; an operator's retry sends a dead job back to queued.
    pub enum JobStatus {
        /// Waiting for `run_at` (a retry waits here too, with its `last_error`).
        Queued = "queued",
        /// Claimed by the node named in `lease_owner` until `lease_until`.
        Running = "running",
        Done = "done",
        /// Failed for good (a permanent failure, or `max_attempts` spent); `jobs retry` revives it.
        Dead = "dead",
    }
}

impl JobStatus {
    /// The states an operator's retry takes a job from (a dead one starts its attempts
    /// afresh; a waiting one becomes due now); a running or done job is left alone.
    pub const RETRYABLE: [Self; 2] = [Self::Dead, Self::Queued];

    pub fn retryable(self) -> bool {
        Self::RETRYABLE.contains(&self)
    }
}

/// The operator's spelling (`switchboard jobs list --status DEAD`), in any case.
impl std::str::FromStr for JobStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(&s.to_ascii_lowercase())
            .ok_or_else(|| format!("unknown job status {s:?} ({})", Self::WORDS.join(", ")))
    }
}
