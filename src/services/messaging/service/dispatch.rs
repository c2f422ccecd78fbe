//! Hands queued messages to their providers, on the core job queue: one `messaging.dispatch`
//! job per message, written in the transaction that stores and charges for it, so a commit
//! means the message will be dispatched by some node.
//!
//! A run claims the message before its provider call (a conditional UPDATE to the internal
//! status `sending` with a lease, an attempt count and this node's name) and stores the
//! provider's outcome with the next state in one transaction, conditional on the claim still
//! being this one: `sent` with the provider id, message.sent and the sandbox's delivery
//! report job; or `failed` with the refund and message.failed. A claim whose node died is
//! retaken once it lapses, and the retaken hand-over looks for the earlier one at the
//! provider instead of sending blindly (`providers::Handover`).

use super::super::domain::{Status, SENDING};
use super::super::MessagingState;
use super::billing::refund;
use super::events::Emitted;
use super::handover;
use super::reports;
use super::status::{apply_status, failed_event, moved_to, sent_event, to_failed};
use crate::core::jobs::{Done, Job, JobFailure, JobResult, Jobs, NewJob};
use crate::providers::{Accepted, Handover, ProviderError, Retake};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, DbErr, EntityTrait, QueryFilter,
    QuerySelect, UpdateMany,
};
use serde::{Deserialize, Serialize};
use switchboard_entities::messaging::message;
use uuid::Uuid;

pub const TOPIC: &str = "messaging.dispatch";

#[derive(Serialize, Deserialize)]
struct Payload {
    message_id: Uuid,
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

/// This node's claim on a message: the attempt it took.
struct Claim<'a> {
    attempt: i32,
    owner: &'a str,
}

impl Claim<'_> {
    /// `q` limited to the message while this claim still holds it.
    fn held(&self, q: UpdateMany<message::Entity>, id: Uuid) -> UpdateMany<message::Entity> {
        q.filter(message::Column::Id.eq(id))
            .filter(message::Column::Status.eq(SENDING))
            .filter(message::Column::Attempts.eq(self.attempt))
            .filter(message::Column::ClaimedBy.eq(self.owner))
    }
}

/// One run of a message's dispatch job.
pub async fn run(st: &MessagingState, job: Job) -> JobResult {
    let Payload { message_id } = job.payload()?;
    let Some(m) = message::Entity::find_by_id(message_id)
        .one(&st.core.db)
        .await?
    else {
        return Ok(Done::default());
    };
    let now = st.core.now();
    let retaken = match (m.status.as_str(), m.claim_expires_at) {
        ("queued", _) => false,
        // Another node is handing it over now; look again when its claim lapses.
        (SENDING, Some(until)) if until > now => {
            return Err(JobFailure::retry_at("claimed by another node", until))
        }
        (SENDING, _) => true,
        // Already sent, delivered or failed.
        _ => return Ok(Done::default()),
    };
    let owner = st.core.jobs.owner();
    let Some(claim) = claim(st, &m, owner, now).await? else {
        // Another node moved it meanwhile: read it again.
        return Err(JobFailure::retry_at("claim raced", now));
    };
    let taken = if retaken {
        ids_taken_by_others(st, &m).await?
    } else {
        Vec::new()
    };
    let h = Handover {
        message_id: m.id,
        retake: retaken.then_some(Retake {
            provider_message_id: m.provider_message_id.as_deref(),
            since: m.created_at,
            taken: &taken,
        }),
    };
    let outcome = handover::hand_over(st, &m, &h).await;
    finish(st, &m, &claim, outcome).await?;
    Ok(Done::from(1))
}

/// Takes the message for this node if it is still as read: queued, or sending under a lapsed
/// claim (the attempt count tells a claim retaken meanwhile).
async fn claim<'a>(
    st: &MessagingState,
    m: &message::Model,
    owner: &'a str,
    now: DateTime<Utc>,
) -> Result<Option<Claim<'a>>, DbErr> {
    let until = now
        + chrono::Duration::seconds(
            i64::try_from(st.cfg.claim_secs)
                .unwrap_or(i64::MAX)
                .clamp(1, 86_400),
        );
    let mut q = message::Entity::update_many()
        .col_expr(message::Column::Status, Expr::value(SENDING))
        .col_expr(message::Column::ClaimExpiresAt, Expr::value(until))
        .col_expr(
            message::Column::Attempts,
            Expr::col(message::Column::Attempts).add(1),
        )
        .col_expr(message::Column::ClaimedBy, Expr::value(owner))
        .col_expr(message::Column::UpdatedAt, Expr::value(now))
        .filter(message::Column::Id.eq(m.id))
        .filter(message::Column::Status.eq(m.status.as_str()))
        .filter(message::Column::Attempts.eq(m.attempts));
    if m.status == SENDING {
        q = q.filter(message::Column::ClaimExpiresAt.lte(now));
    }
    let res = q.exec(&st.core.db).await?;
    Ok((res.rows_affected == 1).then_some(Claim {
        attempt: m.attempts + 1,
        owner,
    }))
}

