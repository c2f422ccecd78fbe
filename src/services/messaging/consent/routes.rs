//! /api/v1/suppressions (the workspace's list: read, add, remove, one contact's history) and
//! /api/v1/account/consent (the words answering STOP, START and HELP).

use super::super::accounts::caller::{AnyAuth, ApiKey};
use super::super::error::{ErrorEnvelope, MessagingError, Result};
use super::super::limits;
use super::super::messages::domain::{Channel, EmailAddress};
use super::super::openapi::Errors;
use super::super::state::MessagingState;
use super::bounces;
use super::domain::{
    Address, DEFAULT_HELP_REPLY, DEFAULT_OPT_IN_REPLY, DEFAULT_OPT_OUT_REPLY, MAX_REPLY_CHARS,
};
use super::dto::*;
use super::store::{self, Cause};
use crate::core::dto::{ok, Success};
use crate::core::error::{ApiError, Kind};
use crate::core::json_body::Json;
use crate::core::page::{Bounds, PageQuery};
use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};
use sea_orm::{ActiveModelTrait, Set};
use switchboard_entities::messaging::suppression::ConsentSource;
use switchboard_entities::messaging::workspace;
use uuid::Uuid;

async fn limit(req: &HttpRequest, st: &MessagingState, ws: Uuid) -> Result<()> {
    limits::per_workspace(req, "default", st.cfg.rate_limits.default, ws).await
}

const MAX_REASON_CHARS: usize = 500;

#[utoipa::path(operation_id = "list_suppressions", tag = "suppressions",
    params(SuppressionQuery, PageQuery),
    security(("api_key" = [])),
    responses((status = 200, body = Success<SuppressionList>), Errors))]
#[get("/api/v1/suppressions")]
pub async fn list(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    q: web::Query<SuppressionQuery>,
    paging: web::Query<PageQuery>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let window = paging.window(Bounds::new(50, 500))?;
    let channel = q.channel.as_deref().map(Channel::parse).transpose()?;
    let page = store::list(&st.core.db, ws.id, channel, window).await?;
    Ok(HttpResponse::Ok().json(ok(SuppressionList {
        pagination: page.numbered_meta(),
        suppressions: page.items.into_iter().map(Into::into).collect(),
    })))
}

#[utoipa::path(operation_id = "add_suppression", tag = "suppressions",
    request_body = SuppressionCreate,
    security(("api_key" = [])),
    responses(
        (status = 201, description = "Suppressed; contact.opted_out is sent",
            body = Success<SuppressionView>,
            links(("Get" = (operation_id = "get_suppression", parameters(
                ("channel" = "$response.body#/data/channel"),
                ("address" = "$response.body#/data/address")))))),
        (status = 200, description = "Already suppressed: the suppression as it stands",
            body = Success<SuppressionView>),
        Errors))]
#[post("/api/v1/suppressions")]
pub async fn add(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    body: Json<SuppressionCreate>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let body = body.into_inner();
    let a = Address::parse(Channel::parse(&body.channel)?, &body.address)?;
    let reason = match body.reason.as_deref().map(str::trim) {
        None | Some("") => "added through the API".to_owned(),
        Some(r) if r.chars().count() > MAX_REASON_CHARS || r.chars().any(char::is_control) => {
            return Err(MessagingError::validation(format!(
                "reason must be one line of at most {MAX_REASON_CHARS} characters"
            ))
            .into())
        }
        Some(r) => r.to_owned(),
    };
    let cause = Cause {
        source: ConsentSource::Api,
        reason,
        message_id: None,
    };
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let now = st.core.now();
    match store::opt_out(&txn, now, ws.id, &a, &cause).await? {
        Some((row, emitted)) => {
            txn.commit().await?;
            emitted.notify(&st);
            Ok(HttpResponse::Created().json(ok(SuppressionView::from(row))))
        }
        None => {
            let row = store::find(&txn, ws.id, &a).await?;
            txn.commit().await?;
            let row = row.ok_or_else(|| {
                MessagingError::NotFound("the suppression was removed meanwhile".into())
            })?;
            Ok(HttpResponse::Ok().json(ok(SuppressionView::from(row))))
        }
    }
}

/// The contact a path names, parsed as a suppression names it.
fn contact(path: &ContactPath) -> Result<Address> {
    Ok(Address::parse(
        Channel::parse(&path.channel)?,
        &path.address,
    )?)
}

#[utoipa::path(operation_id = "get_suppression", tag = "suppressions",
    params(ContactPath),
    security(("api_key" = [])),
    responses((status = 200, description = "Whether sends to the contact are refused, and every change of its consent",
        body = Success<ContactConsent>), Errors))]
#[get("/api/v1/suppressions/{channel}/{address}")]
pub async fn get(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    path: web::Path<ContactPath>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let a = contact(&path)?;
    let db = &st.core.db;
    let suppression = store::find(db, ws.id, &a).await?;
    let history = store::history(db, ws.id, &a).await?;
    Ok(HttpResponse::Ok().json(ok(ContactConsent::of(a, suppression, history))))
}

#[utoipa::path(operation_id = "delete_suppression", tag = "suppressions",
    params(ContactPath),
    security(("api_key" = [])),
    responses((status = 200, description = "Removed; contact.opted_in is sent",
        body = Success<ContactConsent>), Errors))]
