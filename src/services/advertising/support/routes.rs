//! /support-tickets: a poster's tickets to the platform's support, with their messages.

use super::super::error::{Record, Result};
use super::super::openapi::Errors;
use super::super::sessions::{self, PosterBearer};
use super::super::state::AdvertisingState;
use super::super::wire::parse_id;
use super::super::wire::{ok, Data, List, StatusPage};
use super::domain::{MessageText, NewTicket, TicketStatus, STATUSES};
use super::dto::*;
use super::store::{self, Actor};
use crate::core::json_body::Json;
use actix_web::{get, post, web, HttpResponse};

fn actor(bearer: &PosterBearer) -> Result<Actor> {
    Ok(Actor::Poster(sessions::poster(bearer)?.id))
}

/// Opens a ticket with its first message.
#[utoipa::path(tag = "support", request_body = CreateTicket,
    responses((status = 200, body = Data<TicketDetail>), Errors), security(("bearer" = [])))]
#[post("/support-tickets")]
pub async fn create_ticket(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    body: Json<CreateTicket>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let new = NewTicket::parse(
        body.subject.as_deref(),
        body.category.as_deref(),
        body.message.as_deref(),
        body.screenshot_url.as_deref(),
    )?;
    let (t, first) = store::create(&st, poster.id, new).await?;
    Ok(ok(TicketDetail::new(&t, &[first])))
}

/// The poster's tickets, newest first.
#[utoipa::path(tag = "support", params(StatusPage),
    responses((status = 200, body = Data<List<TicketView>>), Errors), security(("bearer" = [])))]
#[get("/support-tickets")]
pub async fn tickets(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    q: web::Query<StatusPage>,
) -> Result<HttpResponse> {
    let by = actor(&bearer)?;
    let window = q.window()?;
    let status = q.status(STATUSES)?.and_then(TicketStatus::parse);
    let page = store::list(&st, by, status, window).await?;
    Ok(ok(List::from(page.map(|t| TicketView::from(&t)))))
}

/// One of the poster's tickets with its messages, oldest first.
#[utoipa::path(tag = "support", params(("id" = String, Path, description = "The ticket's id")),
    responses((status = 200, body = Data<TicketDetail>), Errors), security(("bearer" = [])))]
#[get("/support-tickets/{id}")]
pub async fn ticket(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let by = actor(&bearer)?;
    let (t, messages) = store::get(&st, by, parse_id(&id, Record::Ticket)?).await?;
    Ok(ok(TicketDetail::new(&t, &messages)))
}

/// Adds a message to an open ticket (a closed one answers 409 `ticket_closed`).
#[utoipa::path(tag = "support", params(("id" = String, Path, description = "The ticket's id")),
    request_body = AddMessage,
    responses((status = 200, body = Data<MessageView>), Errors), security(("bearer" = [])))]
#[post("/support-tickets/{id}/messages")]
pub async fn add_message(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
    body: Json<AddMessage>,
) -> Result<HttpResponse> {
    let by = actor(&bearer)?;
    let id = parse_id(&id, Record::Ticket)?;
    let text = MessageText::parse(body.message.as_deref())?;
    let written = store::add(&st, by, id, text).await?;
    Ok(ok(MessageView::from(&written)))
}

/// Closes the ticket; closing it again answers it unchanged.
#[utoipa::path(tag = "support", params(("id" = String, Path, description = "The ticket's id")),
    responses((status = 200, body = Data<TicketDetail>), Errors), security(("bearer" = [])))]
#[post("/support-tickets/{id}/close")]
pub async fn close_ticket(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let by = actor(&bearer)?;
    let (t, messages) = store::close(&st, by, parse_id(&id, Record::Ticket)?).await?;
    Ok(ok(TicketDetail::new(&t, &messages)))
}
