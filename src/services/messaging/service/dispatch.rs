//! Hands queued messages to their providers. A message is a row before the API answers; the
//! dispatcher picks it up from a channel (and, after a restart, from the database), moves it
//! to `sent` when the provider accepts it (emitting message.sent once) or to `failed` with a
//! refund when the provider refuses it.

use super::super::domain::Status;
use super::super::MessagingState;
use super::billing::refund;
use super::events::{self, Emitted};
use crate::providers::email::EmailMessage;
use crate::providers::sms::SmsMessage;
use crate::providers::voice::VoiceCall;
use crate::providers::whatsapp::WhatsAppMessage;
use crate::providers::ProviderError;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::json;
use std::sync::Arc;
use switchboard_entities::messaging::message;
use tokio::sync::{mpsc, Semaphore};
use uuid::Uuid;

pub fn channel() -> (mpsc::UnboundedSender<Uuid>, mpsc::UnboundedReceiver<Uuid>) {
    mpsc::unbounded_channel()
}

/// Runs until the process stops: first the messages left queued by an earlier run, then
/// whatever the API queues.
pub async fn run(st: MessagingState, mut rx: mpsc::UnboundedReceiver<Uuid>) {
    let limit = Arc::new(Semaphore::new(st.cfg.dispatch_concurrency.max(1)));
    let leftover = message::Entity::find()
        .select_only()
        .column(message::Column::Id)
        .filter(message::Column::Direction.eq("outbound"))
        .filter(message::Column::Status.eq("queued"))
        .filter(message::Column::ProviderMessageId.is_null())
        .order_by_asc(message::Column::CreatedAt)
        .into_tuple::<Uuid>()
        .all(&st.core.db)
        .await;
    match leftover {
        Ok(ids) if !ids.is_empty() => {
            tracing::info!(count = ids.len(), "resuming queued messages");
            for id in ids {
                spawn_one(&st, &limit, id).await;
            }
        }
        Ok(_) => {}
        Err(e) => tracing::error!(error = %e, "loading queued messages failed"),
    }
    while let Some(id) = rx.recv().await {
        spawn_one(&st, &limit, id).await;
    }
}

async fn spawn_one(st: &MessagingState, limit: &Arc<Semaphore>, id: Uuid) {
    // The same id may arrive from the start-up scan and the channel; one handles it.
    if !st.in_flight.insert(id) {
        return;
    }
    let Ok(permit) = limit.clone().acquire_owned().await else {
        return;
    };
    let st = st.clone();
    tokio::spawn(async move {
        match process(&st, id).await {
            Ok(()) => {}
            // At shutdown the pool closes under queued work; it stays queued for the next run.
            Err(DbErr::ConnectionAcquire(_)) => {
                tracing::debug!(message_id = %id, "no database connection; message stays queued")
            }
            Err(e) => tracing::error!(error = %e, message_id = %id, "dispatching message failed"),
        }
        st.in_flight.remove(&id);
        drop(permit);
    });
}

struct Accepted {
    provider_message_id: String,
    sandbox: bool,
}

