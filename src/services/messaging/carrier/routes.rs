//! POST /carrier/status and /carrier/inbound: form-encoded Twilio callbacks, signed with
//! `X-Carrier-Signature` over `[services.messaging] public_url` + path + query and the
//! sorted form fields. Invalid signatures get 403 in plain text; valid ones `OK`.

use super::super::error::Result;
use super::super::state::MessagingState;
use super::service::{self as carrier, Form};
use crate::core::error::ApiError;
use actix_web::{post, web, HttpRequest, HttpResponse};

pub const SIGNATURE_HEADER: &str = "X-Carrier-Signature";

fn forbidden() -> HttpResponse {
    HttpResponse::Forbidden()
        .content_type("text/plain; charset=utf-8")
        .body("Forbidden: invalid carrier signature")
}

fn accepted() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body("OK")
}

/// The verified form, or None when the signature does not match.
fn verified(st: &MessagingState, req: &HttpRequest, body: &[u8]) -> Option<Form> {
    let presented = req.headers().get(SIGNATURE_HEADER)?.to_str().ok()?;
    let params: Vec<(String, String)> = url::form_urlencoded::parse(body).into_owned().collect();
    let path = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.path().to_owned(), |pq| pq.as_str().to_owned());
    let url = format!("{}{}", st.cfg.public_url.trim_end_matches('/'), path);
    let token = &st.providers.settings.sms.auth_token;
    carrier::verify(token, &url, &params, presented).then(|| params.into_iter().collect())
}

/// The status callback URL this service gives carriers names the message.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatusQuery {
    /// The message the callback reports on (set in the callback URL at hand-over).
    pub message_id: Option<uuid::Uuid>,
}

#[utoipa::path(tag = "carrier",
    request_body(content = String, content_type = "application/x-www-form-urlencoded",
        description = "Twilio status callback fields: MessageSid, MessageStatus, ErrorCode, …"),
    params(("X-Carrier-Signature" = String, Header, description = "Twilio-style request signature"),
        StatusQuery),
    responses(
        (status = 200, description = "Acknowledged", body = String, content_type = "text/plain"),
        (status = 403, description = "Invalid signature", body = String, content_type = "text/plain"),
        super::super::openapi::CarrierErrors))]
#[post("/carrier/status")]
pub async fn status(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    body: web::Bytes,
) -> Result<HttpResponse> {
    let Some(form) = verified(&st, &req, &body) else {
        return Ok(forbidden());
    };
    // Read only once the signature (over the full URL) holds: a URL that carries a
    // malformed id was not made here, and its sender gets the 403 above, not a 400.
    let message_id = web::Query::<StatusQuery>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.into_inner().message_id);
    carrier::status(&st, message_id, &form)
        .await
        .map_err(ApiError::from)?;
    Ok(accepted())
}

#[utoipa::path(tag = "carrier",
    request_body(content = String, content_type = "application/x-www-form-urlencoded",
        description = "Twilio inbound message fields: MessageSid, From, To, Body, …"),
    params(("X-Carrier-Signature" = String, Header, description = "Twilio-style request signature")),
    responses(
        (status = 200, description = "Acknowledged", body = String, content_type = "text/plain"),
        (status = 403, description = "Invalid signature", body = String, content_type = "text/plain"),
        super::super::openapi::CarrierErrors))]
#[post("/carrier/inbound")]
pub async fn inbound(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    body: web::Bytes,
) -> Result<HttpResponse> {
    let Some(form) = verified(&st, &req, &body) else {
        return Ok(forbidden());
    };
    carrier::inbound(&st, &form).await.map_err(ApiError::from)?;
    Ok(accepted())
}
