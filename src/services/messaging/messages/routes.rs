//! /api/v1/messages: send, bulk, list, read.

use super::super::accounts::caller::ApiKey;
use super::super::billing::domain::credits_value;
use super::super::billing::idempotency;
use super::super::billing::service::{self as billing, Answer, Committed};
use super::super::consent::domain::Address;
use super::super::consent::store as consent;
use super::super::error::{MessagingError, Result, OPTED_OUT};
use super::super::limits;
use super::super::openapi::Errors;
use super::super::settings::MessagingSettings;
use super::super::state::MessagingState;
use super::domain::{sms_segments, Channel, Draft, Recipient, Sender, Status, Template};
use super::dto::*;
use super::store;
use crate::core::dto::{ok, Success};
use crate::core::error::ApiError;
use crate::core::json_body::Json;
use crate::core::page::{Bounds, PageQuery};
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde_json::{Map, Value};
use switchboard_entities::messaging::workspace;
use uuid::Uuid;

const MAX_METADATA_BYTES: usize = 8 * 1024;

fn metadata(v: Option<Value>) -> Result<Option<Value>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => {
            let size = serde_json::to_vec(&m)
                .map(|b| b.len())
                .unwrap_or(usize::MAX);
            if size > MAX_METADATA_BYTES {
                return Err(
                    MessagingError::validation("metadata must be at most 8 KiB of JSON").into(),
                );
            }
            Ok(Some(Value::Object(m)))
        }
        Some(_) => Err(MessagingError::validation("metadata must be an object").into()),
    }
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|t| !t.trim().is_empty())
}

/// Validates and prices one message. Errors name what is wrong with it.
fn draft(
    st: &MessagingState,
    ws: &workspace::Model,
    channel: Channel,
    to: &str,
    content: Content,
    from: Option<&str>,
    metadata: Option<Value>,
) -> Result<Draft> {
    let recipient = Recipient::parse(channel, to)?;
    let cfg = &st.cfg;
    let costs = &cfg.costs;
    let text = non_empty(content.text);
    let length = |t: &str| t.chars().count();
    let body_for = |max: usize, what: &str| -> Result<String> {
        let t = text.clone().ok_or_else(|| {
            MessagingError::validation(format!("content.text is required for {what}"))
        })?;
        if length(&t) > max {
            return Err(MessagingError::validation(format!(
                "content.text is longer than {max} characters"
            ))
            .into());
        }
        Ok(t)
    };
    let mut d = Draft {
        channel,
        recipient: recipient.as_str().to_owned(),
        sender: None,
        subject: None,
        text: None,
        html: None,
        metadata,
        cost: 0,
        segments: 1,
    };
    match channel {
        Channel::Sms => {
            let t = body_for(cfg.max_sms_chars, "sms")?;
            let (_, segments) = sms_segments(&t);
            d.segments = segments as i32;
            d.cost = costs.sms_segment * i64::from(segments);
            d.text = Some(t);
        }
        Channel::WhatsApp => {
            d.text = Some(body_for(cfg.max_whatsapp_chars, "whatsapp")?);
            d.cost = costs.whatsapp;
        }
        Channel::Voice => {
            d.text = Some(body_for(cfg.max_voice_chars, "voice")?);
            d.cost = costs.voice;
        }
        Channel::Email => {
            let subject = non_empty(content.subject).ok_or_else(|| {
                MessagingError::validation("content.subject is required for email")
            })?;
            if subject.chars().count() > 998 || subject.chars().any(char::is_control) {
                return Err(MessagingError::validation(
                    "content.subject must be one line of at most 998 characters",
                )
                .into());
            }
            let html = non_empty(content.html);
            if text.is_none() && html.is_none() {
                return Err(
                    MessagingError::validation("email needs content.html or content.text").into(),
                );
            }
            let size = text.as_deref().map_or(0, length) + html.as_deref().map_or(0, length);
            if size > cfg.max_email_chars {
                return Err(MessagingError::validation(format!(
                    "email content is longer than {} characters",
                    cfg.max_email_chars
                ))
                .into());
            }
            let sender = Sender::parse(from.unwrap_or(&ws.sender_name), &cfg.mail_domain)?;
            d.sender = Some(sender.header());
            d.subject = Some(subject);
            d.text = text;
            d.html = html;
            d.cost = costs.email;
        }
    }
    Ok(d)
}