async fn send(st: &MessagingState, m: &message::Model) -> Result<Accepted, ProviderError> {
    let status_callback = format!("{}/carrier/status", st.cfg.public_url.trim_end_matches('/'));
    let text = m.text.as_deref().unwrap_or_default();
    match m.channel.as_str() {
        "sms" => {
            let r = st
                .providers
                .sms
                .send(&SmsMessage {
                    to: &m.recipient,
                    body: text,
                    service: "messaging",
                    status_callback: Some(&status_callback),
                })
                .await?;
            Ok(Accepted {
                provider_message_id: r.provider_message_id,
                sandbox: st.sms_sandbox,
            })
        }
        "email" => {
            let sender = m.sender.as_deref().unwrap_or_default();
            let (name, address) = split_sender(sender);
            let r = st
                .email
                .send(&EmailMessage {
                    to: &m.recipient,
                    from_name: name,
                    from_address: address,
                    subject: m.subject.as_deref().unwrap_or_default(),
                    text: m.text.as_deref(),
                    html: m.html.as_deref(),
                    service: "messaging",
                })
                .await?;
            Ok(Accepted {
                provider_message_id: r.provider_message_id,
                sandbox: st.email.is_sandbox(),
            })
        }
        "whatsapp" => {
            let id = st
                .whatsapp
                .send(&WhatsAppMessage {
                    to: &m.recipient,
                    body: text,
                    service: "messaging",
                })
                .await?;
            Ok(Accepted {
                provider_message_id: id,
                sandbox: st.whatsapp.is_sandbox(),
            })
        }
        "voice" => {
            let id = st
                .voice
                .call(&VoiceCall {
                    to: &m.recipient,
                    text,
                    service: "messaging",
                    status_callback: Some(&status_callback),
                })
                .await?;
            Ok(Accepted {
                provider_message_id: id,
                sandbox: st.voice.is_sandbox(),
            })
        }
        other => Err(ProviderError::Rejected {
            status: 0,
            message: format!("unknown channel {other}"),
        }),
    }
}

/// `Name <address>` → (name, address).
fn split_sender(s: &str) -> (&str, &str) {
    match s.rsplit_once(" <") {
        Some((name, rest)) => (name, rest.trim_end_matches('>')),
        None => ("", s),
    }
}

async fn process(st: &MessagingState, id: Uuid) -> Result<(), DbErr> {
    let Some(m) = message::Entity::find_by_id(id).one(&st.core.db).await? else {
        return Ok(());
    };
    if m.status != "queued" || m.provider_message_id.is_some() {
        return Ok(());
    }
    let result = send(st, &m).await;
    let now = st.core.now();
    match result {
        Ok(accepted) => {
            let txn = crate::core::db::begin_write(&st.core.db).await?;
            let moved = message::Entity::update_many()
                .col_expr(message::Column::Status, Expr::value("sent"))
                .col_expr(
                    message::Column::ProviderMessageId,
                    Expr::value(accepted.provider_message_id.clone()),
                )
                .col_expr(message::Column::SentAt, Expr::value(now))
                .col_expr(message::Column::UpdatedAt, Expr::value(now))
                .filter(message::Column::Id.eq(id))
                .filter(message::Column::Status.eq("queued"))
                .exec(&txn)
                .await?;
            let mut emitted = Emitted::default();
            if moved.rows_affected == 1 {
                emitted = sent_event(&txn, &m, &accepted.provider_message_id, now).await?;
            }
            txn.commit().await?;
            emitted.notify(st);
            if accepted.sandbox && st.cfg.sandbox_delivery_reports {
                // The sandbox "carrier" confirms at once, through the same path as a callback.
                apply_status(
                    st,
                    &accepted.provider_message_id,
                    Status::Delivered,
                    None,
                    None,
                )
                .await?;
            }
        }
        Err(e) => {
            let (code, text) = match &e {
                ProviderError::Rejected { status, .. } => {
                    (format!("provider_rejected_{status}"), e.to_string())
                }
                _ => ("provider_unavailable".to_owned(), e.to_string()),
            };
            tracing::warn!(message_id = %id, error = %text, "provider did not accept message");
            let txn = crate::core::db::begin_write(&st.core.db).await?;
            let moved = mark_failed(&txn, id, &["queued"], &code, &text, now).await?;
            let mut emitted = Emitted::default();
            if moved {
                refund(&txn, now, m.workspace_id, m.id, m.cost).await?;
                emitted = failed_event(&txn, &m, &code, &text, now).await?;
            }
            txn.commit().await?;
            emitted.notify(st);
        }
    }
    Ok(())
}

async fn mark_failed<C: sea_orm::ConnectionTrait>(
    db: &C,
    id: Uuid,
    from: &[&str],
    code: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let res = message::Entity::update_many()
        .col_expr(message::Column::Status, Expr::value("failed"))
        .col_expr(message::Column::ErrorCode, Expr::value(code))
        .col_expr(message::Column::ErrorMessage, Expr::value(text))
        .col_expr(message::Column::FailedAt, Expr::value(now))
        .col_expr(message::Column::UpdatedAt, Expr::value(now))
        .filter(message::Column::Id.eq(id))
        .filter(message::Column::Status.is_in(from.iter().copied()))
        .exec(db)
        .await?;
    Ok(res.rows_affected == 1)
}

