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
//!
//! Dispatch is a batch handler: one run takes up to `dispatch_batch` due messages, claims every
//! still-queued one in one statement, makes their provider calls side by side, and commits all
//! their outcomes in one transaction. On SQLite's single writer that is three commits per batch
//! instead of three per message, so a bulk send does not starve the API's writes. A message
//! that is not plainly queued (retaken, claimed elsewhere, already moved on) takes the one-by-one
//! path.

use super::super::billing::service::refund;
use super::super::consent::domain::Address;
use super::super::consent::keywords;
use super::super::consent::store as consent;
use super::super::error::OPTED_OUT;
use super::super::state::MessagingState;
use super::super::webhooks::events::Emitted;
use super::dispatch_job::Payload;
use super::domain::{from_carrier, Channel, Status};
use super::handover;
use super::reports;
use super::status::{apply_status, failed_event, moved_to, sent_event, to_failed};
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use crate::providers::{Accepted, Handover, ProviderError, Retake};
use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, DatabaseTransaction, DbErr, EntityTrait, QueryFilter, QuerySelect, UpdateMany,
};
use std::collections::{HashMap, HashSet};
use switchboard_entities::messaging::message;
use uuid::Uuid;

/// Provider calls of one batch in flight at once.
const HANDOVERS_IN_FLIGHT: usize = 16;

/// This node's claim on a message: the attempt it took, and until when.
struct Claim<'a> {
    attempt: i32,
    owner: &'a str,
    until: DateTime<Utc>,
}

/// A hand-over whose outcome is unknown leaves the message claimed: once the claim lapses,
/// the retake looks for it at the provider (and adopts it, or sends it then). Failing it
/// would refund a message that may have gone out.
fn look_up_later(m: &message::Model, e: &str, until: DateTime<Utc>) -> JobFailure {
    tracing::warn!(message_id = %m.id, error = e, "provider outcome unknown; looked up when the claim lapses");
    JobFailure::retry_at(format!("{e}; looked up when the claim lapses"), until)
}

impl Claim<'_> {
    /// `q` limited to the message while this claim still holds it.
    fn held(&self, q: UpdateMany<message::Entity>, id: Uuid) -> UpdateMany<message::Entity> {
        q.filter(message::Column::Id.eq(id))
            .filter(message::Column::Status.eq(Status::Sending))
            .filter(message::Column::Attempts.eq(self.attempt))
            .filter(message::Column::ClaimedBy.eq(self.owner))
    }
}

/// One run of a batch of dispatch jobs: a result per job, in order.
pub async fn run_batch(st: &MessagingState, jobs: Vec<Job>) -> Vec<JobResult> {
    let ids: Vec<Result<Uuid, JobFailure>> = jobs
        .iter()
        .map(|job| job.payload::<Payload>().map(|p| p.message_id))
        .collect();
    let wanted: Vec<Uuid> = ids.iter().filter_map(|id| id.clone().ok()).collect();
    let owner = st.core.jobs.owner();
    let mut claimed = match claim_queued(st, &wanted, owner).await {
        Ok(claimed) => claimed,
        Err(e) => return jobs.iter().map(|_| Err(JobFailure::retry(&e))).collect(),
    };
    // Recipients who opted out after their message was accepted are not sent to.
    let refused = match refuse_opted_out(st, &mut claimed, owner).await {
        Ok(refused) => refused,
        Err(e) => return jobs.iter().map(|_| Err(JobFailure::retry(&e))).collect(),
    };
    // Owned futures: the job runner needs them 'static.
    let outcomes: Vec<(Uuid, Result<Accepted, ProviderError>)> =
        futures_util::stream::iter(claimed.values().cloned())
            .map(|m| first_hand_over(st.clone(), m))
            .buffer_unordered(HANDOVERS_IN_FLIGHT)
            .collect()
            .await;
    let mut unknown = HashMap::new();
    let outcomes = outcomes
        .into_iter()
        .filter_map(|(id, outcome)| {
            let m = claimed.get(&id)?;
            let until = m.claim_expires_at.unwrap_or_else(|| st.core.now());
            if let Err(ProviderError::Unknown(e)) = &outcome {
                unknown.insert(id, look_up_later(m, e, until));
                return None;
            }
            let claim = Claim {
                attempt: m.attempts,
                owner,
                until,
            };
            Some((m, claim, outcome))
        })
        .collect();
    // The claimed messages stay `sending` under this claim if this fails; a retry after it
    // lapses looks for the hand-over at the provider.
    let finished = finish(st, outcomes).await.map_err(|e| e.to_string());
    let mut results = Vec::with_capacity(jobs.len());
    for id in ids {
        results.push(match id {
            Err(e) => Err(e),
            Ok(id) => match unknown.remove(&id) {
                Some(later) => Err(later),
                None if refused.contains(&id) => Ok(Done::from(1)),
                None if claimed.contains_key(&id) => match &finished {
                    Ok(()) => Ok(Done::from(1)),
                    Err(e) => Err(JobFailure::retry(e)),
                },
                None => run_one(st, id).await,
            },
        });
    }
    results
}

