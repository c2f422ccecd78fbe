//! /advertisers/campaigns and the advertiser's /ads: create, edit, list, statistics.

use super::super::error::Result;
use super::super::openapi::Errors;
use super::super::sessions::{self, AdvertiserBearer};
use super::super::state::AdvertisingState;
use super::super::wire::{ok, window, Data, List};
use super::dto::{CampaignStats, CampaignView};
use super::{input, store};
use actix_web::{get, post, put, web, HttpRequest, HttpResponse};

/// The body of a campaign, for the OpenAPI document: JSON with `video` an https URL, or a
/// multipart form with `video` a file (at most 200 MB) and `demographics` a JSON string.
#[derive(utoipa::ToSchema)]
#[allow(dead_code, reason = "documentation only")]
#[schema(as = CampaignBody)]
pub struct CampaignBody {
    /// 1 to 120 characters.
    title: String,
    /// An https URL (JSON) or a file part (multipart).
    video: String,
    /// The budget's target in dollars; payments fund it.
    #[schema(value_type = f64)]
    budget_usd: String,
    /// ISO 3166-1 alpha-2.
    country_code: String,
    demographics: input::Demographics,
    /// What one approved screenshot earns; `[services.advertising] default_payout_usd` when absent.
    #[schema(value_type = Option<f64>)]
    payout_usd: Option<String>,
    category_id: Option<String>,
    /// At most 2000 characters.
    description: Option<String>,
}

async fn create(
    st: &AdvertisingState,
    bearer: &AdvertiserBearer,
    req: &HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse> {
    let advertiser = sessions::advertiser(bearer)?;
    super::super::advertisers::suspension::refuse_suspended(&advertiser)?;
    let fields = input::read(st, req, body).await?;
    let a = store::create(st, advertiser.id, fields).await?;
    Ok(ok(CampaignView::from(&a)))
}

/// Creates a campaign: an ad in `pending`, nothing funded, its video processing.
#[utoipa::path(tag = "advertisers", request_body(content(
        (CampaignBody = "application/json"), (CampaignBody = "multipart/form-data"))),
    responses((status = 200, body = Data<CampaignView>), Errors), security(("bearer" = [])))]
#[post("/advertisers/campaigns")]
pub async fn create_campaign(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse> {
    create(&st, &bearer, &req, body).await
}

/// Creates an ad (the same as `POST /advertisers/campaigns`).
#[utoipa::path(tag = "ads", request_body(content(
        (CampaignBody = "application/json"), (CampaignBody = "multipart/form-data"))),
    responses((status = 200, body = Data<CampaignView>), Errors), security(("bearer" = [])))]
#[post("/ads")]
pub async fn create_ad(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse> {
    create(&st, &bearer, &req, body).await
}

/// Changes the advertiser's ad (any of the creation fields; a new video is processed again)
/// and sends it back to `pending` for review. Another advertiser's ad is 404; a rejected or
/// paused one is 409 `ad_not_editable`; one whose status changed while the body was sent
/// is 409 `ad_changed` (404 when it was deleted), and nothing is written.
#[utoipa::path(tag = "ads", params(("id" = String, Path)), request_body(content(
        (CampaignBody = "application/json"), (CampaignBody = "multipart/form-data"))),
    responses((status = 200, body = Data<CampaignView>), Errors), security(("bearer" = [])))]
#[put("/ads/{id}")]
pub async fn update_ad(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    id: web::Path<String>,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse> {
    let advertiser = sessions::advertiser(&bearer)?;
    super::super::advertisers::suspension::refuse_suspended(&advertiser)?;
    let current = store::owned(&st, advertiser.id, &id).await?;
    store::editable(&current)?;
    let fields = input::read(&st, &req, body).await?;
    let a = store::update(&st, current, fields).await?;
    Ok(ok(CampaignView::from(&a)))
}

#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
}

/// The advertiser's campaigns, newest first, with status, reason, video and money.
#[utoipa::path(tag = "advertisers", params(PageQuery),
    responses((status = 200, body = Data<List<CampaignView>>), Errors), security(("bearer" = [])))]
#[get("/advertisers/campaigns")]
pub async fn list_campaigns(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    q: web::Query<PageQuery>,
) -> Result<HttpResponse> {
    let advertiser = sessions::advertiser(&bearer)?;
    let page = store::list(&st, advertiser.id, window(q.page, q.limit)?).await?;
    Ok(ok(List::from(page.map(|a| CampaignView::from(&a)))))
}

/// Views (once per poster per day), subscriptions, screenshots by status, spent, reserved
/// and free budget.
#[utoipa::path(tag = "advertisers", params(("id" = String, Path)),
    responses((status = 200, body = Data<CampaignStats>), Errors), security(("bearer" = [])))]
#[get("/advertisers/campaigns/{id}/stats")]
pub async fn campaign_stats(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let advertiser = sessions::advertiser(&bearer)?;
    let a = store::owned(&st, advertiser.id, &id).await?;
    Ok(ok(CampaignStats {
        views: store::views(&st.core.db, a.id).await?,
        stats: super::super::ads::stats::of(&st, &a).await?,
    }))
}
