//! /subscriptions: subscribing to an ad (which makes the poster's personalised video), the
//! poster's subscriptions, and the signed link to their video.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::sessions::{self, PosterBearer};
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data, List, StatusPage};
use super::dto::*;
use super::store::{self, SubscriptionStatus};
use crate::core::json_body::Json;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use chrono::Duration;
use switchboard_entities::advertising::subscription;
use uuid::Uuid;

/// Largest `phoneInfo`, as compact JSON.
const PHONE_INFO_MAX: usize = 2048;

/// The signed link to a ready subscription's video, on the host the request came to.
fn link(
    req: &HttpRequest,
    st: &AdvertisingState,
    s: &subscription::Model,
) -> Option<(String, chrono::DateTime<chrono::Utc>)> {
    if s.status != SubscriptionStatus::Ready {
        return None;
    }
    let expires = st.core.now() + Duration::seconds(st.cfg.video_link_ttl_secs);
    let token = st.media.links.token(s.id, expires);
    let ci = req.connection_info();
    Some((
        format!("{}://{}/media/videos/{token}", ci.scheme(), ci.host()),
        expires,
    ))
}

/// Subscribes to an ad open to new work; the personalised video is made in the background
/// (`GET /subscriptions/{id}/video` says when it is ready).
#[utoipa::path(tag = "subscriptions", request_body = SubscribeRequest,
    responses((status = 200, body = Data<Subscribed>), Errors), security(("bearer" = [])))]
#[post("/subscriptions")]
pub async fn subscribe(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    body: Json<SubscribeRequest>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let ad_id = body
        .ad_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| AdvertisingError::invalid("adId", "is required"))?;
    let ad_id = Uuid::parse_str(ad_id).map_err(|_| AdvertisingError::NotFound(Record::Ad))?;
    let info = match &body.phone_info {
        Some(v @ serde_json::Value::Object(_)) => serde_json::to_string(v).unwrap_or_default(),
        Some(_) => return Err(AdvertisingError::invalid("phoneInfo", "must be an object").into()),
        None => return Err(AdvertisingError::invalid("phoneInfo", "is required").into()),
    };
    if info.len() > PHONE_INFO_MAX {
        return Err(AdvertisingError::invalid(
            "phoneInfo",
            format!("must be at most {PHONE_INFO_MAX} bytes as JSON"),
        )
        .into());
    }
    let s = store::create(&st, poster.id, ad_id, info).await?;
    Ok(ok(Subscribed {
        video_url: link(&req, &st, &s).map(|l| l.0),
        subscription: SubscriptionView::from(&s),
    }))
}

#[utoipa::path(tag = "subscriptions", params(StatusPage),
    responses((status = 200, body = Data<List<SubscriptionView>>), Errors), security(("bearer" = [])))]
#[get("/subscriptions")]
pub async fn list_subscriptions(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    q: web::Query<StatusPage>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let window = q.window()?;
    let status = q.status_of::<SubscriptionStatus>()?;
    let page =
        super::super::owned::list::<subscription::Entity>(&st, poster.id, status, window).await?;
    Ok(ok(List::from(page.map(|s| SubscriptionView::from(&s)))))
}

#[utoipa::path(tag = "subscriptions", params(("id" = String, Path)),
    responses((status = 200, body = Data<SubscriptionView>), Errors), security(("bearer" = [])))]
#[get("/subscriptions/{id}")]
pub async fn one_subscription(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let s = super::super::owned::get::<subscription::Entity>(&st, poster.id, &id).await?;
    Ok(ok(SubscriptionView::from(&s)))
}

/// The personalised video's status and, once ready, a signed link to it.
#[utoipa::path(tag = "subscriptions", params(("id" = String, Path)),
    responses((status = 200, body = Data<VideoLink>), Errors), security(("bearer" = [])))]
#[get("/subscriptions/{id}/video")]
pub async fn subscription_video(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let s = super::super::owned::get::<subscription::Entity>(&st, poster.id, &id).await?;
    let link = link(&req, &st, &s);
    Ok(ok(VideoLink {
        status: s.status.as_str().to_owned(),
        video_url: link.as_ref().map(|l| l.0.clone()),
        expires_at: link.map(|l| l.1),
        failure_reason: s.failure_reason.clone(),
    }))
}