async fn sent_event<C: sea_orm::ConnectionTrait>(
    db: &C,
    m: &message::Model,
    provider_message_id: &str,
    now: DateTime<Utc>,
) -> Result<Emitted, DbErr> {
    events::emit(
        db,
        now,
        m.workspace_id,
        "message.sent",
        events::message_data(
            m.id,
            &m.channel,
            &m.recipient,
            "sent",
            None,
            now,
            json!({ "provider_message_id": provider_message_id }),
        ),
    )
    .await
}

async fn failed_event<C: sea_orm::ConnectionTrait>(
    db: &C,
    m: &message::Model,
    code: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Emitted, DbErr> {
    events::emit(
        db,
        now,
        m.workspace_id,
        "message.failed",
        events::message_data(
            m.id,
            &m.channel,
            &m.recipient,
            "failed",
            Some((code, text)),
            now,
            json!({}),
        ),
    )
    .await
}

/// Moves the message with this provider id forward to `status` (never backwards) and emits
/// message.<status>. Returns whether it moved.
pub async fn apply_status(
    st: &MessagingState,
    provider_message_id: &str,
    status: Status,
    error_code: Option<&str>,
    error_message: Option<&str>,
) -> Result<bool, DbErr> {
    let Some(m) = message::Entity::find()
        .filter(message::Column::ProviderMessageId.eq(provider_message_id))
        .filter(message::Column::Direction.eq("outbound"))
        .one(&st.core.db)
        .await?
    else {
        return Ok(false);
    };
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let (moved, emitted) = match status {
        Status::Queued => (false, Emitted::default()),
        Status::Sent => {
            let res = message::Entity::update_many()
                .col_expr(message::Column::Status, Expr::value("sent"))
                .col_expr(message::Column::SentAt, Expr::value(now))
                .col_expr(message::Column::UpdatedAt, Expr::value(now))
                .filter(message::Column::Id.eq(m.id))
                .filter(message::Column::Status.is_in(status.predecessors().iter().copied()))
                .exec(&txn)
                .await?;
            let moved = res.rows_affected == 1;
            let emitted = if moved {
                sent_event(&txn, &m, provider_message_id, now).await?
            } else {
                Emitted::default()
            };
            (moved, emitted)
        }
        Status::Delivered => {
            let res = message::Entity::update_many()
                .col_expr(message::Column::Status, Expr::value("delivered"))
                .col_expr(message::Column::DeliveredAt, Expr::value(now))
                .col_expr(message::Column::UpdatedAt, Expr::value(now))
                .filter(message::Column::Id.eq(m.id))
                .filter(message::Column::Status.is_in(status.predecessors().iter().copied()))
                .exec(&txn)
                .await?;
            let moved = res.rows_affected == 1;
            let emitted = if moved {
                events::emit(
                    &txn,
                    now,
                    m.workspace_id,
                    "message.delivered",
                    events::message_data(
                        m.id,
                        &m.channel,
                        &m.recipient,
                        "delivered",
                        None,
                        now,
                        json!({
                            "delivered_at":
                                now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                        }),
                    ),
                )
                .await?
            } else {
                Emitted::default()
            };
            (moved, emitted)
        }
        Status::Failed => {
            let code = error_code.unwrap_or("carrier_failed");
            let text = error_message.unwrap_or("the carrier reported the message as failed");
            let moved = mark_failed(&txn, m.id, status.predecessors(), code, text, now).await?;
            let emitted = if moved {
                failed_event(&txn, &m, code, text, now).await?
            } else {
                Emitted::default()
            };
            (moved, emitted)
        }
    };
    txn.commit().await?;
    emitted.notify(st);
    Ok(moved)
}