/// Fails (and refunds) the claimed messages whose recipients are on their workspace's
/// suppression list now, taking them out of `claimed`; their ids. The service's own answers
/// to STOP, START and HELP go out regardless. One look-up per workspace and channel.
async fn refuse_opted_out(
    st: &MessagingState,
    claimed: &mut HashMap<Uuid, message::Model>,
    owner: &str,
) -> Result<HashSet<Uuid>, DbErr> {
    let mut groups: HashMap<(Uuid, String), Vec<&message::Model>> = HashMap::new();
    for m in claimed.values().filter(|m| !keywords::is_auto_reply(m)) {
        groups
            .entry((m.workspace_id, m.channel.clone()))
            .or_default()
            .push(m);
    }
    let mut blocked = Vec::new();
    for ((workspace_id, channel), msgs) in groups {
        let Ok(ch) = Channel::parse(&channel) else {
            continue;
        };
        let addresses: Vec<String> = msgs
            .iter()
            .map(|m| Address::of_recipient(ch, &m.recipient).address)
            .collect();
        let suppressed =
            consent::suppressed_among(&st.core.db, workspace_id, &channel, &addresses).await?;
        blocked.extend(
            msgs.into_iter()
                .zip(addresses)
                .filter(|(_, a)| suppressed.contains(a))
                .map(|(m, _)| m.id),
        );
    }
    if blocked.is_empty() {
        return Ok(HashSet::new());
    }
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let mut emitted = Emitted::default();
    for id in &blocked {
        let Some(m) = claimed.get(id) else { continue };
        let claim = Claim {
            attempt: m.attempts,
            owner,
            until: m.claim_expires_at.unwrap_or(now),
        };
        let text = "the recipient opted out after the message was accepted";
        if let Some(e) = failed_with(&txn, m, &claim, OPTED_OUT, text, now).await? {
            emitted.extend(e);
        }
    }
    txn.commit().await?;
    emitted.notify(st);
    for id in &blocked {
        claimed.remove(id);
    }
    Ok(blocked.into_iter().collect())
}

/// The hand-over of a message claimed from `queued`: nothing earlier to look for.
async fn first_hand_over(
    st: MessagingState,
    m: message::Model,
) -> (Uuid, Result<Accepted, ProviderError>) {
    let h = Handover {
        message_id: m.id,
        retake: None,
    };
    (m.id, handover::hand_over(&st, &m, &h).await)
}

