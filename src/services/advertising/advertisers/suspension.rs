//! Suspending an advertiser (finance or an administrator): its approved ads are paused
//! (they leave the listing), its sessions end, and while suspended it may sign in to read
//! its balance and invoices but not pay, create or edit ads (403 `advertiser_suspended`).
//! What posters earned from it or hold reserved stays theirs. Unsuspending brings back
//! the ads the suspension paused, and only those.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data};
use crate::core::auth::{Bearer, FinanceRole};
use crate::core::error::{ApiError, Kind};
use crate::core::json_body::Json;
use crate::core::session::{Change, EndReason};
use actix_web::{post, web, HttpResponse};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::ad::AdStatus;
use switchboard_entities::advertising::{ad, advertiser};
use utoipa::ToSchema;
use uuid::Uuid;

/// Why the suspension paused an ad: what lets unsuspending bring it back.
pub const SUSPEND_PAUSE: &str = "paused: the advertiser is suspended";

/// Refuses what a suspended advertiser may not do (pay, create or edit ads).
pub fn refuse_suspended(a: &advertiser::Model) -> Result<()> {
    if a.suspended_at.is_none() {
        return Ok(());
    }
    Err(ApiError::new(
        Kind::Forbidden,
        "this advertiser account is suspended; contact support",
    )
    .code("advertiser_suspended"))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Suspend {
    /// Why (1 to 500 characters), kept for staff.
    pub reason: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuspensionView {
    pub id: Uuid,
    pub email: String,
    pub company_name: String,
    pub suspended: bool,
    pub suspended_at: Option<DateTime<Utc>>,
    pub suspended_reason: Option<String>,
    /// Ads this move paused (suspend) or brought back (unsuspend).
    pub ads_changed: u64,
}

fn view(a: advertiser::Model, ads_changed: u64) -> SuspensionView {
    SuspensionView {
        id: a.id,
        email: a.email,
        company_name: a.company_name,
        suspended: a.suspended_at.is_some(),
        suspended_at: a.suspended_at,
        suspended_reason: a.suspended_reason,
        ads_changed,
    }
}

async fn find(st: &AdvertisingState, raw: &str) -> Result<advertiser::Model> {
    let id = super::super::wire::parse_id(raw, Record::Advertiser)?;
    advertiser::Entity::find_by_id(id)
        .one(&st.core.db)
        .await?
        .ok_or_else(|| AdvertisingError::NotFound(Record::Advertiser).into())
}

/// Suspends the advertiser: its approved ads pause, its sessions end.
#[utoipa::path(tag = "admin", params(("id" = String, Path)), request_body = Suspend,
    responses((status = 200, body = Data<SuspensionView>), Errors), security(("bearer" = [])))]
#[post("/admin/advertisers/{id}/suspend")]
pub async fn suspend(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<FinanceRole>,
    id: web::Path<String>,
    body: Json<Suspend>,
) -> Result<HttpResponse> {
    let reason = body.reason.as_deref().map(str::trim).unwrap_or_default();
    if reason.is_empty() || reason.chars().count() > 500 {
        return Err(AdvertisingError::invalid("reason", "must be 1 to 500 characters").into());
    }
    let a = find(&st, &id).await?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let done = advertiser::Entity::update_many()
        .col_expr(advertiser::Column::SuspendedAt, Expr::value(now))
        .col_expr(advertiser::Column::SuspendedReason, Expr::value(reason))
        .col_expr(advertiser::Column::UpdatedAt, Expr::value(now))
        .filter(advertiser::Column::Id.eq(a.id))
        .filter(advertiser::Column::SuspendedAt.is_null())
        .exec(&*txn)
        .await?;
    if done.rows_affected != 1 {
        return Err(super::super::staff::invalid_transition(
            "the advertiser is already suspended",
        ));
    }
    let paused = ad::Entity::update_many()
        .col_expr(ad::Column::Status, Expr::value(AdStatus::Paused))
        .col_expr(ad::Column::StatusReason, Expr::value(SUSPEND_PAUSE))
        .col_expr(ad::Column::Listed, Expr::value(false))
        .col_expr(ad::Column::UpdatedAt, Expr::value(now))
        .filter(ad::Column::AdvertiserId.eq(a.id))
        .filter(ad::Column::Status.eq(AdStatus::Approved))
        .exec(&*txn)
        .await?;
    txn.commit().await?;
    super::super::sessions::end_all(&st, a.id, EndReason::Suspended).await?;
    tracing::info!(advertiser = %a.id, ads = paused.rows_affected, "advertiser suspended");
    Ok(ok(view(find(&st, &id).await?, paused.rows_affected)))
}

/// Lifts the suspension: the ads it paused come back (listed when their budget allows).
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<SuspensionView>), Errors), security(("bearer" = [])))]
#[post("/admin/advertisers/{id}/unsuspend")]
pub async fn unsuspend(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<FinanceRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let a = find(&st, &id).await?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let done = advertiser::Entity::update_many()
        .col_expr(
            advertiser::Column::SuspendedAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(
            advertiser::Column::SuspendedReason,
            Expr::value(Option::<String>::None),
        )
        .col_expr(advertiser::Column::UpdatedAt, Expr::value(now))
        .filter(advertiser::Column::Id.eq(a.id))
        .filter(advertiser::Column::SuspendedAt.is_not_null())
        .exec(&*txn)
        .await?;
    if done.rows_affected != 1 {
        return Err(super::super::staff::invalid_transition(
            "the advertiser is not suspended",
        ));
    }
    let paused: Vec<Uuid> = ad::Entity::find()
        .filter(ad::Column::AdvertiserId.eq(a.id))
        .filter(ad::Column::Status.eq(AdStatus::Paused))
        .filter(ad::Column::StatusReason.eq(SUSPEND_PAUSE))
        .all(&*txn)
        .await?
        .into_iter()
        .map(|a| a.id)
        .collect();
    let mut back = 0;
    for ad_id in paused {
        let resumed =
            super::super::ads::store::resume_paused_for(&*txn, ad_id, SUSPEND_PAUSE, now).await?;
        back += u64::from(resumed);
    }
    txn.commit().await?;
    st.sessions
        .changed(Change::AccountChanged { account: a.id })
        .await;
    Ok(ok(view(find(&st, &id).await?, back)))
}

/// Whether the ad's advertiser is suspended (an operator's ad has none).
pub async fn ad_owner_suspended(st: &AdvertisingState, a: &ad::Model) -> Result<bool> {
    let Some(owner) = a.advertiser_id else {
        return Ok(false);
    };
    Ok(advertiser::Entity::find_by_id(owner)
        .one(&st.core.db)
        .await?
        .is_some_and(|o| o.suspended_at.is_some()))
}

/// The refusal of an approval while the ad's advertiser is suspended.
pub fn owner_suspended() -> ApiError {
    ApiError::new(
        Kind::Conflict,
        "this ad's advertiser is suspended; unsuspend them first",
    )
    .code("advertiser_suspended")
}