/// Provider ids other messages to the same recipient hold: a look-up never adopts them.
async fn ids_taken_by_others(
    st: &MessagingState,
    m: &message::Model,
) -> Result<Vec<String>, DbErr> {
    message::Entity::find()
        .select_only()
        .column(message::Column::ProviderMessageId)
        .filter(message::Column::Recipient.eq(m.recipient.as_str()))
        .filter(message::Column::Direction.eq("outbound"))
        .filter(message::Column::Id.ne(m.id))
        .filter(message::Column::ProviderMessageId.is_not_null())
        .filter(message::Column::CreatedAt.gte(m.created_at - chrono::Duration::days(1)))
        .into_tuple::<String>()
        .all(&st.core.db)
        .await
}

/// Stores the provider's outcome with the next state, if the claim is still ours.
async fn finish(
    st: &MessagingState,
    m: &message::Model,
    claim: &Claim<'_>,
    outcome: Result<Accepted, ProviderError>,
) -> Result<(), DbErr> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let (moved, emitted) = match &outcome {
        Ok(accepted) => sent(st, &txn, m, claim, accepted, now).await?,
        Err(e) => failed(&txn, m, claim, e, now).await?,
    };
    txn.commit().await?;
    if !moved {
        // A callback moved it on first, or the claim lapsed and another node retook it.
        tracing::info!(message_id = %m.id, "message moved on during its provider call; this run records nothing");
        return Ok(());
    }
    emitted.notify(st);
    st.core.jobs.wake();
    // An earlier hand-over found at the provider may already be further along.
    if let Ok(Accepted {
        provider_message_id,
        status: Some(word),
    }) = &outcome
    {
        if let Some(status) = Status::from_carrier(word).filter(|s| *s != Status::Sent) {
            apply_status(st, provider_message_id, status, None, None).await?;
        }
    }
    Ok(())
}

async fn sent(
    st: &MessagingState,
    txn: &DatabaseTransaction,
    m: &message::Model,
    claim: &Claim<'_>,
    accepted: &Accepted,
    now: DateTime<Utc>,
) -> Result<(bool, Emitted), DbErr> {
    let id = accepted.provider_message_id.as_str();
    let q = moved_to(Status::Sent.as_str(), message::Column::SentAt, now)
        .col_expr(message::Column::ProviderMessageId, Expr::value(id));
    if claim.held(q, m.id).exec(txn).await?.rows_affected != 1 {
        return Ok((false, Emitted::default()));
    }
    if handover::is_sandbox(st, &m.channel) && st.cfg.sandbox_delivery_reports {
        reports::enqueue(st, txn, m.id, id).await?;
    }
    Ok((true, sent_event(txn, m, id, now).await?))
}

async fn failed(
    txn: &DatabaseTransaction,
    m: &message::Model,
    claim: &Claim<'_>,
    e: &ProviderError,
    now: DateTime<Utc>,
) -> Result<(bool, Emitted), DbErr> {
    let code = match e {
        ProviderError::Rejected { status, .. } => format!("provider_rejected_{status}"),
        _ => "provider_unavailable".to_owned(),
    };
    let text = e.to_string();
    tracing::warn!(message_id = %m.id, error = %text, "provider did not accept message");
    let q = to_failed(&code, &text, now);
    if claim.held(q, m.id).exec(txn).await?.rows_affected != 1 {
        return Ok((false, Emitted::default()));
    }
    // The refund commits with the failure that causes it, once: only the claim's holder
    // moves the message out of `sending`.
    refund(txn, now, m.workspace_id, m.id, m.cost).await?;
    Ok((true, failed_event(txn, m, &code, &text, now).await?))
}
