use sea_orm::entity::prelude::*;

/// The node that runs an actor (`kind` + `actor_id`) in a cluster, until `expires_at` unless
/// it renews; a lapsed lease may be taken by another node (`core::lease`).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "core_actor_leases")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub kind: ActorKind,
    #[sea_orm(primary_key, auto_increment = false)]
    pub actor_id: Uuid,
    /// The owning node's id (`[cluster] node_id`).
    pub owner: String,
    pub expires_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// The kind of actor a lease is for: each kind the nodes of a cluster share, by the id
    /// of what it runs for. The word also names the kind on the cluster bus and in metrics.
    pub enum ActorKind {
        /// An interview session (`actor_id`: the session).
        InterviewSession = "interview.session",
        /// A marketplace conversation (`actor_id`: the conversation).
        MarketplaceConversation = "marketplace.conversation",
        /// A messaging webhook endpoint, delivering its events in order (`actor_id`: the
        /// webhook).
        WebhookEndpoint = "webhook.endpoint",
    }
}
