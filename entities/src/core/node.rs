use sea_orm::entity::prelude::*;

/// A node id and the process acting under it now (`core::node`).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "core_nodes")]
pub struct Model {
    /// `[cluster] node_id`, or the id kept in the data directory.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The holding process's random name; empty after a clean stop.
    pub incarnation: String,
    pub started_at: DateTimeUtc,
    /// Renewed every few seconds by the holder; one that stops moving means it died.
    pub heartbeat_at: DateTimeUtc,
    /// Heartbeats since it was taken: a holder whose count stands still is gone.
    pub beats: i64,
}

impl ActiveModelBehavior for ActiveModel {}
