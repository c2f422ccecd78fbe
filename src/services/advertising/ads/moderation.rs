//! /admin/ads: moderators list and read every ad (deleted ones too: finance keeps them),
//! approve (or resume), pause, reject with a reason and delete (soft). A move the ad's
//! current state does not allow answers 409; each move keeps `listed` right.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::media::staff::StaffLinks;
use super::super::openapi::Errors;
use super::super::staff::invalid_transition;
use super::super::state::AdvertisingState;
use super::super::wire::parse_id;
use super::super::wire::{self, ok, usd, word, Data, List};
use super::dto::AdView;
use super::store::{self, AdStatus, VideoStatus};
use crate::core::auth::{Bearer, ModeratorRole};
use crate::core::json_body::Json;
use actix_web::{delete, get, put, web, HttpRequest, HttpResponse};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::{ad, advertiser};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

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

/// An ad as staff see it: the poster's view plus its money, moderation, video and advertiser.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminAdView {
    #[serde(flatten)]
    pub ad: AdView,
    pub advertiser_id: Option<String>,
    /// The advertiser who owns it (null for ads staff created).
    pub advertiser: Option<AdvertiserBrief>,
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
    /// `processing`, `ready` or `failed` for an ad whose video the service transcodes;
    /// null for one played from its source URL as given.
    pub video_status: Option<String>,
    /// Why the transcode failed.
    pub video_error: Option<String>,
    /// The video to play: the transcoded one, else the stored source (staff links, see
    /// `linksExpireAt`), else the source's own https URL.
    pub video_url: Option<String>,
    pub thumbnail_url: Option<String>,
    /// The video as the advertiser gave it (an https URL or a stored key).
    pub video_source: String,
    /// When the links above stop working.
    pub links_expire_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdvertiserBrief {
    pub id: String,
    pub company_name: String,
    pub email: String,
    pub suspended: bool,
}

/// `ads` as staff see them, their advertisers read in one statement.
async fn views(
    st: &AdvertisingState,
    links: &StaffLinks,
    ads: Vec<ad::Model>,
) -> Result<Vec<AdminAdView>> {
    let ids: Vec<Uuid> = ads.iter().filter_map(|a| a.advertiser_id).collect();
    let owners = crate::core::db::rows_by::<advertiser::Entity, _>(
        &st.core.db,
        advertiser::Column::Id,
        ids,
        |a| a.id,
    )
    .await?;
    Ok(ads
        .iter()
        .map(|a| {
            let owner = a.advertiser_id.and_then(|id| owners.get(&id));
            AdminAdView {
                ad: AdView::from(a),
                advertiser_id: a.advertiser_id.map(|i| i.to_string()),
                advertiser: owner.map(|o| AdvertiserBrief {
                    id: o.id.to_string(),
                    company_name: o.company_name.clone(),
                    email: o.email.clone(),
                    suspended: o.suspended_at.is_some(),
                }),
                status_reason: a.status_reason.clone(),
                listed: a.listed,
                funded_cents: a.funded_cents,
                funded_usd: usd(a.funded_cents),
                reserved_cents: a.reserved_cents,
                reserved_usd: usd(a.reserved_cents),
                spent_cents: a.spent_cents,
                spent_usd: usd(a.spent_cents),
                video_status: a.video_status.map(|v| v.as_str().to_owned()),
                video_error: a.video_error.clone(),
                video_url: video_url(links, a),
                thumbnail_url: links.url(a.thumbnail_key.as_deref()),
                video_source: a.video_source.clone(),
                links_expire_at: links.expires(),
                updated_at: a.updated_at,
            }
        })
        .collect())
}

/// What a moderator plays: the transcoded video, else the source stored as given (an ad an
/// operator made from a local file), else the source URL itself (not ours to sign).
fn video_url(links: &StaffLinks, a: &ad::Model) -> Option<String> {
    if let Some(key) = &a.video_key {
        return links.url(Some(key));
    }
    if a.video_source.starts_with("https://") {
        return Some(a.video_source.clone());
    }
    links.url(Some(&a.video_source))
}

