//! /admin/screenshots: the review queue (pending and needs_review), one screenshot, approve,
//! reject with a reason, and bulk approval. Every decision goes through `store::decide`, the
//! verifier's own path: one conditional update decides, so however many deciders race
//! (the verifier, single and bulk approvals) a screenshot is paid once; a decided one is 409.

use super::super::ads::moderation::reason;
use super::super::error::{AdvertisingError, Record, Result};
use super::super::media::staff::StaffLinks;
use super::super::openapi::Errors;
use super::super::sessions;
use super::super::staff::invalid_transition;
use super::super::state::AdvertisingState;
use super::super::wire::parse_id;
use super::super::wire::{self, ok, Data, List};
use super::dto::ScreenshotView;
use super::store::{self, Outcome, Verdict};
use crate::core::auth::{Bearer, ModeratorRole};
use crate::core::error::ApiError;
use crate::core::json_body::Json;
use crate::providers::screenshot::Evidence;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::screenshot::{self, ScreenshotStatus};
use switchboard_entities::advertising::{ad, subscription};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Most screenshots one bulk approval takes.
pub const MAX_BULK: usize = 100;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// `pending` or `needs_review` (both by default).
    pub status: Option<String>,
    pub ad_id: Option<String>,
    /// The poster's id.
    pub user_id: Option<String>,
}

/// A screenshot as staff see it: the picture, what it should show, and what the verifier saw.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminScreenshotView {
    #[serde(flatten)]
    pub screenshot: ScreenshotView,
    pub user_id: String,
    /// `verifier` or the deciding administrator's id.
    pub decided_by: Option<String>,
    /// What the verifier saw: the text read, whether the code matched, the video match
    /// (score, key frame, where) and duplicate neighbours (ids and distances). Null until
    /// the verifier has looked.
    pub evidence: Option<Evidence>,
    /// The screenshot itself (a staff link, see `linksExpireAt`).
    pub image_url: Option<String>,
    /// The code the subscription's video carries, which the picture must show.
    pub proof_code: Option<String>,
    pub ad_title: Option<String>,
    /// The ad video's thumbnail (the subscription's video is that video with its code).
    pub thumbnail_url: Option<String>,
    /// The subscription's personalised video, when made.
    pub video_url: Option<String>,
    /// The earlier screenshots the verifier found alike, each with its picture.
    pub duplicates: Vec<DuplicateView>,
    /// When the links above stop working (`staff_link_ttl_secs` after this answer).
    pub links_expire_at: chrono::DateTime<chrono::Utc>,
}

/// An earlier screenshot like this one.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateView {
    pub id: String,
    /// Bits apart in the whole-picture hash.
    pub distance: u32,
    pub similarity: Option<f32>,
    pub status: Option<String>,
    pub user_id: Option<String>,
    pub image_url: Option<String>,
}

/// `rows` as staff see them, with what each refers to read in three statements for the page.
pub async fn admin_views(
    st: &AdvertisingState,
    links: &StaffLinks,
    rows: Vec<screenshot::Model>,
) -> Result<Vec<AdminScreenshotView>> {
    use crate::core::db::rows_by;
    let evidence: Vec<Option<Evidence>> = rows
        .iter()
        .map(|s| {
            s.evidence
                .as_deref()
                .and_then(|e| serde_json::from_str(e).ok())
        })
        .collect();
    let sub_ids: Vec<Uuid> = rows.iter().map(|s| s.subscription_id).collect();
    let ad_ids: Vec<Uuid> = rows.iter().map(|s| s.ad_id).collect();
    let near_ids: Vec<Uuid> = evidence
        .iter()
        .flatten()
        .flat_map(|e| e.duplicates.iter().map(|n| n.id))
        .collect();
    let db = &st.core.db;
    let subs = rows_by::<subscription::Entity, _>(db, subscription::Column::Id, sub_ids, |s| s.id);
    let ads = rows_by::<ad::Entity, _>(db, ad::Column::Id, ad_ids, |a| a.id);
    let near = rows_by::<screenshot::Entity, _>(db, screenshot::Column::Id, near_ids, |s| s.id);
    let (subs, ads, near) = (subs.await?, ads.await?, near.await?);
    Ok(rows
        .iter()
        .zip(evidence)
        .map(|(s, evidence)| {
            let sub = subs.get(&s.subscription_id);
            let ad = ads.get(&s.ad_id);
            let duplicates = evidence
                .iter()
                .flat_map(|e| e.duplicates.iter())
                .map(|n| {
                    let other = near.get(&n.id);
                    DuplicateView {
                        id: n.id.to_string(),
                        distance: n.distance,
                        similarity: n.similarity,
                        status: other.map(|o| o.status.as_str().to_owned()),
                        user_id: other.map(|o| o.poster_id.to_string()),
                        image_url: links.url(other.map(|o| o.image_key.as_str())),
                    }
                })
                .collect();
            AdminScreenshotView {
                screenshot: ScreenshotView::from(s),
                user_id: s.poster_id.to_string(),
                decided_by: s.decided_by.clone(),
                evidence,
                image_url: links.url(Some(&s.image_key)),
                proof_code: sub.map(|x| x.proof_code.clone()),
                ad_title: ad.map(|a| a.title.clone()),
                thumbnail_url: links.url(ad.and_then(|a| a.thumbnail_key.as_deref())),
                video_url: links.url(sub.and_then(|x| x.video_key.as_deref())),
                duplicates,
                links_expire_at: links.expires(),
            }
        })
        .collect())
}