#[delete("/api/v1/suppressions/{channel}/{address}")]
pub async fn remove(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    path: web::Path<ContactPath>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let a = contact(&path)?;
    let cause = Cause {
        source: ConsentSource::Api,
        reason: "removed through the API".into(),
        message_id: None,
    };
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let Some(emitted) = store::opt_in(&txn, st.core.now(), ws.id, &a, &cause).await? else {
        txn.rollback().await?;
        return Err(MessagingError::NotFound(format!(
            "{} is not suppressed on {}",
            a.address,
            a.channel.as_str()
        ))
        .into());
    };
    let history = store::history(&txn, ws.id, &a).await?;
    txn.commit().await?;
    emitted.notify(&st);
    Ok(HttpResponse::Ok().json(ok(ContactConsent::of(a, None, history))))
}

fn effective(ws: &workspace::Model) -> ConsentSettings {
    ConsentSettings {
        opt_out_reply: Some(
            ws.opt_out_reply
                .clone()
                .unwrap_or(DEFAULT_OPT_OUT_REPLY.into()),
        ),
        opt_in_reply: Some(
            ws.opt_in_reply
                .clone()
                .unwrap_or(DEFAULT_OPT_IN_REPLY.into()),
        ),
        help_reply: Some(ws.help_reply.clone().unwrap_or(DEFAULT_HELP_REPLY.into())),
        unsubscribe_mailbox: ws.unsubscribe_mailbox.clone(),
    }
}

#[utoipa::path(operation_id = "get_consent_settings", tag = "account",
    security(("bearer" = []), ("api_key" = [])),
    responses((status = 200, description = "The words in use (the defaults where none were set)",
        body = Success<ConsentSettings>), Errors))]
#[get("/api/v1/account/consent")]
pub async fn settings(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    AnyAuth(ws): AnyAuth,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let ws = super::super::accounts::store::workspace(&st.core.db, ws.id)
        .await?
        .ok_or_else(|| MessagingError::Unauthorized("workspace no longer exists".into()))?;
    Ok(HttpResponse::Ok().json(ok(effective(&ws))))
}

/// A reply as given: one to 320 characters, no control characters but line breaks; None
/// (or blank) for the default.
fn reply(field: &str, v: Option<String>) -> Result<Option<String>> {
    let Some(v) = v.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if v.chars().count() > MAX_REPLY_CHARS || v.chars().any(|c| c.is_control() && c != '\n') {
        return Err(MessagingError::validation(format!(
            "{field} must be at most {MAX_REPLY_CHARS} printable characters"
        ))
        .into());
    }
    Ok(Some(v))
}

#[utoipa::path(operation_id = "set_consent_settings", tag = "account",
    request_body = ConsentSettings,
    security(("bearer" = []), ("api_key" = [])),
    responses((status = 200, description = "The words in use now", body = Success<ConsentSettings>),
        Errors))]
#[put("/api/v1/account/consent")]
pub async fn set_settings(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    AnyAuth(ws): AnyAuth,
    body: Json<ConsentSettings>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let body = body.into_inner();
    let mailbox = body
        .unsubscribe_mailbox
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty())
        .map(|m| EmailAddress::parse(&m).map(|e| e.as_str().to_owned()))
        .transpose()?;
    let mut row: workspace::ActiveModel = ws.into();
    row.opt_out_reply = Set(reply("opt_out_reply", body.opt_out_reply)?);
    row.opt_in_reply = Set(reply("opt_in_reply", body.opt_in_reply)?);
    row.help_reply = Set(reply("help_reply", body.help_reply)?);
    row.unsubscribe_mailbox = Set(mailbox);
    row.updated_at = Set(st.core.now());
    let ws = row.update(&st.core.db).await?;
    Ok(HttpResponse::Ok().json(ok(effective(&ws))))
}

#[utoipa::path(tag = "carrier",
    request_body(content = String, content_type = "application/json",
        description = "SendGrid Event Webhook events (a JSON array): bounce, dropped, spamreport, … \
                       each with email, event, type, reason, status and smtp-id"),
    params(
        ("X-Twilio-Email-Event-Webhook-Signature" = String, Header, description = "ECDSA P-256 signature (base64 DER) of the timestamp followed by the body"),
        ("X-Twilio-Email-Event-Webhook-Timestamp" = String, Header, description = "Unix seconds, within 10 minutes of now")),
    responses(
        (status = 200, description = "Read; bounced and complained-of addresses suppressed", body = Success<EventsApplied>),
        (status = 403, description = "Signature missing, invalid or too old", body = ErrorEnvelope),
        (status = 404, description = "No verification key configured (providers.email.events_public_key)", body = ErrorEnvelope),
        Errors))]
#[post("/providers/email/events")]
pub async fn email_events(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    body: web::Bytes,
) -> Result<HttpResponse> {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    let unsigned = [bounces::SIGNATURE_HEADER, bounces::TIMESTAMP_HEADER]
        .iter()
        .any(|h| header(h).trim().is_empty());
    if unsigned {
        return Err(ApiError::new(
            Kind::Forbidden,
            "the event webhook signature and timestamp headers are required",
        ));
    }
    let Some(key) = st.email_events_key.as_ref() else {
        return Err(MessagingError::NotFound(
            "email provider events are not configured here".into(),
        )
        .into());
    };
    if !bounces::verify(
        key,
        header(bounces::SIGNATURE_HEADER),
        header(bounces::TIMESTAMP_HEADER),
        &body,
        st.core.now(),
    ) {
        return Err(ApiError::new(
            Kind::Forbidden,
            "invalid event webhook signature",
        ));
    }
    let events: Vec<bounces::Event> = serde_json::from_slice(&body).map_err(|e| {
        MessagingError::validation(format!("the body must be a JSON array of events: {e}"))
    })?;
    let applied = bounces::apply(&st, &events).await?;
    Ok(HttpResponse::Ok().json(ok(EventsApplied {
        events: events.len(),
        suppressed: applied.suppressed,
        unmatched: applied.unmatched,
    })))
}
