//! What moves a message on after `sent` without a carrier callback: the built-in sandbox's
//! delivery report (a job written with the `sent` transaction, applied through the same path
//! as a callback) and reconciliation, a recurring job that asks the provider about messages
//! `sent` for longer than `stale_sent_after_secs`.

use super::super::state::MessagingState;
use super::domain::{from_carrier, Status};
use super::handover;
use super::status::{apply_reports, apply_status, Report as StatusReport};
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, DbErr, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde::{Deserialize, Serialize};
use switchboard_entities::messaging::message;
use uuid::Uuid;

pub const DELIVERY_REPORT: &str = "messaging.delivery_report";
pub const RECONCILE: &str = "messaging.reconcile";

/// Messages one reconciliation run asks about (the rest wait for the next run).
const RECONCILE_BATCH: u64 = 100;

#[derive(Serialize, Deserialize)]
struct Report {
    provider_message_id: String,
}

/// The sandbox's delivery report of a message, to enqueue with its `sent` transaction.
pub fn job(message_id: Uuid, provider_message_id: &str) -> NewJob {
    let payload = serde_json::json!(Report {
        provider_message_id: provider_message_id.to_owned(),
    });
    NewJob::new(DELIVERY_REPORT, payload).key(format!("report:{message_id}"))
}

/// The sandbox "carrier" confirms the deliveries of a batch, through the same path as a
/// callback and in one transaction: a result per job, in order.
pub async fn deliver_batch(st: &MessagingState, jobs: Vec<Job>) -> Vec<JobResult> {
    let parsed: Vec<Result<Report, JobFailure>> = jobs.iter().map(Job::payload).collect();
    let moves: Vec<StatusReport<'_>> = parsed
        .iter()
        .filter_map(|p| p.as_ref().ok())
        .map(|r| StatusReport {
            provider_message_id: &r.provider_message_id,
            status: Status::Delivered,
            error_code: None,
            error_message: None,
        })
        .collect();
    let mut moved = match apply_reports(st, &moves).await {
        Ok(moved) => moved.into_iter(),
        Err(e) => return jobs.iter().map(|_| Err(JobFailure::retry(&e))).collect(),
    };
    parsed
        .into_iter()
        .map(|p| p.map(|_| Done::from(u64::from(moved.next().unwrap_or(false)))))
        .collect()
}

/// Before this, a `sent` message is stale.
fn stale_before(st: &MessagingState) -> DateTime<Utc> {
    let after = i64::try_from(st.cfg.stale_sent_after_secs).unwrap_or(i64::MAX);
    st.core.now() - chrono::Duration::seconds(after)
}

fn stale(st: &MessagingState) -> sea_orm::Select<message::Entity> {
    message::Entity::find()
        .filter(message::Column::Direction.eq("outbound"))
        .filter(message::Column::Status.eq(Status::Sent))
        .filter(message::Column::SentAt.lte(stale_before(st)))
}

/// How many messages are stale now (for /health).
pub async fn stale_count(st: &MessagingState) -> Result<u64, DbErr> {
    stale(st).count(&st.core.db).await
}

/// One reconciliation run: each stale message's status at its provider, applied through the
/// carrier status mapping. A provider that keeps no status leaves the message as it is.
pub async fn reconcile(st: &MessagingState) -> JobResult {
    let batch = stale(st)
        .order_by_asc(message::Column::SentAt)
        .limit(RECONCILE_BATCH)
        .all(&st.core.db)
        .await?;
    let mut moved = 0;
    let mut unreachable = None;
    for m in batch {
        let Some(pid) = m.provider_message_id.as_deref() else {
            continue;
        };
        // The sandbox reports nothing when its delivery reports are off.
        if handover::is_sandbox(st, &m.channel) && !st.cfg.sandbox_delivery_reports {
            continue;
        }
        let word = match handover::status(st, &m, pid).await {
            Ok(Some(word)) => word,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(message_id = %m.id, error = %e, "provider status look-up failed");
                unreachable = Some(e.to_string());
                continue;
            }
        };
        let Some(status) = from_carrier(&word) else {
            continue;
        };
        let text = (status == Status::Failed).then(|| format!("carrier reported {word}"));
        if apply_status(st, pid, status, None, text.as_deref()).await? {
            moved += 1;
        }
    }
    match unreachable {
        Some(e) if moved == 0 => Err(JobFailure::retry(e)),
        _ => Ok(Done::from(moved)),
    }
}