/// One screenshot as staff see it.
async fn admin_view(
    st: &AdvertisingState,
    req: &HttpRequest,
    s: screenshot::Model,
) -> Result<AdminScreenshotView> {
    let links = StaffLinks::new(req, st);
    let mut views = admin_views(st, &links, vec![s]).await?;
    views
        .pop()
        .ok_or_else(|| AdvertisingError::NotFound(Record::Screenshot).into())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectScreenshot {
    /// Told to the poster; required.
    pub reason: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BulkApprove {
    /// 1 to 100 screenshot ids.
    pub screenshot_ids: Option<Vec<String>>,
}

#[derive(Serialize, ToSchema)]
pub struct BulkFailure {
    pub id: String,
    pub error: String,
}

#[derive(Serialize, ToSchema)]
pub struct BulkOutcome {
    pub approved: Vec<String>,
    pub failed: Vec<BulkFailure>,
}

fn filter_id(field: &'static str, raw: Option<&str>) -> Result<Option<Uuid>> {
    raw.map(str::trim)
        .filter(|r| !r.is_empty())
        .map(|r| {
            Uuid::parse_str(r).map_err(|_| AdvertisingError::invalid(field, "must be an id").into())
        })
        .transpose()
}

/// Screenshots waiting for a person, oldest first (the queue's order).
#[utoipa::path(tag = "admin", params(QueueQuery),
    responses((status = 200, body = Data<List<AdminScreenshotView>>), Errors), security(("bearer" = [])))]
#[get("/admin/screenshots")]
pub async fn queue(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    q: web::Query<QueueQuery>,
) -> Result<HttpResponse> {
    use sea_orm::QueryOrder;
    let window = wire::window(q.page, q.limit)?;
    // A person decides only what is undecided: the queue takes no other status.
    let asked = wire::one_of(
        "status",
        q.status.as_deref(),
        &ScreenshotStatus::UNDECIDED.map(ScreenshotStatus::as_str),
    )?;
    let statuses: Vec<ScreenshotStatus> = match asked.and_then(ScreenshotStatus::parse) {
        Some(s) => vec![s],
        None => ScreenshotStatus::UNDECIDED.to_vec(),
    };
    let mut select = screenshot::Entity::find().filter(screenshot::Column::Status.is_in(statuses));
    if let Some(ad) = filter_id("adId", q.ad_id.as_deref())? {
        select = select.filter(screenshot::Column::AdId.eq(ad));
    }
    if let Some(poster) = filter_id("userId", q.user_id.as_deref())? {
        select = select.filter(screenshot::Column::PosterId.eq(poster));
    }
    let oldest_first = select
        .order_by_asc(screenshot::Column::CreatedAt)
        .order_by_asc(screenshot::Column::Id);
    let page = crate::core::page::fetch(oldest_first, &st.core.db, window).await?;
    let links = StaffLinks::new(&req, &st);
    let page = page
        .try_map_all(|rows| admin_views(&st, &links, rows))
        .await?;
    Ok(ok(List::from(page)))
}

#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminScreenshotView>), Errors), security(("bearer" = [])))]
#[get("/admin/screenshots/{id}")]
pub async fn admin_one_screenshot(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let s = screenshot::Entity::find_by_id(parse_id(&id, Record::Screenshot)?)
        .one(&st.core.db)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::Screenshot))?;
    Ok(ok(admin_view(&st, &req, s).await?))
}