/// One ad as staff see it.
async fn view(st: &AdvertisingState, req: &HttpRequest, a: ad::Model) -> Result<AdminAdView> {
    let mut one = views(st, &StaffLinks::new(req, st), vec![a]).await?;
    one.pop()
        .ok_or_else(|| AdvertisingError::NotFound(Record::Ad).into())
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
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    q: web::Query<AdminAdsQuery>,
) -> Result<HttpResponse> {
    let window = wire::window(q.page, q.limit)?;
    let mut select = ad::Entity::find();
    if let Some(s) = word::<AdStatus>("status", q.status.as_deref())? {
        select = select.filter(ad::Column::Status.eq(s));
    }
    if let Some(a) = q.advertiser_id.as_deref().filter(|a| !a.trim().is_empty()) {
        let id = Uuid::parse_str(a.trim())
            .map_err(|_| AdvertisingError::invalid("advertiserId", "must be an advertiser's id"))?;
        select = select.filter(ad::Column::AdvertiserId.eq(id));
    }
    if let Some(c) = q.country_id.as_deref().filter(|c| !c.trim().is_empty()) {
        let country = super::super::fields::country("countryId", c)?;
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
    let links = StaffLinks::new(&req, &st);
    let page = page.try_map_all(|ads| views(&st, &links, ads)).await?;
    Ok(ok(List::from(page)))
}

#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[get("/admin/ads/{id}")]
pub async fn admin_one_ad(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let a = any_ad(&st, parse_id(&id, Record::Ad)?).await?;
    Ok(ok(view(&st, &req, a).await?))
}

/// Moves the ad to `to` from any state that may move there: the ad after, 404 when unknown
/// or deleted, 409 otherwise.
async fn moved(
    req: &HttpRequest,
    st: &AdvertisingState,
    raw: &str,
    to: AdStatus,
    reason: Option<String>,
) -> Result<HttpResponse> {
    let id = parse_id(raw, Record::Ad)?;
    let from = to.comes_from();
    let done = store::set_status(&st.core.db, id, from, to, reason, st.core.now()).await?;
    let a = any_ad(st, id).await?;
    if !done {
        if a.status == AdStatus::Deleted {
            return Err(AdvertisingError::NotFound(Record::Ad).into());
        }
        if to == AdStatus::Approved && a.video_status == Some(VideoStatus::Failed) {
            let why = a.video_error.unwrap_or_else(|| "no reason recorded".into());
            return Err(AdvertisingError::VideoFailed(why).into());
        }
        let unready = a.video_status.is_some() && a.video_status != Some(VideoStatus::Ready);
        if to == AdStatus::Approved && unready && a.status.can_move_to(to) {
            return Err(AdvertisingError::AdVideoNotReady.into());
        }
        return Err(invalid_transition(format!(
            "a {} ad cannot become {to}",
            a.status
        )));
    }
    Ok(ok(view(st, req, a).await?))
}

/// Approves a pending ad or resumes a paused one.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[put("/admin/ads/{id}/approve")]
pub async fn approve_ad(
    req: HttpRequest,
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
    moved(&req, &st, &id, AdStatus::Approved, None).await
}

/// Pauses an approved ad: posters no longer see it; screenshots already sent are decided.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[put("/admin/ads/{id}/pause")]
pub async fn pause_ad(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    moved(&req, &st, &id, AdStatus::Paused, None).await
}

#[utoipa::path(tag = "admin", params(("id" = String, Path)), request_body = RejectAd,
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[put("/admin/ads/{id}/reject")]
pub async fn reject_ad(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
    body: Json<RejectAd>,
) -> Result<HttpResponse> {
    let why = reason(body.reason.as_deref())?;
    moved(&req, &st, &id, AdStatus::Rejected, Some(why)).await
}

/// Deletes the ad softly: gone for posters and advertisers' lists, kept for finance;
/// screenshots already sent are still decided and paid from their reservations.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminAdView>), Errors), security(("bearer" = [])))]
#[delete("/admin/ads/{id}")]
pub async fn delete_ad(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    moved(&req, &st, &id, AdStatus::Deleted, None).await
}