fn answer<T: utoipa::ToSchema + serde::Serialize>(data: T) -> Result<Answer> {
    Ok(Answer {
        status: 201,
        body: serde_json::to_string(&ok(data)).map_err(ApiError::internal)?,
    })
}

fn respond(answer: &Answer) -> HttpResponse {
    HttpResponse::Created()
        .content_type("application/json")
        .body(answer.body.clone())
}

#[utoipa::path(operation_id = "send_message", tag = "messages",
    request_body = SendRequest,
    params(("Idempotency-Key" = Option<String>, Header,
        description = "Repeats with the same key replay the first answer and charge once")),
    security(("api_key" = [])),
    responses((status = 201, description = "Queued", body = Success<MessageCreated>,
        links(
            ("Get" = (operation_id = "get_message", parameters(("id" = "$response.body#/data/message_id")))))),
        Errors))]
#[post("/api/v1/messages/send")]
pub async fn send(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    body: Json<SendRequest>,
) -> Result<HttpResponse> {
    limits::per_workspace(&req, "send", st.cfg.rate_limits.send, ws.id).await?;
    let body = body.into_inner();
    let canonical = serde_json::to_vec(&body).map_err(ApiError::internal)?;
    let idem = idempotency::from_request(&req, "send", &canonical)?;
    if let Some(k) = &idem {
        if let Some(replay) = idempotency::lookup(&st, ws.id, k).await? {
            return Ok(replay);
        }
    }
    let channel = Channel::parse(&body.channel)?;
    if !matches!(channel, Channel::Sms | Channel::Email) {
        return Err(MessagingError::validation(
            "channel must be sms or email (whatsapp and voice go through /api/v1/messages/bulk)",
        )
        .into());
    }
    let meta = metadata(body.metadata)?;
    let d = draft(
        &st,
        &ws,
        channel,
        &body.to,
        body.content,
        body.from.as_deref(),
        meta,
    )?;
    let to = Address::of_recipient(channel, &d.recipient);
    if consent::find(&st.core.db, ws.id, &to).await?.is_some() {
        return Err(MessagingError::OptedOut(opted_out(&to)).into());
    }
    let id = Uuid::new_v4();
    let now = st.core.now();
    let ans = answer(MessageCreated {
        message_id: id,
        status: Status::Queued.to_string(),
        credits_used: credits_value(d.cost),
        created_at: now,
    })?;
    match billing::commit(
        &st,
        ws.id,
        &[d],
        &[id],
        now,
        None,
        idem.as_ref().map(|k| (k, &ans)),
    )
    .await?
    {
        Committed::Created => Ok(respond(&ans)),
        Committed::Replayed(r) => Ok(r),
    }
}

#[utoipa::path(operation_id = "send_bulk", tag = "messages",
    request_body = BulkRequest,
    params(("Idempotency-Key" = Option<String>, Header,
        description = "Repeats with the same key replay the first answer and charge once")),
    security(("api_key" = [])),
    responses((status = 201, description = "Valid recipients queued, invalid ones counted in failed",
        body = Success<BulkResult>), Errors))]
