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
    /// `queued`, `running`, `done` or `dead`.
    pub status: String,
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
