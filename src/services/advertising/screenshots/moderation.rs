//! /admin/screenshots: the review queue (pending and needs_review), one screenshot, approve,
//! reject with a reason, and bulk approval. Every decision goes through `store::decide`, the
//! verifier's own path: one conditional update decides, so however many deciders race
//! (the verifier, single and bulk approvals) a screenshot is paid once; a decided one is 409.

use super::super::ads::moderation::reason;
use super::super::ads::routes::parse_id;
use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::sessions;
use super::super::staff::invalid_transition;
use super::super::state::AdvertisingState;
use super::super::wire::{self, ok, one_of, Data, List};
use super::dto::ScreenshotView;
use super::store::{self, Outcome, Verdict};
use crate::core::auth::{Bearer, ModeratorRole};
use crate::core::error::ApiError;
use crate::core::json_body::Json;
use crate::providers::screenshot::Evidence;
use actix_web::{get, post, web, HttpResponse};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::screenshot;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// What a person decides.
pub const UNDECIDED: [&str; 2] = ["pending", "needs_review"];
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

/// A screenshot as staff see it.
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
}

impl From<&screenshot::Model> for AdminScreenshotView {
    fn from(s: &screenshot::Model) -> Self {
        Self {
            screenshot: ScreenshotView::from(s),
            user_id: s.poster_id.to_string(),
            decided_by: s.decided_by.clone(),
            evidence: s
                .evidence
                .as_deref()
                .and_then(|e| serde_json::from_str(e).ok()),
        }
    }
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
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    q: web::Query<QueueQuery>,
) -> Result<HttpResponse> {
    use sea_orm::QueryOrder;
    let window = wire::window(q.page, q.limit)?;
    let statuses: Vec<&str> = match one_of("status", q.status.as_deref(), &UNDECIDED)? {
        Some(s) => vec![s],
        None => UNDECIDED.to_vec(),
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
    Ok(ok(List::from(page.map(|s| AdminScreenshotView::from(&s)))))
}

#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminScreenshotView>), Errors), security(("bearer" = [])))]
#[get("/admin/screenshots/{id}")]
pub async fn admin_one_screenshot(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let s = screenshot::Entity::find_by_id(parse_id(&id, Record::Screenshot)?)
        .one(&st.core.db)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::Screenshot))?;
    Ok(ok(AdminScreenshotView::from(&s)))
}

/// Decides one undecided screenshot as `by`; a decided one is 409.
async fn decide(
    st: &AdvertisingState,
    id: Uuid,
    verdict: Verdict,
    why: Option<String>,
    by: &str,
) -> Result<screenshot::Model> {
    store::decide(st, id, Outcome::staff(verdict, why), by, &UNDECIDED)
        .await?
        .ok_or_else(|| invalid_transition("this screenshot is already decided"))
}

fn decider(bearer: &Bearer<ModeratorRole>) -> Result<String> {
    Ok(sessions::admin(bearer)?.id.to_string())
}

/// Approves the screenshot: its reserved payout is spent and earned by the poster.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminScreenshotView>), Errors), security(("bearer" = [])))]
#[post("/admin/screenshots/{id}/approve")]
pub async fn approve_screenshot(
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let id = parse_id(&id, Record::Screenshot)?;
    let s = decide(&st, id, Verdict::Approved, None, &decider(&staff)?).await?;
    Ok(ok(AdminScreenshotView::from(&s)))
}

/// Rejects the screenshot with a reason: its reserved payout returns to the ad.
#[utoipa::path(tag = "admin", params(("id" = String, Path)), request_body = RejectScreenshot,
    responses((status = 200, body = Data<AdminScreenshotView>), Errors), security(("bearer" = [])))]
#[post("/admin/screenshots/{id}/reject")]
pub async fn reject_screenshot(
    st: web::Data<AdvertisingState>,
    staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
    body: Json<RejectScreenshot>,
) -> Result<HttpResponse> {
    let id = parse_id(&id, Record::Screenshot)?;
    let why = reason(body.reason.as_deref())?;
    let s = decide(&st, id, Verdict::Rejected, Some(why), &decider(&staff)?).await?;
    Ok(ok(AdminScreenshotView::from(&s)))
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