#[post("/api/v1/messages/bulk")]
pub async fn bulk(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    body: Json<BulkRequest>,
) -> Result<HttpResponse> {
    limits::per_workspace(&req, "bulk", st.cfg.rate_limits.bulk, ws.id).await?;
    let body = body.into_inner();
    let canonical = serde_json::to_vec(&body).map_err(ApiError::internal)?;
    let idem = idempotency::from_request(&req, "bulk", &canonical)?;
    if let Some(k) = &idem {
        if let Some(replay) = idempotency::lookup(&st, ws.id, k).await? {
            return Ok(replay);
        }
    }
    let channel = Channel::parse(&body.channel)?;
    let max = st.cfg.max_bulk_recipients;
    if body.recipients.is_empty() {
        return Err(MessagingError::validation("recipients must not be empty").into());
    }
    if body.recipients.len() > max {
        return Err(MessagingError::validation(format!(
            "at most {max} recipients per request ({} given)",
            body.recipients.len()
        ))
        .into());
    }
    if non_empty(body.content.text.clone()).is_none() {
        return Err(MessagingError::validation("content.text is required").into());
    }
    // A recipient without `to` rejects the whole request; it is a malformed list.
    for (i, r) in body.recipients.iter().enumerate() {
        if !matches!(r.get("to"), Some(Value::String(_))) {
            return Err(
                MessagingError::validation(format!("recipients[{i}] has no 'to' string")).into(),
            );
        }
    }
    let meta = metadata(body.metadata)?;
    let templates = Templates::parse(&st.cfg, channel, &body.content)?;
    // Rendering up to 1000 recipients is CPU work: off the async workers.
    let (drafts, failures) = {
        let st = st.clone();
        let ws = ws.clone();
        let from = body.from;
        let recipients = body.recipients;
        web::block(move || {
            render_all(
                &st,
                &ws,
                channel,
                &templates,
                &recipients,
                from.as_deref(),
                &meta,
            )
        })
        .await
        .map_err(ApiError::internal)??
    };
    let (drafts, failures) = without_suppressed(&st, ws.id, channel, drafts, failures).await?;
    let ids: Vec<Uuid> = drafts.iter().map(|_| Uuid::new_v4()).collect();
    let total: i64 = drafts.iter().map(|d| d.cost).sum();
    let now = st.core.now();
    let ans = answer(BulkResult {
        queued: drafts.len(),
        failed: failures.len(),
        message_ids: ids.clone(),
        credits_used: credits_value(total),
        failures,
    })?;
    if drafts.is_empty() {
        return Ok(respond(&ans));
    }
    let bulk_id = Uuid::new_v4();
    match billing::commit(
        &st,
        ws.id,
        &drafts,
        &ids,
        now,
        Some(bulk_id),
        idem.as_ref().map(|k| (k, &ans)),
    )
    .await?
    {
        Committed::Created => Ok(respond(&ans)),
        Committed::Replayed(r) => Ok(r),
    }
}

/// Why a send to `to` is refused.
fn opted_out(to: &Address) -> String {
    format!(
        "{} opted out of this workspace's {} messages",
        to.address,
        to.channel.as_str()
    )
}

/// The drafts whose recipients may be sent to; the others join `failures` (in request
/// order) as `recipient_opted_out`. One look-up per 500 recipients.
async fn without_suppressed(
    st: &MessagingState,
    workspace_id: Uuid,
    channel: Channel,
    drafts: Vec<(usize, Draft)>,
    mut failures: Vec<BulkFailure>,
) -> Result<(Vec<Draft>, Vec<BulkFailure>)> {
    let addresses: Vec<Address> = drafts
        .iter()
        .map(|(_, d)| Address::of_recipient(channel, &d.recipient))
        .collect();
    let wanted: Vec<String> = addresses.iter().map(|a| a.address.clone()).collect();
    let suppressed =
        consent::suppressed_among(&st.core.db, workspace_id, channel.as_str(), &wanted).await?;
    if suppressed.is_empty() {
        return Ok((drafts.into_iter().map(|(_, d)| d).collect(), failures));
    }
    let mut kept = Vec::with_capacity(drafts.len());
    for ((index, d), a) in drafts.into_iter().zip(addresses) {
        if suppressed.contains(&a.address) {
            failures.push(BulkFailure {
                index,
                to: d.recipient,
                code: OPTED_OUT,
                reason: opted_out(&a),
            });
        } else {
            kept.push(d);
        }
    }
    failures.sort_by_key(|f| f.index);
    Ok((kept, failures))
}

/// The bulk content parsed once, each field within its channel's limit and the
/// placeholder cap, with the budget its rendering may not pass.
struct Templates {
    text: Option<(Template, usize)>,
    subject: Option<(Template, usize)>,
    html: Option<(Template, usize)>,
}

/// Longest email subject (RFC 5322's line length).
const MAX_SUBJECT_CHARS: usize = 998;

impl Templates {
    fn parse(cfg: &MessagingSettings, channel: Channel, c: &Content) -> Result<Self> {
        let text_max = match channel {
            Channel::Sms => cfg.max_sms_chars,
            Channel::WhatsApp => cfg.max_whatsapp_chars,
            Channel::Voice => cfg.max_voice_chars,
            Channel::Email => cfg.max_email_chars,
        };
        let one = |field: &str, t: &Option<String>, max: usize| {
            t.as_deref()
                .map(|t| {
                    Template::parse(field, t, max, cfg.max_template_placeholders).map(|t| (t, max))
                })
                .transpose()
        };
        Ok(Self {
            text: one("content.text", &c.text, text_max)?,
            subject: one("content.subject", &c.subject, MAX_SUBJECT_CHARS)?,
            html: one("content.html", &c.html, cfg.max_email_chars)?,
        })
    }
}

