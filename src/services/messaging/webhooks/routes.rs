//! /api/v1/webhooks: create, list, read, update, delete, delivery history.

use super::super::accounts::caller::ApiKey;
use super::super::error::Result;
use super::super::limits;
use super::super::openapi::Errors;
use super::super::state::MessagingState;
use super::dto::*;
use super::store as svc;
use crate::core::dto::{ok, Success};
use crate::core::json_body::Json;
use crate::core::page::Bounds;
use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};
use uuid::Uuid;

async fn limit(req: &HttpRequest, st: &MessagingState, ws: Uuid) -> Result<()> {
    limits::per_workspace(req, "default", st.cfg.rate_limits.default, ws).await
}

#[utoipa::path(operation_id = "create_webhook", tag = "webhooks", request_body = WebhookCreate,
    security(("api_key" = [])),
    responses((status = 201, description = "Created; the secret is shown only now",
        body = Success<WebhookCreated>,
        links(
            ("Get" = (operation_id = "get_webhook", parameters(("id" = "$response.body#/data/webhook/id")))),
            ("Update" = (operation_id = "update_webhook", parameters(("id" = "$response.body#/data/webhook/id")))),
            ("Deliveries" = (operation_id = "list_webhook_deliveries", parameters(("id" = "$response.body#/data/webhook/id")))),
            ("Delete" = (operation_id = "delete_webhook", parameters(("id" = "$response.body#/data/webhook/id")))))),
        Errors))]
#[post("/api/v1/webhooks")]
pub async fn create(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    body: Json<WebhookCreate>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let (hook, secret) = svc::create(&st, ws.id, body.into_inner()).await?;
    Ok(HttpResponse::Created().json(ok(WebhookCreated {
        webhook: hook.into(),
        secret,
        warning: "Store this secret now: it is not shown again. Signatures are keyed with \
                  its SHA-256 hex digest."
            .into(),
    })))
}

#[utoipa::path(operation_id = "list_webhooks", tag = "webhooks",
    security(("api_key" = [])),
    responses((status = 200, body = Success<WebhookList>), Errors))]
#[get("/api/v1/webhooks")]
pub async fn list(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let hooks = svc::list(&st, ws.id).await?;
    Ok(HttpResponse::Ok().json(ok(WebhookList {
        webhooks: hooks.into_iter().map(Into::into).collect(),
    })))
}

#[utoipa::path(operation_id = "get_webhook", tag = "webhooks",
    params(("id" = Uuid, Path)), security(("api_key" = [])),
    responses((status = 200, body = Success<WebhookData>), Errors))]
#[get("/api/v1/webhooks/{id}")]
pub async fn get(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    id: web::Path<Uuid>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let hook = svc::get(&st, ws.id, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(ok(WebhookData {
        webhook: hook.into(),
    })))
}

#[utoipa::path(operation_id = "update_webhook", tag = "webhooks",
    params(("id" = Uuid, Path)), request_body = WebhookUpdate, security(("api_key" = [])),
    responses((status = 200, body = Success<WebhookData>), Errors))]
#[patch("/api/v1/webhooks/{id}")]
pub async fn update(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    id: web::Path<Uuid>,
    body: Json<WebhookUpdate>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let hook = svc::update(&st, ws.id, id.into_inner(), body.into_inner()).await?;
    Ok(HttpResponse::Ok().json(ok(WebhookData {
        webhook: hook.into(),
    })))
}

#[utoipa::path(operation_id = "delete_webhook", tag = "webhooks",
    params(("id" = Uuid, Path)), security(("api_key" = [])),
    responses((status = 200, body = Success<Deleted>), Errors))]
#[delete("/api/v1/webhooks/{id}")]
pub async fn delete(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    id: web::Path<Uuid>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let id = id.into_inner();
    svc::delete(&st, ws.id, id).await?;
    Ok(HttpResponse::Ok().json(ok(Deleted { id, deleted: true })))
}

#[utoipa::path(operation_id = "list_webhook_deliveries", tag = "webhooks",
    params(("id" = Uuid, Path), DeliveriesQuery), security(("api_key" = [])),
    responses((status = 200, description = "Delivery attempts, newest first",
        body = Success<Deliveries>), Errors))]
#[get("/api/v1/webhooks/{id}/deliveries")]
pub async fn deliveries(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
    id: web::Path<Uuid>,
    q: web::Query<DeliveriesQuery>,
) -> Result<HttpResponse> {
    limit(&req, &st, ws.id).await?;
    let n =
        Bounds::new(st.cfg.default_deliveries_limit, st.cfg.max_deliveries_limit).limit(q.limit)?;
    let rows = svc::attempts(&st, ws.id, id.into_inner(), n).await?;
    Ok(HttpResponse::Ok().json(ok(Deliveries {
        deliveries: rows.into_iter().map(Into::into).collect(),
    })))
}
