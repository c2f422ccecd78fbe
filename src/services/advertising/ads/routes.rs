//! /ads for posters: the list of ads they can earn from, trending ads, one ad and its stats.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::sessions::{self, PosterBearer};
use super::super::state::AdvertisingState;
use super::super::subscriptions::store as subscriptions;
use super::super::wire::{ok, parse_id, Data, List};
use super::dto::*;
use super::{store, trending as trend};
use actix_web::{get, web, HttpResponse};
use switchboard_entities::advertising::ad::{self, AdStatus};
use uuid::Uuid;

/// Most trending ads answered.
const TRENDING: u64 = 20;

/// Approved ads whose free budget covers a payout, in the poster's country unless
/// `countryCode` names another; newest first.
#[utoipa::path(tag = "ads", params(AdsQuery),
    responses((status = 200, body = Data<List<AdView>>), Errors), security(("bearer" = [])))]
#[get("/ads")]
pub async fn list_ads(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    q: web::Query<AdsQuery>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let window = super::super::wire::window(q.page, q.limit)?;
    let country = match q.country_code.as_deref() {
        Some(code) => super::super::fields::country("countryCode", code)?
            .alpha2
            .to_string(),
        None => poster.country.clone(),
    };
    let category = q
        .category_id
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let page = store::list(
        &st,
        store::Listing {
            country: &country,
            category,
        },
        window,
    )
    .await?;
    Ok(ok(List::from(page.map(|a| AdView::from(&a)))))
}

/// The ads posters in the caller's country took up most lately: each subscription counts
/// 1 and each approved screenshot 3, halving every two days, over the last 7 days; the 20
/// highest, only ads still open to new work.
#[utoipa::path(tag = "ads", responses((status = 200, body = Data<Vec<TrendingAd>>), Errors),
    security(("bearer" = [])))]
#[get("/ads/trending")]
pub async fn trending_ads(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let top = trend::top(&st, &poster.country, st.core.now(), TRENDING).await?;
    let out: Vec<TrendingAd> = top
        .iter()
        .map(|(a, score)| TrendingAd {
            ad: AdView::from(a),
            score: (score * 1000.0).round() / 1000.0,
        })
        .collect();
    Ok(ok(out))
}

/// An ad the poster can see: approved or paused, or one they subscribed to.
async fn visible(st: &AdvertisingState, poster_id: Uuid, id: &str) -> Result<ad::Model> {
    let a = store::get(st, parse_id(id, Record::Ad)?).await?;
    if matches!(a.status, AdStatus::Approved | AdStatus::Paused) {
        return Ok(a);
    }
    if subscriptions::subscribed(&st.core.db, a.id, poster_id).await? {
        Ok(a)
    } else {
        Err(AdvertisingError::NotFound(Record::Ad).into())
    }
}

#[utoipa::path(tag = "ads", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdView>), Errors), security(("bearer" = [])))]
#[get("/ads/{id}")]
pub async fn one_ad(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let a = visible(&st, poster.id, &id).await?;
    super::super::campaigns::store::viewed(&st.core.db, a.id, poster.id, st.core.now()).await?;
    Ok(ok(AdView::from(&a)))
}

/// Subscriptions, screenshots by status and the budget left.
#[utoipa::path(tag = "ads", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdStats>), Errors), security(("bearer" = [])))]
#[get("/ads/{id}/stats")]
pub async fn ad_stats(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let a = visible(&st, poster.id, &id).await?;
    Ok(ok(super::stats::of(&st, &a).await?))
}