/// Each valid recipient's draft with its position in the request, and the failures.
type Rendered = (Vec<(usize, Draft)>, Vec<BulkFailure>);

/// Every recipient's draft, or why it failed; refuses the whole request when the rendered
/// text of all recipients together passes `max_bulk_rendered_bytes`.
fn render_all(
    st: &MessagingState,
    ws: &workspace::Model,
    channel: Channel,
    templates: &Templates,
    recipients: &[Map<String, Value>],
    from: Option<&str>,
    meta: &Option<Value>,
) -> Result<Rendered> {
    let max_total = st.cfg.max_bulk_rendered_bytes;
    let mut total = 0usize;
    let mut drafts = Vec::with_capacity(recipients.len());
    let mut failures = Vec::new();
    for (i, r) in recipients.iter().enumerate() {
        let to = r.get("to").and_then(Value::as_str).unwrap_or_default();
        match personalise(st, ws, channel, to, templates, r, from, meta) {
            Ok(d) => {
                total += [&d.text, &d.subject, &d.html]
                    .iter()
                    .map(|t| t.as_ref().map_or(0, String::len))
                    .sum::<usize>();
                if total > max_total {
                    return Err(MessagingError::validation(format!(
                        "the messages of this request come to more than {max_total} bytes of \
                         text; send them in smaller requests"
                    ))
                    .into());
                }
                drafts.push((i, d));
            }
            Err(reason) => failures.push(BulkFailure {
                index: i,
                to: super::domain::clip(to, 320),
                code: "validation_error",
                reason,
            }),
        }
    }
    Ok((drafts, failures))
}

/// One recipient's message: placeholders filled from its own values.
#[allow(clippy::too_many_arguments)]
fn personalise(
    st: &MessagingState,
    ws: &workspace::Model,
    channel: Channel,
    to: &str,
    templates: &Templates,
    vars: &Map<String, Value>,
    from: Option<&str>,
    meta: &Option<Value>,
) -> std::result::Result<Draft, String> {
    let fill = |field: &str, t: &Option<(Template, usize)>| {
        t.as_ref()
            .map(|(t, budget)| {
                t.render(vars, *budget)
                    .map_err(|e| e.describe(field, *budget))
            })
            .transpose()
    };
    let content = Content {
        text: fill("content.text", &templates.text)?,
        subject: fill("content.subject", &templates.subject)?,
        html: fill("content.html", &templates.html)?,
    };
    draft(st, ws, channel, to, content, from, meta.clone()).map_err(|e| e.to_string())
}

#[utoipa::path(operation_id = "list_messages", tag = "messages", params(MessagesQuery, PageQuery),
    security(("api_key" = [])),
    responses((status = 200, body = Success<MessageList>), Errors))]
#[get("/api/v1/messages")]
pub async fn list(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    q: web::Query<MessagesQuery>,
    paging: web::Query<PageQuery>,
) -> Result<HttpResponse> {
    limits::per_workspace(&req, "default", st.cfg.rate_limits.default, ws.id).await?;
    let window = paging.window(Bounds::new(20, 100))?;
    let status = q
        .status
        .as_deref()
        .map(super::domain::listed_status)
        .transpose()?;
    let channel = q.channel.as_deref().map(Channel::parse).transpose()?;
    let page = store::list(&st.core.db, ws.id, status, channel, window).await?;
    Ok(HttpResponse::Ok().json(ok(MessageList {
        pagination: page.numbered_meta(),
        messages: page.items.into_iter().map(MessageView::from).collect(),
    })))
}

#[utoipa::path(operation_id = "get_message", tag = "messages",
    params(("id" = Uuid, Path, description = "Message id")),
    security(("api_key" = [])),
    responses((status = 200, body = Success<MessageView>), Errors))]
#[get("/api/v1/messages/{id}")]
pub async fn get(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    id: web::Path<Uuid>,
) -> Result<HttpResponse> {
    limits::per_workspace(&req, "default", st.cfg.rate_limits.default, ws.id).await?;
    let m = store::of_workspace(&st.core.db, ws.id, id.into_inner())
        .await?
        .ok_or_else(|| MessagingError::NotFound("message not found".into()))?;
    Ok(HttpResponse::Ok().json(ok(MessageView::from(m))))
}