/// Claims every message of `ids` that is still queued, in one statement; the claimed rows.
async fn claim_queued(
    st: &MessagingState,
    ids: &[Uuid],
    owner: &str,
) -> Result<HashMap<Uuid, message::Model>, DbErr> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = claiming(st, owner, st.core.now())
        .filter(message::Column::Id.is_in(ids.iter().copied()))
        .filter(message::Column::Status.eq(Status::Queued))
        .exec_with_returning(&st.core.db)
        .await?;
    Ok(rows.into_iter().map(|m| (m.id, m)).collect())
}

/// When a claim taken now lapses.
fn claim_until(st: &MessagingState, now: DateTime<Utc>) -> DateTime<Utc> {
    now + chrono::Duration::seconds(
        i64::try_from(st.cfg.claim_secs)
            .unwrap_or(i64::MAX)
            .clamp(1, 86_400),
    )
}

/// The move of a message into this node's claim, for the caller to make conditional.
fn claiming(st: &MessagingState, owner: &str, now: DateTime<Utc>) -> UpdateMany<message::Entity> {
    let until = claim_until(st, now);
    message::Entity::update_many()
        .col_expr(message::Column::Status, Expr::value(Status::Sending))
        .col_expr(message::Column::ClaimExpiresAt, Expr::value(until))
        .col_expr(
            message::Column::Attempts,
            Expr::col(message::Column::Attempts).add(1),
        )
        .col_expr(message::Column::ClaimedBy, Expr::value(owner))
        .col_expr(message::Column::UpdatedAt, Expr::value(now))
}

