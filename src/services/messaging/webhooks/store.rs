//! Webhook management: create (secret shown once, stored as its SHA-256), list, read,
//! update, delete, and the delivery history. Every query is scoped to the workspace.

use super::super::error::{MessagingError, Result};
use super::super::state::MessagingState;
use super::domain::EVENTS;
use super::dto::{WebhookCreate, WebhookUpdate};
use crate::core::outbound_url::{check_public, parse_http_url, UrlRefused};
use crate::core::secrets::{random_hex, sha256_hex};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use switchboard_entities::messaging::{delivery_attempt, webhook, webhook_delivery, workspace};
use uuid::Uuid;

async fn valid_url(st: &MessagingState, raw: &str) -> Result<String> {
    let url = parse_http_url(raw.trim()).map_err(|e| MessagingError::validation(e.to_string()))?;
    check_public(&url, st.cfg.webhooks.allow_private_urls)
        .await
        .map_err(|e| match e {
            UrlRefused::Private | UrlRefused::Invalid | UrlRefused::Unresolvable => {
                MessagingError::validation(e.to_string())
            }
        })?;
    Ok(url.to_string())
}

fn valid_events(events: &[String]) -> Result<serde_json::Value> {
    if events.is_empty() {
        return Err(MessagingError::validation("events must name at least one event").into());
    }
    let mut out: Vec<&str> = Vec::new();
    for e in events {
        let Some(known) = EVENTS.iter().find(|k| **k == e.as_str()) else {
            return Err(MessagingError::validation(format!(
                "unknown event '{}'; supported: {}",
                super::super::messages::domain::clip(e, 40),
                EVENTS.join(", ")
            ))
            .into());
        };
        if !out.contains(known) {
            out.push(known);
        }
    }
    Ok(serde_json::json!(out))
}

pub async fn create(
    st: &MessagingState,
    workspace_id: Uuid,
    body: WebhookCreate,
) -> Result<(webhook::Model, String)> {
    let events = valid_events(&body.events)?;
    let url = valid_url(st, &body.url).await?;
    let secret = random_hex(32);
    let now = st.core.now();
    let cap = st.cfg.max_webhooks_per_workspace;
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    // Writing the workspace row first serialises creates of one workspace (a row lock on
    // PostgreSQL, the write lock on SQLite), so two nodes cannot both see 19 and insert.
    workspace::Entity::update_many()
        .col_expr(workspace::Column::Id, Expr::col(workspace::Column::Id))
        .filter(workspace::Column::Id.eq(workspace_id))
        .exec(&txn)
        .await?;
    let held = webhook::Entity::find()
        .filter(webhook::Column::WorkspaceId.eq(workspace_id))
        .count(&txn)
        .await?;
    if held >= cap {
        return Err(MessagingError::validation(format!(
            "a workspace may have at most {cap} webhooks; delete one before creating another"
        ))
        .into());
    }
    let model = webhook::ActiveModel {
        id: Set(Uuid::new_v4()),
        workspace_id: Set(workspace_id),
        url: Set(url),
        events: Set(events),
        secret_hash: Set(sha256_hex(secret.as_bytes())),
        is_active: Set(body.is_active.unwrap_or(true)),
        failure_count: Set(0),
        last_triggered_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    Ok((model, secret))
}

pub async fn list(st: &MessagingState, workspace_id: Uuid) -> Result<Vec<webhook::Model>> {
    Ok(webhook::Entity::find()
        .filter(webhook::Column::WorkspaceId.eq(workspace_id))
        .order_by_asc(webhook::Column::CreatedAt)
        .all(&st.core.db)
        .await?)
}

/// The workspace's webhook; another workspace's id is simply not found.
pub async fn get(st: &MessagingState, workspace_id: Uuid, id: Uuid) -> Result<webhook::Model> {
    webhook::Entity::find_by_id(id)
        .filter(webhook::Column::WorkspaceId.eq(workspace_id))
        .one(&st.core.db)
        .await?
        .ok_or_else(|| MessagingError::NotFound("webhook not found".into()).into())
}

pub async fn update(
    st: &MessagingState,
    workspace_id: Uuid,
    id: Uuid,
    body: WebhookUpdate,
) -> Result<webhook::Model> {
    let current = get(st, workspace_id, id).await?;
    let events = body.events.as_deref().map(valid_events).transpose()?;
    let url = match &body.url {
        Some(u) => Some(valid_url(st, u).await?),
        None => None,
    };
    let mut m: webhook::ActiveModel = current.clone().into();
    if let Some(u) = url {
        m.url = Set(u);
    }
    if let Some(e) = events {
        m.events = Set(e);
    }
    if let Some(active) = body.is_active {
        m.is_active = Set(active);
        // Re-activation starts the consecutive-failure count afresh.
        if active && !current.is_active {
            m.failure_count = Set(0);
        }
    }
    m.updated_at = Set(st.core.now());
    Ok(m.update(&st.core.db).await?)
}

pub async fn delete(st: &MessagingState, workspace_id: Uuid, id: Uuid) -> Result<()> {
    get(st, workspace_id, id).await?;
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    delivery_attempt::Entity::delete_many()
        .filter(delivery_attempt::Column::WebhookId.eq(id))
        .exec(&txn)
        .await?;
    webhook_delivery::Entity::delete_many()
        .filter(webhook_delivery::Column::WebhookId.eq(id))
        .exec(&txn)
        .await?;
    webhook::Entity::delete_by_id(id).exec(&txn).await?;
    txn.commit().await?;
    Ok(())
}

pub async fn attempts(
    st: &MessagingState,
    workspace_id: Uuid,
    id: Uuid,
    limit: u64,
) -> Result<Vec<delivery_attempt::Model>> {
    get(st, workspace_id, id).await?;
    Ok(delivery_attempt::Entity::find()
        .filter(delivery_attempt::Column::WebhookId.eq(id))
        .order_by_desc(delivery_attempt::Column::DeliveredAt)
        .order_by_desc(delivery_attempt::Column::Attempt)
        .limit(limit)
        .all(&st.core.db)
        .await?)
}