/// Decides one undecided screenshot as `by`; a decided one is 409 saying who decided it
/// (`details.decidedBy`, `details.status`): two moderators on one queue learn which of them
/// was first.
async fn decide(
    st: &AdvertisingState,
    id: Uuid,
    verdict: Verdict,
    why: Option<String>,
    by: &str,
) -> Result<screenshot::Model> {
    if let Some(s) = store::decide(
        st,
        id,
        Outcome::staff(verdict, why),
        by,
        &ScreenshotStatus::UNDECIDED,
    )
    .await?
    {
        return Ok(s);
    }
    let now = screenshot::Entity::find_by_id(id)
        .one(&st.core.db)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::Screenshot))?;
    // The deciding administrator by email (the verifier decides as `verifier`).
    let admin = match now.decided_by.as_deref().map(Uuid::parse_str) {
        Some(Ok(admin)) => switchboard_entities::advertising::admin::Entity::find_by_id(admin)
            .one(&st.core.db)
            .await?
            .map(|a| a.email),
        _ => None,
    };
    let who = admin
        .as_deref()
        .or(now.decided_by.as_deref())
        .unwrap_or("someone");
    Err(invalid_transition(format!(
        "this screenshot is already {} (decided by {who})",
        now.status.as_str().replace('_', " ")
    ))
    .detail("decidedBy", &now.decided_by)
    .detail("decidedByEmail", &admin)
    .detail("status", now.status.as_str())
    .detail("decidedAt", now.decided_at))
}

fn decider(bearer: &Bearer<ModeratorRole>) -> Result<String> {
    Ok(sessions::admin(bearer)?.id.to_string())
}

/// Approves the screenshot: its reserved payout is spent and earned by the poster.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminScreenshotView>), Errors), security(("bearer" = [])))]
#[post("/admin/screenshots/{id}/approve")]
pub async fn approve_screenshot(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let id = parse_id(&id, Record::Screenshot)?;
    let s = decide(&st, id, Verdict::Approved, None, &decider(&staff)?).await?;
    Ok(ok(admin_view(&st, &req, s).await?))
}

/// Rejects the screenshot with a reason: its reserved payout returns to the ad.
#[utoipa::path(tag = "admin", params(("id" = String, Path)), request_body = RejectScreenshot,
    responses((status = 200, body = Data<AdminScreenshotView>), Errors), security(("bearer" = [])))]
#[post("/admin/screenshots/{id}/reject")]
pub async fn reject_screenshot(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
    body: Json<RejectScreenshot>,
) -> Result<HttpResponse> {
    let id = parse_id(&id, Record::Screenshot)?;
    let why = reason(body.reason.as_deref())?;
    let s = decide(&st, id, Verdict::Rejected, Some(why), &decider(&staff)?).await?;
    Ok(ok(admin_view(&st, &req, s).await?))
}

/// Approves up to 100 screenshots, each on its own: those approved and those that were
/// not, with why.
#[utoipa::path(tag = "admin", request_body = BulkApprove,
    responses((status = 200, body = Data<BulkOutcome>), Errors), security(("bearer" = [])))]
#[post("/admin/screenshots/bulk-approve")]
pub async fn bulk_approve(
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    body: Json<BulkApprove>,
) -> Result<HttpResponse> {
    let ids = body.screenshot_ids.as_deref().unwrap_or_default();
    if ids.is_empty() || ids.len() > MAX_BULK {
        return Err(AdvertisingError::invalid("screenshotIds", "must hold 1 to 100 ids").into());
    }
    let by = decider(&staff)?;
    let mut out = BulkOutcome {
        approved: Vec::new(),
        failed: Vec::new(),
    };
    for raw in ids {
        let outcome = match parse_id(raw, Record::Screenshot) {
            Ok(id) => decide(&st, id, Verdict::Approved, None, &by).await,
            Err(e) => Err(e),
        };
        match outcome {
            Ok(s) => out.approved.push(s.id.to_string()),
            // An unexpected failure stays in the log, as the envelope keeps it.
            Err(e) => out.failed.push(BulkFailure {
                id: raw.clone(),
                error: failure_text(&e),
            }),
        }
    }
    Ok(ok(out))
}

fn failure_text(e: &ApiError) -> String {
    if e.kind() == crate::core::error::Kind::Internal {
        tracing::error!(error = %e, "bulk approval of a screenshot failed");
        return "Internal server error".into();
    }
    e.message().to_owned()
}