/// One message's dispatch, read afresh: the path of anything but a plainly queued message.
async fn run_one(st: &MessagingState, message_id: Uuid) -> JobResult {
    let Some(m) = message::Entity::find_by_id(message_id)
        .one(&st.core.db)
        .await?
    else {
        return Ok(Done::default());
    };
    let now = st.core.now();
    let owner = st.core.jobs.owner();
    let abandoned = left_by_earlier_run(st, &m);
    let retaken = match (m.status, m.claim_expires_at) {
        (Status::Queued, _) => false,
        // Another node is handing it over now; look again when its claim lapses.
        (Status::Sending, Some(until)) if until > now && !abandoned => {
            return Err(JobFailure::retry_at("claimed by another node", until))
        }
        (Status::Sending, _) => true,
        // Already sent, delivered or failed.
        _ => return Ok(Done::default()),
    };
    let Some(claim) = claim(st, &m, owner, now, abandoned).await? else {
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
    if let Err(ProviderError::Unknown(e)) = &outcome {
        return Err(look_up_later(&m, e, claim.until));
    }
    finish(st, vec![(&m, claim, outcome)]).await?;
    Ok(Done::from(1))
}

/// Whether `m`'s claim was taken by this node's earlier process, which is gone: this one
/// takes it back at once (looking for the hand-over at the provider, as after a lapse).
fn left_by_earlier_run(st: &MessagingState, m: &message::Model) -> bool {
    st.core
        .jobs
        .left_by_earlier_run(m.claimed_by.as_deref(), m.updated_at)
}

/// Takes the message for this node if it is still as read: queued, or sending under a lapsed
/// claim or one `abandoned` by this node's earlier process (the attempt count tells a claim
/// retaken meanwhile).
async fn claim<'a>(
    st: &MessagingState,
    m: &message::Model,
    owner: &'a str,
    now: DateTime<Utc>,
    abandoned: bool,
) -> Result<Option<Claim<'a>>, DbErr> {
    let mut q = claiming(st, owner, now)
        .filter(message::Column::Id.eq(m.id))
        .filter(message::Column::Status.eq(m.status))
        .filter(message::Column::Attempts.eq(m.attempts));
    if m.status == Status::Sending && !abandoned {
        q = q.filter(message::Column::ClaimExpiresAt.lte(now));
    }
    let res = q.exec(&st.core.db).await?;
    Ok((res.rows_affected == 1).then_some(Claim {
        attempt: m.attempts + 1,
        owner,
        until: claim_until(st, now),
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

/// A claimed message with its provider's outcome.
type Outcome<'a> = (
    &'a message::Model,
    Claim<'a>,
    Result<Accepted, ProviderError>,
);

/// Stores each provider outcome with its message's next state, all in one transaction; a
/// message whose claim is no longer ours records nothing.
async fn finish(st: &MessagingState, outcomes: Vec<Outcome<'_>>) -> Result<(), DbErr> {
    if outcomes.is_empty() {
        return Ok(());
    }
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let mut emitted = Emitted::default();
    let mut reports = Vec::new();
    // Hand-overs found at the provider that may already be further along than `sent`.
    let mut further = Vec::new();
    for (m, claim, outcome) in &outcomes {
        let moved = match outcome {
            Ok(accepted) => sent(st, &txn, m, claim, accepted, now, &mut reports).await?,
            Err(e) => failed(&txn, m, claim, e, now).await?,
        };
        let Some(e) = moved else {
            // A callback moved it on first, or the claim lapsed and another node retook it.
            tracing::info!(message_id = %m.id, "message moved on during its provider call; this run records nothing");
            continue;
        };
        emitted.extend(e);
        if let Ok(Accepted {
            provider_message_id,
            status: Some(word),
        }) = outcome
        {
            if let Some(status) = from_carrier(word).filter(|s| *s != Status::Sent) {
                further.push((provider_message_id.as_str(), status));
            }
        }
    }
    st.core.jobs.enqueue_many(&txn, reports).await?;
    txn.commit().await?;
    emitted.notify(st);
    st.core.jobs.wake();
    for (provider_message_id, status) in further {
        apply_status(st, provider_message_id, status, None, None).await?;
    }
    Ok(())
}

/// The move to `sent`, its event and (from the sandbox) its delivery report; `None` when the
/// claim no longer holds.
async fn sent(
    st: &MessagingState,
    txn: &DatabaseTransaction,
    m: &message::Model,
    claim: &Claim<'_>,
    accepted: &Accepted,
    now: DateTime<Utc>,
    reports: &mut Vec<NewJob>,
) -> Result<Option<Emitted>, DbErr> {
    let id = accepted.provider_message_id.as_str();
    let q = moved_to(Status::Sent, message::Column::SentAt, now)
        .col_expr(message::Column::ProviderMessageId, Expr::value(id));
    if claim.held(q, m.id).exec(txn).await?.rows_affected != 1 {
        return Ok(None);
    }
    if handover::is_sandbox(st, &m.channel) && st.cfg.sandbox_delivery_reports {
        reports.push(reports::job(m.id, id));
    }
    Ok(Some(sent_event(txn, m, id, now).await?))
}

async fn failed(
    txn: &DatabaseTransaction,
    m: &message::Model,
    claim: &Claim<'_>,
    e: &ProviderError,
    now: DateTime<Utc>,
) -> Result<Option<Emitted>, DbErr> {
    let code = match e {
        ProviderError::Rejected { status, .. } => format!("provider_rejected_{status}"),
        _ => "provider_unavailable".to_owned(),
    };
    let text = e.to_string();
    tracing::warn!(message_id = %m.id, error = %text, "provider did not accept message");
    failed_with(txn, m, claim, &code, &text, now).await
}

/// The move to `failed` with `code`, its refund and message.failed; `None` when the claim no
/// longer holds.
async fn failed_with(
    txn: &DatabaseTransaction,
    m: &message::Model,
    claim: &Claim<'_>,
    code: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Option<Emitted>, DbErr> {
    let q = to_failed(code, text, now);
    if claim.held(q, m.id).exec(txn).await?.rows_affected != 1 {
        return Ok(None);
    }
    // The refund commits with the failure that causes it, once: only the claim's holder
    // moves the message out of `sending`.
    refund(txn, now, m.workspace_id, m.id, m.cost).await?;
    Ok(Some(failed_event(txn, m, code, text, now).await?))
}
