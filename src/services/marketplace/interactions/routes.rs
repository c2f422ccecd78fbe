//! Car interactions over HTTP: likes, views, comments and replies, shares, test drives.

use crate::core::auth::{Bearer, MaybeBearer};
use crate::core::error::ApiError;
use crate::core::json_body::Json;
use crate::services::marketplace::auth::{account, caller, Verified};
use crate::services::marketplace::cars::store::car_id;
use crate::services::marketplace::domain::{required, text};
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::interactions::domain::{self as rules, TestDriveSlot};
use crate::services::marketplace::interactions::dto::*;
use crate::services::marketplace::interactions::service;
use crate::services::marketplace::interactions::store::{self as svc, Viewer};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::{list, ok, ok_with, List, PageParams, Success};
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use uuid::Uuid;

/// A comment id from a path; a malformed one is a comment that does not exist.
fn comment_id(raw: &str) -> Result<Uuid> {
    Ok(Uuid::parse_str(raw).map_err(|_| MarketplaceError::CommentNotFound)?)
}

/// The signed-in caller's account when a token is sent.
fn optional_user(auth: &MaybeBearer) -> Result<Option<Uuid>> {
    auth.0.as_ref().map(|b| account(&b.claims)).transpose()
}

#[utoipa::path(tag = "interactions", security(("bearer" = [])),
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<LikeState>), Errors))]
#[post("/cars/{id}/like")]
pub async fn like(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let t = svc::toggle_like(&st, caller(&auth)?.id, car_id(&id)?).await?;
    Ok(HttpResponse::Ok().json(ok(LikeState {
        liked: t.on,
        like_count: t.count,
    })))
}

#[utoipa::path(tag = "interactions", params(("id" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<ViewCount>), Errors))]
#[get("/cars/{id}/views")]
pub async fn views(st: web::Data<MarketplaceState>, id: web::Path<String>) -> Result<HttpResponse> {
    let (view_count, today_count) = svc::views(&st, car_id(&id)?).await?;
    Ok(HttpResponse::Ok().json(ok(ViewCount {
        view_count,
        today_count,
    })))
}

#[utoipa::path(tag = "interactions", security((), ("bearer" = [])),
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<ViewResult>), Errors))]
#[post("/cars/{id}/views")]
pub async fn record_view(
    req: HttpRequest,
    auth: MaybeBearer,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let viewer = match optional_user(&auth)? {
        Some(user) => Viewer::User(user),
        None => Viewer::Address(st.address_hash(&crate::core::client::ip(&req))),
    };
    let seen = service::view(&st, car_id(&id)?, viewer).await?;
    Ok(HttpResponse::Ok().json(ok(ViewResult {
        view_count: seen.view_count,
        counted: seen.counted,
    })))
}

#[utoipa::path(tag = "interactions", params(("id" = String, Path, description = "The car's id"),
    PageParams), responses((status = 200, body = List<Comment>), Errors))]
#[get("/cars/{id}/comments")]
pub async fn comments(
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let (page, users) = svc::comments(&st, car_id(&id)?, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(|t| Comment::thread(t, &users)))))
}

#[utoipa::path(tag = "interactions", security(("bearer" = [])), request_body = CommentRequest,
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 201, body = Success<Comment>, links(
        ("like_comment" = (operation_id = "like_comment",
            parameters(("commentId" = "$response.body#/data/_id")))),
        ("reply" = (operation_id = "reply",
            parameters(("commentId" = "$response.body#/data/_id")))))), Errors))]
#[post("/cars/{id}/comments")]
pub async fn comment(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    body: Json<CommentRequest>,
) -> Result<HttpResponse> {
    let id = car_id(&id)?;
    let words = text("text", required("text", &body.text)?, rules::COMMENT_CHARS)?;
    // The spec does not require a rating of a comment.
    let rating = rules::optional_rating(body.rating.as_ref())?;
    let (created, author) = svc::comment(&st, caller(&auth)?.id, id, words, rating).await?;
    let comment = Comment::new(created, author.as_slice());
    Ok(HttpResponse::Created().json(ok_with("Comment added", comment)))
}

#[utoipa::path(tag = "interactions", security(("bearer" = [])),
    params(("commentId" = String, Path, description = "The comment's id")),
    responses((status = 200, body = Success<LikeState>), Errors))]
#[post("/cars/comments/{commentId}/like")]
pub async fn like_comment(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let t = svc::toggle_comment_like(&st, caller(&auth)?.id, comment_id(&id)?).await?;
    Ok(HttpResponse::Ok().json(ok(LikeState {
        liked: t.on,
        like_count: t.count,
    })))
}

#[utoipa::path(tag = "interactions", security(("bearer" = [])), request_body = ReplyRequest,
    params(("commentId" = String, Path, description = "The comment's id")),
    responses((status = 201, body = Success<Comment>), Errors))]
#[post("/cars/comments/{commentId}/reply")]
pub async fn reply(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    body: Json<ReplyRequest>,
) -> Result<HttpResponse> {
    let id = comment_id(&id)?;
    let words = text("text", required("text", &body.text)?, rules::COMMENT_CHARS)?;
    let (created, author) = svc::reply(&st, caller(&auth)?.id, id, words).await?;
    let reply = Comment::new(created, author.as_slice());
    Ok(HttpResponse::Created().json(ok_with("Reply added", reply)))
}

#[utoipa::path(tag = "interactions", security((), ("bearer" = [])),
    request_body(content = Option<ShareRequest>, description = "Optional"),
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<ShareCount>), Errors))]
#[post("/cars/{id}/share")]
pub async fn share(
    auth: MaybeBearer,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse> {
    let id = car_id(&id)?;
    // The body is optional: none shares without naming a channel.
    let asked: ShareRequest = if body.iter().all(u8::is_ascii_whitespace) {
        ShareRequest::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("invalid request body: {e}")))?
    };
    let channel = asked
        .channel
        .as_deref()
        .map(rules::share_channel)
        .transpose()?;
    let share_count = svc::share(&st, id, optional_user(&auth)?, channel).await?;
    Ok(HttpResponse::Ok().json(ok(ShareCount { share_count })))
}

#[utoipa::path(tag = "interactions", security(("bearer" = [])), request_body = TestDriveRequest,
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 201, body = Success<TestDrive>), Errors))]
#[post("/cars/{id}/test-drive")]
pub async fn test_drive(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    body: Json<TestDriveRequest>,
) -> Result<HttpResponse> {
    let id = car_id(&id)?;
    let slot = TestDriveSlot::parse(
        required("preferredDate", &body.preferred_date)?,
        required("preferredTime", &body.preferred_time)?,
        st.core.now().date_naive(),
    )?;
    let message = match body.message.as_deref() {
        Some(m) if !m.trim().is_empty() => text("message", m, rules::TEST_DRIVE_MESSAGE_CHARS)?,
        _ => String::new(),
    };
    let created = svc::request_test_drive(&st, caller(&auth)?.id, id, slot, message).await?;
    Ok(HttpResponse::Created().json(ok_with("Test drive requested", TestDrive::from(created))))
}

#[utoipa::path(tag = "interactions", security(("bearer" = [])),
    params(("id" = String, Path, description = "The car's id"), PageParams),
    responses((status = 200, body = List<TestDrive>), Errors))]
#[get("/cars/{id}/test-drives")]
pub async fn test_drives(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let page = svc::test_drives(&st, caller(&auth)?, car_id(&id)?, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(TestDrive::from))))
}
