//! Direct messages over HTTP: send, the conversations list, a conversation's messages,
//! read receipts and unread counts. Only the two participants ever see a conversation: the
//! paths name the other participant, so the caller is always one of the pair.

use crate::core::auth::Bearer;
use crate::core::json_body::Json;
use crate::services::marketplace::auth::caller;
use crate::services::marketplace::auth::Verified;
use crate::services::marketplace::domain::body_id;
use crate::services::marketplace::domain::{required, text};
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::messages::dto::*;
use crate::services::marketplace::messages::store as svc;
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::{list, ok, ok_with, List, PageParams, Success};
use actix_web::{get, post, put, web, HttpResponse};
use uuid::Uuid;

/// A user id in a path; malformed, it names nobody.
fn user_id(raw: &str) -> Result<Uuid> {
    Ok(Uuid::parse_str(raw).map_err(|_| MarketplaceError::UserNotFound)?)
}

#[utoipa::path(tag = "messages", operation_id = "send_message", security(("bearer" = [])),
    request_body = SendMessageRequest,
    responses((status = 201, body = Success<Message>, links(
        ("conversation_messages" = (operation_id = "conversation_messages",
            parameters(("receiverId" = "$response.body#/data/receiverId")))),
        ("mark_message_read" = (operation_id = "mark_message_read",
            parameters(("messageId" = "$response.body#/data/_id")))),
        ("conversation_unread_count" = (operation_id = "conversation_unread_count",
            parameters(("participantId" = "$response.body#/data/receiverId")))),
        ("mark_conversation_read" = (operation_id = "mark_conversation_read",
            parameters(("participantId" = "$response.body#/data/receiverId")))))), Errors))]
#[post("/messages/send")]
pub async fn send(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    body: Json<SendMessageRequest>,
) -> Result<HttpResponse> {
    let receiver = body_id("receiverId", &body.receiver_id)?;
    let message = text(
        "message",
        required("message", &body.message)?,
        MESSAGE_CHARS,
    )?;
    let sent = svc::send(&st, caller(&auth)?.id, receiver, message).await?;
    Ok(HttpResponse::Created().json(ok_with("Message sent", Message::from(sent))))
}

#[utoipa::path(tag = "messages", operation_id = "conversations", security(("bearer" = [])),
    params(PageParams),
    responses((status = 200, description = "Newest message first", body = List<Conversation>),
        Errors))]
#[get("/messages/conversations")]
pub async fn conversations(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let me = caller(&auth)?.id;
    let page = svc::conversations(&st, me, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(|c| Conversation::new(c, me)))))
}

#[utoipa::path(tag = "messages", operation_id = "conversation_messages",
    security(("bearer" = [])), params(("receiverId" = String, Path, description = "The other participant's id"), PageParams),
    responses((status = 200, description = "Newest first: page 1 holds the latest messages",
        body = List<Message>), Errors))]
#[get("/messages/conversations/{receiverId}")]
pub async fn messages(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    other: web::Path<String>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let page = svc::messages(&st, caller(&auth)?.id, user_id(&other)?, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(Message::from))))
}

#[utoipa::path(tag = "messages", operation_id = "mark_message_read", security(("bearer" = [])),
    params(("messageId" = String, Path, description = "A message the caller received")),
    responses((status = 200, description = "Read (again: unchanged)", body = Success<Message>),
        Errors))]
#[put("/messages/{messageId}/read")]
pub async fn read_one(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let id = Uuid::parse_str(&id).map_err(|_| MarketplaceError::MessageNotFound)?;
    let read = svc::read_one(&st, caller(&auth)?.id, id).await?;
    Ok(HttpResponse::Ok().json(ok(Message::from(read))))
}

#[utoipa::path(tag = "messages", operation_id = "unread_count", security(("bearer" = [])),
    responses((status = 200, body = Success<UnreadCount>), Errors))]
#[get("/messages/unread-count")]
pub async fn unread_total(auth: Bearer, st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    let unread_count = svc::unread_total(&st, caller(&auth)?.id).await?;
    Ok(HttpResponse::Ok().json(ok(UnreadCount { unread_count })))
}

#[utoipa::path(tag = "messages", operation_id = "conversation_unread_count",
    security(("bearer" = [])),
    params(("participantId" = String, Path, description = "The other participant's id")),
    responses((status = 200, body = Success<UnreadCount>), Errors))]
#[get("/messages/conversations/{participantId}/unread-count")]
pub async fn unread_with(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    other: web::Path<String>,
) -> Result<HttpResponse> {
    let unread_count = svc::unread_with(&st, caller(&auth)?.id, user_id(&other)?).await?;
    Ok(HttpResponse::Ok().json(ok(UnreadCount { unread_count })))
}

#[utoipa::path(tag = "messages", operation_id = "mark_conversation_read",
    security(("bearer" = [])),
    params(("participantId" = String, Path, description = "The other participant's id")),
    responses((status = 200, body = Success<MarkedRead>), Errors))]
#[put("/messages/conversations/{participantId}/read")]
pub async fn read_all(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    other: web::Path<String>,
) -> Result<HttpResponse> {
    let marked_read = svc::read_all(&st, caller(&auth)?.id, user_id(&other)?).await?;
    Ok(HttpResponse::Ok().json(ok(MarkedRead { marked_read })))
}
