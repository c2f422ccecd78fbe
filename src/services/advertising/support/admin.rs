//! /admin/support-tickets: moderators read every poster's tickets and their threads, answer
//! them and close them.

use super::super::error::{Record, Result};
use super::super::openapi::Errors;
use super::super::sessions;
use super::super::state::AdvertisingState;
use super::super::wire::parse_id;
use super::super::wire::{ok, Data, List, StatusPage};
use super::domain::{MessageText, TicketStatus, STATUSES};
use super::dto::*;
use super::store::{self, Actor};
use crate::core::auth::{Bearer, ModeratorRole};
use crate::core::json_body::Json;
use actix_web::{get, post, web, HttpResponse};

fn actor(bearer: &Bearer<ModeratorRole>) -> Result<Actor> {
    Ok(Actor::Admin(sessions::admin(bearer)?.id))
}

/// Every poster's tickets, newest first.
#[utoipa::path(tag = "admin", params(StatusPage),
    responses((status = 200, body = Data<List<TicketView>>), Errors), security(("bearer" = [])))]
#[get("/admin/support-tickets")]
pub async fn admin_tickets(
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    q: web::Query<StatusPage>,
) -> Result<HttpResponse> {
    let by = actor(&staff)?;
    let window = q.window()?;
    let status = q.status(STATUSES)?.and_then(TicketStatus::parse);
    let page = store::list(&st, by, status, window).await?;
    Ok(ok(List::from(page.map(|t| TicketView::from(&t)))))
}

/// Answers an open ticket (a closed one answers 409 `ticket_closed`).
#[utoipa::path(tag = "admin", params(("id" = String, Path, description = "The ticket's id")),
    request_body = AddMessage,
    responses((status = 200, body = Data<MessageView>), Errors), security(("bearer" = [])))]
#[post("/admin/support-tickets/{id}/messages")]
pub async fn admin_reply(
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
    body: Json<AddMessage>,
) -> Result<HttpResponse> {
    let by = actor(&staff)?;
    let id = parse_id(&id, Record::Ticket)?;
    let text = MessageText::parse(body.message.as_deref())?;
    let written = store::add(&st, by, id, text).await?;
    Ok(ok(MessageView::from(&written)))
}

/// Any poster's ticket with its whole thread, oldest message first.
#[utoipa::path(tag = "admin", params(("id" = String, Path, description = "The ticket's id")),
    responses((status = 200, body = Data<TicketDetail>), Errors), security(("bearer" = [])))]
#[get("/admin/support-tickets/{id}")]
pub async fn admin_ticket(
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let (t, messages) = store::get(&st, actor(&staff)?, parse_id(&id, Record::Ticket)?).await?;
    Ok(ok(TicketDetail::new(&t, &messages)))
}

/// Closes the ticket; closing it again answers it unchanged.
#[utoipa::path(tag = "admin", params(("id" = String, Path, description = "The ticket's id")),
    responses((status = 200, body = Data<TicketDetail>), Errors), security(("bearer" = [])))]
#[post("/admin/support-tickets/{id}/close")]
pub async fn admin_close_ticket(
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let (t, messages) = store::close(&st, actor(&staff)?, parse_id(&id, Record::Ticket)?).await?;
    Ok(ok(TicketDetail::new(&t, &messages)))
}
