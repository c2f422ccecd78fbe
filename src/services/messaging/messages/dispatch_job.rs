//! The `messaging.dispatch` job (`dispatch` runs it): one per message, written in the
//! transaction that stores and charges for the message.

use crate::core::jobs::{Jobs, NewJob};
use sea_orm::{ConnectionTrait, DbErr};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub const TOPIC: &str = "messaging.dispatch";

#[derive(Serialize, Deserialize)]
pub struct Payload {
    pub message_id: Uuid,
}

/// Writes the dispatch job of each message with `conn` (the transaction that stores them);
/// call [`Jobs::wake`] after it commits.
pub async fn enqueue<C: ConnectionTrait>(jobs: &Jobs, conn: &C, ids: &[Uuid]) -> Result<(), DbErr> {
    let all = ids
        .iter()
        .map(|id| {
            let payload = serde_json::json!(Payload { message_id: *id });
            NewJob::new(TOPIC, payload).key(format!("dispatch:{id}"))
        })
        .collect();
    jobs.enqueue_many(conn, all).await?;
    Ok(())
}
