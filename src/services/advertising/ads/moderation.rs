//! /admin/ads: moderators list and read every ad (deleted ones too: finance keeps them),
//! approve (or resume), pause, reject with a reason and delete (soft). A move the ad's
//! current state does not allow answers 409; each move keeps `listed` right.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::staff::invalid_transition;
use super::super::state::AdvertisingState;
use super::super::wire::{self, ok, one_of, usd, Data, List};
use super::dto::AdView;
use super::routes::parse_id;
use super::store;
use crate::core::auth::{Bearer, ModeratorRole};
use crate::core::json_body::Json;
use actix_web::{delete, get, put, web, HttpResponse};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::ad;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

pub const STATUSES: [&str; 5] = ["pending", "approved", "paused", "rejected", "deleted"];

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct AdminAdsQuery {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// `pending`, `approved`, `paused`, `rejected` or `deleted`.
    pub status: Option<String>,
    pub advertiser_id: Option<String>,
    /// A country's id or alpha-2 code.
    pub country_id: Option<String>,
}

/// An ad as staff see it: the poster's view plus its money and moderation.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminAdView {
    #[serde(flatten)]
    pub ad: AdView,
    pub advertiser_id: Option<String>,
    /// Why it was rejected.
    pub status_reason: Option<String>,
    /// Shown to posters now.
    pub listed: bool,
    pub funded_cents: i64,
    pub funded_usd: String,
    pub reserved_cents: i64,
    pub reserved_usd: String,
    pub spent_cents: i64,
    pub spent_usd: String,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

impl From<&ad::Model> for AdminAdView {
    fn from(a: &ad::Model) -> Self {
        Self {
            ad: AdView::from(a),
            advertiser_id: a.advertiser_id.map(|i| i.to_string()),
            status_reason: a.status_reason.clone(),
            listed: a.listed,
            funded_cents: a.funded_cents,
            funded_usd: usd(a.funded_cents),
            reserved_cents: a.reserved_cents,
            reserved_usd: usd(a.reserved_cents),
            spent_cents: a.spent_cents,
            spent_usd: usd(a.spent_cents),
            updated_at: a.updated_at,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectAd {
    /// Shown to the advertiser; required.
    pub reason: Option<String>,
}

/// A required reason of at most 500 characters.
pub fn reason(raw: Option<&str>) -> Result<String> {
    let r = raw.map(str::trim).unwrap_or_default();
    if r.is_empty() || r.chars().count() > 500 {
        return Err(
            AdvertisingError::invalid("reason", "is required (at most 500 characters)").into(),
        );
    }
    Ok(r.to_owned())
}

/// Any ad, deleted ones too.
async fn any_ad(st: &AdvertisingState, id: Uuid) -> Result<ad::Model> {
    ad::Entity::find_by_id(id)
        .one(&st.core.db)
        .await?
        .ok_or_else(|| AdvertisingError::NotFound(Record::Ad).into())
}

#[utoipa::path(tag = "admin", params(AdminAdsQuery),
    responses((status = 200, body = Data<List<AdminAdView>>), Errors), security(("bearer" = [])))]
#[get("/admin/ads")]
pub async fn admin_list_ads(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    q: web::Query<AdminAdsQuery>,
) -> Result<HttpResponse> {
    let window = wire::window(q.page, q.limit)?;
    let mut select = ad::Entity::find();
    if let Some(s) = one_of("status", q.status.as_deref(), &STATUSES)? {
        select = select.filter(ad::Column::Status.eq(s));
    }
    if let Some(a) = q.advertiser_id.as_deref().filter(|a| !a.trim().is_empty()) {
        let id = Uuid::parse_str(a.trim())
            .map_err(|_| AdvertisingError::invalid("advertiserId", "must be an advertiser's id"))?;
        select = select.filter(ad::Column::AdvertiserId.eq(id));
    }
    if let Some(c) = q.country_id.as_deref().filter(|c| !c.trim().is_empty()) {
        let country = super::super::posters::domain::country("countryId", c)?;
        select = select.filter(ad::Column::Country.eq(country.alpha2.to_string()));
    }
    let page = wire::newest_first(
        &st.core.db,
        select,
        ad::Column::CreatedAt,
        ad::Column::Id,
        window,
    )
    .await?;
    Ok(ok(List::from(page.map(|a| AdminAdView::from(&a)))))
}

#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[get("/admin/ads/{id}")]
pub async fn admin_one_ad(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    Ok(ok(AdminAdView::from(
        &any_ad(&st, parse_id(&id, Record::Ad)?).await?,
    )))
}

/// Moves the ad `from` → `to`: the ad after, 404 when unknown or deleted, 409 otherwise.
async fn moved(
    st: &AdvertisingState,
    raw: &str,
    from: &[&str],
    to: &str,
    reason: Option<String>,
) -> Result<HttpResponse> {
    let id = parse_id(raw, Record::Ad)?;
    let done = store::set_status(&st.core.db, id, from, to, reason, st.core.now()).await?;
    let a = any_ad(st, id).await?;
    if !done {
        if a.status == "deleted" {
            return Err(AdvertisingError::NotFound(Record::Ad).into());
        }
        if to == "approved" && a.video_status.as_deref() == Some(store::VIDEO_FAILED) {
            let why = a.video_error.unwrap_or_else(|| "no reason recorded".into());
            return Err(AdvertisingError::VideoFailed(why).into());
        }
        let unready =
            a.video_status.is_some() && a.video_status.as_deref() != Some(store::VIDEO_READY);
        if to == "approved" && unready && from.contains(&a.status.as_str()) {
            return Err(AdvertisingError::AdVideoNotReady.into());
        }
        return Err(invalid_transition(format!(
            "a {} ad cannot become {to}",
            a.status
        )));
    }
    Ok(ok(AdminAdView::from(&a)))
}

/// Approves a pending ad or resumes a paused one.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[put("/admin/ads/{id}/approve")]
pub async fn approve_ad(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let a = store::get(&st, parse_id(&id, Record::Ad)?).await?;
    if super::super::advertisers::suspension::ad_owner_suspended(&st, &a).await? {
        return Err(super::super::advertisers::suspension::owner_suspended());
    }
    // A dispute's pause ends with the dispute, not with a moderator.
    if a.status_reason.as_deref() == Some(super::super::payments::refunds::DISPUTE_PAUSE) {
        return Err(invalid_transition(
            "this ad is paused while its payment is disputed",
        ));
    }
    moved(&st, &id, &["pending", "paused"], "approved", None).await
}

/// Pauses an approved ad: posters no longer see it; screenshots already sent are decided.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[put("/admin/ads/{id}/pause")]
pub async fn pause_ad(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    moved(&st, &id, &["approved"], "paused", None).await
}

#[utoipa::path(tag = "admin", params(("id" = String, Path)), request_body = RejectAd,
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[put("/admin/ads/{id}/reject")]
pub async fn reject_ad(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
    body: Json<RejectAd>,
) -> Result<HttpResponse> {
    let why = reason(body.reason.as_deref())?;
    moved(
        &st,
        &id,
        &["pending", "approved", "paused"],
        "rejected",
        Some(why),
    )
    .await
}

/// Deletes the ad softly: gone for posters and advertisers' lists, kept for finance;
/// screenshots already sent are still decided and paid from their reservations.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[delete("/admin/ads/{id}")]
pub async fn delete_ad(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let from = ["pending", "approved", "paused", "rejected"];
    moved(&st, &id, &from, "deleted", None).await
}
