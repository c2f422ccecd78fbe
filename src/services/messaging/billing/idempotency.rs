//! Idempotency-Key: the first successful answer is stored with the request's digest in the
//! same transaction as the messages; a repeat replays it, a different body is refused.

use super::super::error::{MessagingError, Result};
use super::super::state::MessagingState;
use crate::core::secrets::sha256_hex;
use actix_web::{HttpRequest, HttpResponse};
use chrono::Duration;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::messaging::idempotency_key;
use uuid::Uuid;

pub const HEADER: &str = "Idempotency-Key";

#[derive(Debug, Clone)]
pub struct IdempotencyKey {
    pub key: String,
    pub request_hash: String,
}

/// Reads the header (1–255 visible ASCII characters) and digests the request.
pub fn from_request(
    req: &HttpRequest,
    endpoint: &str,
    canonical_body: &[u8],
) -> Result<Option<IdempotencyKey>> {
    let Some(raw) = req.headers().get(HEADER) else {
        return Ok(None);
    };
    let key = raw
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|k| (1..=255).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| {
            MessagingError::validation("Idempotency-Key must be 1 to 255 visible ASCII characters")
        })?;
    let mut input = endpoint.as_bytes().to_vec();
    input.push(0);
    input.extend_from_slice(canonical_body);
    Ok(Some(IdempotencyKey {
        key: key.to_owned(),
        request_hash: sha256_hex(&input),
    }))
}

/// The stored answer for this key, if any (expired keys are forgotten).
pub async fn lookup(
    st: &MessagingState,
    workspace_id: Uuid,
    key: &IdempotencyKey,
) -> Result<Option<HttpResponse>> {
    let Some(row) = idempotency_key::Entity::find()
        .filter(idempotency_key::Column::WorkspaceId.eq(workspace_id))
        .filter(idempotency_key::Column::Key.eq(&key.key))
        .one(&st.core.db)
        .await?
    else {
        return Ok(None);
    };
    if row.created_at + Duration::hours(st.cfg.idempotency_ttl_hours) < st.core.now() {
        idempotency_key::Entity::delete_by_id(row.id)
            .exec(&st.core.db)
            .await?;
        return Ok(None);
    }
    replay(row, key).map(Some)
}

pub fn replay(row: idempotency_key::Model, key: &IdempotencyKey) -> Result<HttpResponse> {
    if !crate::core::secrets::constant_time_eq(
        row.request_hash.as_bytes(),
        key.request_hash.as_bytes(),
    ) {
        return Err(MessagingError::IdempotencyConflict.into());
    }
    let status = actix_web::http::StatusCode::from_u16(row.response_status as u16)
        .unwrap_or(actix_web::http::StatusCode::OK);
    Ok(HttpResponse::build(status)
        .insert_header(("Idempotent-Replayed", "true"))
        .content_type("application/json")
        .body(row.response_body))
}

pub async fn find_row(
    st: &MessagingState,
    workspace_id: Uuid,
    key: &str,
) -> Result<Option<idempotency_key::Model>> {
    Ok(idempotency_key::Entity::find()
        .filter(idempotency_key::Column::WorkspaceId.eq(workspace_id))
        .filter(idempotency_key::Column::Key.eq(key))
        .one(&st.core.db)
        .await?)
}
