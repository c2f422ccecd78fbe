use sea_orm::entity::prelude::*;

/// The node that runs an actor (`kind` + `actor_id`) in a cluster, until `expires_at` unless
/// it renews; a lapsed lease may be taken by another node (`core::lease`).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "core_actor_leases")]
pub struct Model {
    /// `interview.session`, `marketplace.conversation`, `webhook.endpoint`, …
    #[sea_orm(primary_key, auto_increment = false)]
    pub kind: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub actor_id: Uuid,
    /// The owning node's id (`[cluster] node_id`).
    pub owner: String,
    pub expires_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
