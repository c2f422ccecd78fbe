//! What staff and the website read about the whole platform: the analytics overview, the
//! advertisers with their spend, system health, and the dashboard metrics (`X-API-Key`).

use super::super::ads::dto::ByStatus;
use super::super::error::Result;
use super::super::money::ledger::{self, TransactionKind, TransactionStatus};
use super::super::money::store::total;
use super::super::openapi::Errors;
use super::super::state::AdvertisingState;
use super::super::wire::{self, ok, usd, Data, List};
use crate::core::auth::{AdminRole, Bearer, FinanceRole, ServiceKey};
use actix_web::{get, web, HttpResponse};
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, Condition, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect};
use serde::Serialize;
use std::collections::BTreeMap;
use switchboard_entities::advertising::ad::AdStatus;
use switchboard_entities::advertising::screenshot::ScreenshotStatus;
use switchboard_entities::advertising::withdrawal::WithdrawalStatus;
use switchboard_entities::advertising::{
    ad, advertiser, poster, screenshot, subscription, transaction, withdrawal,
};
use switchboard_entities::core::job::{self, JobStatus};
use utoipa::ToSchema;

/// Days the overview's series covers.
const DAYS: i64 = 30;

static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Marks the service's start (uptime counts from here).
pub fn mark_started() {
    STARTED.get_or_init(std::time::Instant::now);
}

/// The sum of completed transactions of `kind`.
async fn completed_sum(st: &AdvertisingState, kind: TransactionKind) -> Result<i64> {
    let sum: Option<Option<i64>> = transaction::Entity::find()
        .select_only()
        .column_as(total(transaction::Column::AmountCents), "s")
        .filter(transaction::Column::Kind.eq(kind))
        .filter(transaction::Column::Status.eq(TransactionStatus::Completed))
        .into_tuple()
        .one(&st.core.db)
        .await?;
    Ok(sum.flatten().unwrap_or(0))
}

async fn screenshots_by_status(st: &AdvertisingState) -> Result<ByStatus> {
    let counts: Vec<(ScreenshotStatus, i64)> = screenshot::Entity::find()
        .select_only()
        .column(screenshot::Column::Status)
        .column_as(screenshot::Column::Id.count(), "n")
        .group_by(screenshot::Column::Status)
        .into_tuple()
        .all(&st.core.db)
        .await?;
    Ok(ByStatus::from_counts(&counts))
}

/// The counts both the overview and the dashboard show.
struct Totals {
    users: u64,
    advertisers: u64,
    active_ads: u64,
    screenshots: ByStatus,
    earnings: i64,
}

async fn totals(st: &AdvertisingState) -> Result<Totals> {
    let db = &st.core.db;
    Ok(Totals {
        users: poster::Entity::find().count(db).await?,
        advertisers: advertiser::Entity::find().count(db).await?,
        active_ads: ad::Entity::find()
            .filter(ad::Column::Status.eq(AdStatus::Approved))
            .count(db)
            .await?,
        screenshots: screenshots_by_status(st).await?,
        earnings: completed_sum(st, TransactionKind::Earning).await?,
    })
}

#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct Day {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    pub new_users: u64,
    pub subscriptions: u64,
    pub screenshots: u64,
    /// Screenshots approved that day (by the verifier or staff).
    pub approvals: u64,
    pub earnings_cents: i64,
    pub deposits_cents: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    pub users: u64,
    pub advertisers: u64,
    /// Approved ads.
    pub active_ads: u64,
    pub screenshots: ByStatus,
    /// Every approved screenshot's payout.
    pub earnings_paid_cents: i64,
    pub earnings_paid_usd: String,
    pub deposits_cents: i64,
    pub deposits_usd: String,
    /// The last 30 days, oldest first.
    pub daily: Vec<Day>,
}

/// The times in `column` since `since` of the rows `also` keeps.
async fn times<E: EntityTrait>(
    db: &sea_orm::DatabaseConnection,
    column: E::Column,
    since: DateTime<Utc>,
    also: Condition,
) -> Result<Vec<DateTime<Utc>>> {
    Ok(E::find()
        .select_only()
        .column(column)
        .filter(column.gte(since))
        .filter(also)
        .into_tuple()
        .all(db)
        .await?)
}

/// Adds one to `field` of each time's day.
fn count_days(
    days: &mut BTreeMap<String, Day>,
    times: Vec<DateTime<Utc>>,
    field: impl Fn(&mut Day) -> &mut u64,
) {
    for t in times {
        if let Some(d) = days.get_mut(&day_of(t)) {
            *field(d) += 1;
        }
    }
}

fn day_of(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

/// Users, advertisers, active ads, screenshots by status, earnings paid and deposits, and
/// the same per day for the last 30 days.
#[utoipa::path(tag = "admin",
    responses((status = 200, body = Data<Overview>), Errors), security(("bearer" = [])))]
#[get("/admin/analytics/overview")]
pub async fn overview(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<FinanceRole>,
) -> Result<HttpResponse> {
    let db = &st.core.db;
    let now = st.core.now();
    let since = (now - Duration::days(DAYS - 1))
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map_or(now, |t| t.and_utc());
    let mut days: BTreeMap<String, Day> = (0..DAYS)
        .map(|d| {
            let date = day_of(since + Duration::days(d));
            (
                date.clone(),
                Day {
                    date,
                    ..Day::default()
                },
            )
        })
        .collect();
    let joined =
        times::<poster::Entity>(db, poster::Column::CreatedAt, since, Condition::all()).await?;
    count_days(&mut days, joined, |d| &mut d.new_users);
    let subscribed =
        times::<subscription::Entity>(db, subscription::Column::CreatedAt, since, Condition::all())
            .await?;
    count_days(&mut days, subscribed, |d| &mut d.subscriptions);
    let shots =
        times::<screenshot::Entity>(db, screenshot::Column::CreatedAt, since, Condition::all())
            .await?;
    count_days(&mut days, shots, |d| &mut d.screenshots);
    let approved = Condition::all().add(screenshot::Column::Status.eq(ScreenshotStatus::Approved));
    let approvals =
        times::<screenshot::Entity>(db, screenshot::Column::DecidedAt, since, approved).await?;
    count_days(&mut days, approvals, |d| &mut d.approvals);
    let money: Vec<(DateTime<Utc>, TransactionKind, i64)> = transaction::Entity::find()
        .select_only()
        .column(transaction::Column::CreatedAt)
        .column(transaction::Column::Kind)
        .column(transaction::Column::AmountCents)
        .filter(transaction::Column::CreatedAt.gte(since))
        .filter(transaction::Column::Status.eq(TransactionStatus::Completed))
        .filter(
            transaction::Column::Kind.is_in([TransactionKind::Earning, TransactionKind::Deposit]),
        )
        .into_tuple()
        .all(db)
        .await?;
    for (t, kind, cents) in money {
        if let Some(d) = days.get_mut(&day_of(t)) {
            if kind == TransactionKind::Earning {
                d.earnings_cents += cents;
            } else {
                d.deposits_cents += cents;
            }
        }
    }
    let t = totals(&st).await?;
    let deposits = completed_sum(&st, TransactionKind::Deposit).await?;
    Ok(ok(Overview {
        users: t.users,
        advertisers: t.advertisers,
        active_ads: t.active_ads,
        screenshots: t.screenshots,
        earnings_paid_cents: t.earnings,
        earnings_paid_usd: usd(t.earnings),
        deposits_cents: deposits,
        deposits_usd: usd(deposits),
        daily: days.into_values().collect(),
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdvertiserRow {
    pub id: String,
    pub email: String,
    pub company_name: String,
    pub country_code: String,
    pub email_verified: bool,
    pub ads: u64,
    /// Spent on approved screenshots, over all their ads.
    pub spent_cents: i64,
    pub spent_usd: String,
    /// What they owe (refunds of money posters had earned).
    pub owed_cents: i64,
    pub owed_usd: String,
    pub suspended: bool,
    pub suspended_reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// Advertisers, newest first, with their ads and spend.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageOnly {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
}

#[utoipa::path(tag = "admin", params(PageOnly),
    responses((status = 200, body = Data<List<AdvertiserRow>>), Errors), security(("bearer" = [])))]
#[get("/admin/advertisers")]
pub async fn advertisers(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<AdminRole>,
    q: web::Query<PageOnly>,
) -> Result<HttpResponse> {
    let window = wire::window(q.page, q.limit)?;
    let page = wire::newest_first(
        &st.core.db,
        advertiser::Entity::find(),
        advertiser::Column::CreatedAt,
        advertiser::Column::Id,
        window,
    )
    .await?;
    let ids: Vec<uuid::Uuid> = page.items.iter().map(|a| a.id).collect();
    let spend: Vec<(Option<uuid::Uuid>, i64, Option<i64>)> = ad::Entity::find()
        .select_only()
        .column(ad::Column::AdvertiserId)
        .column_as(ad::Column::Id.count(), "n")
        .column_as(total(ad::Column::SpentCents), "s")
        .filter(ad::Column::AdvertiserId.is_in(ids.clone()))
        .group_by(ad::Column::AdvertiserId)
        .into_tuple()
        .all(&st.core.db)
        .await?;
    let owed_keys: Vec<String> = ids
        .iter()
        .map(|id| ledger::Account::Owed(*id).key())
        .collect();
    let owed: Vec<(String, i64)> = switchboard_entities::advertising::balance::Entity::find()
        .select_only()
        .column(switchboard_entities::advertising::balance::Column::Account)
        .column(switchboard_entities::advertising::balance::Column::Cents)
        .filter(switchboard_entities::advertising::balance::Column::Account.is_in(owed_keys))
        .into_tuple()
        .all(&st.core.db)
        .await?;
    Ok(ok(List::from(page.map(|a| {
        let key = ledger::Account::Owed(a.id).key();
        let owed_cents = owed
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |(_, c)| (-c).max(0));
        let (n, spent) = spend
            .iter()
            .find(|(id, _, _)| *id == Some(a.id))
            .map_or((0, 0), |(_, n, s)| {
                (u64::try_from(*n).unwrap_or(0), s.unwrap_or(0))
            });
        AdvertiserRow {
            id: a.id.to_string(),
            email: a.email,
            company_name: a.company_name,
            country_code: a.country_code,
            email_verified: a.email_verified_at.is_some(),
            ads: n,
            spent_cents: spent,
            spent_usd: usd(spent),
            owed_cents,
            owed_usd: usd(owed_cents),
            suspended: a.suspended_at.is_some(),
            suspended_reason: a.suspended_reason,
            created_at: a.created_at,
        }
    }))))
}

#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct TopicHealth {
    pub topic: String,
    /// Queued and running.
    pub depth: u64,
    /// Dead: out of attempts, waiting for an operator (`switchboard jobs retry`).
    pub failed: u64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SystemHealth {
    /// `ok` or `unavailable`.
    pub database: String,
    pub jobs: Vec<TopicHealth>,
    /// Each provider port and the adapter configured.
    #[schema(value_type = Object)]
    pub providers: BTreeMap<&'static str, String>,
    pub version: &'static str,
    pub uptime_secs: u64,
    /// The newest error log lines of this process, oldest first.
    pub recent_errors: Vec<String>,
}

async fn job_health(st: &AdvertisingState) -> Result<Vec<TopicHealth>> {
    let rows: Vec<(String, JobStatus, i64)> = job::Entity::find()
        .select_only()
        .column(job::Column::Topic)
        .column(job::Column::Status)
        .column_as(job::Column::Id.count(), "n")
        .filter(job::Column::Status.is_in([JobStatus::Queued, JobStatus::Running, JobStatus::Dead]))
        .group_by(job::Column::Topic)
        .group_by(job::Column::Status)
        .into_tuple()
        .all(&st.core.db)
        .await?;
    let mut topics: BTreeMap<String, TopicHealth> = BTreeMap::new();
    for (topic, status, n) in rows {
        let t = topics.entry(topic.clone()).or_insert_with(|| TopicHealth {
            topic,
            ..TopicHealth::default()
        });
        let n = u64::try_from(n).unwrap_or(0);
        if status == JobStatus::Dead {
            t.failed += n;
        } else {
            t.depth += n;
        }
    }
    Ok(topics.into_values().collect())
}

/// The database, the job queue per topic, the providers configured, the version, uptime
/// and the last error log lines.
#[utoipa::path(tag = "admin",
    responses((status = 200, body = Data<SystemHealth>), Errors), security(("bearer" = [])))]
#[get("/admin/system")]
pub async fn system(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<AdminRole>,
) -> Result<HttpResponse> {
    let database = match st.core.db.ping().await {
        Ok(()) => "ok",
        Err(e) => {
            tracing::error!(error = %e, "database ping failed");
            "unavailable"
        }
    };
    let p = &st.providers.settings;
    let providers = BTreeMap::from([
        ("sms", p.sms.provider.clone()),
        ("email", p.email.provider.clone()),
        ("push", p.push.provider.clone()),
        ("storage", p.storage.provider.clone()),
        ("screenshots", p.screenshots.verifier.clone()),
    ]);
    Ok(ok(SystemHealth {
        database: database.into(),
        jobs: job_health(&st).await.unwrap_or_default(),
        providers,
        version: env!("CARGO_PKG_VERSION"),
        uptime_secs: STARTED.get().map_or(0, |s| s.elapsed().as_secs()),
        recent_errors: crate::core::telemetry::recent_errors(),
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    pub users: u64,
    pub advertisers: u64,
    /// Every approved screenshot's payout, in dollars (`"12.50"`).
    pub total_earnings: String,
    pub total_earnings_cents: i64,
    pub active_ads: u64,
    /// Screenshots waiting for a decision (pending and needs_review).
    pub pending_screenshots: u64,
    pub pending_withdrawals: u64,
    /// Jobs queued or running.
    pub job_backlog: u64,
}

/// The website's figures; `X-API-Key` is `[services.advertising] dashboard_api_key`.
#[utoipa::path(tag = "admin",
    responses((status = 200, body = Data<Metrics>), Errors), security(("api_key" = [])))]
#[get("/api/dashboard/metrics")]
pub async fn dashboard_metrics(
    st: web::Data<AdvertisingState>,
    _key: ServiceKey,
) -> Result<HttpResponse> {
    let db = &st.core.db;
    let t = totals(&st).await?;
    Ok(ok(Metrics {
        users: t.users,
        advertisers: t.advertisers,
        total_earnings: usd(t.earnings),
        total_earnings_cents: t.earnings,
        active_ads: t.active_ads,
        pending_screenshots: t.screenshots.pending + t.screenshots.needs_review,
        pending_withdrawals: withdrawal::Entity::find()
            .filter(withdrawal::Column::Status.eq(WithdrawalStatus::Pending))
            .count(db)
            .await?,
        job_backlog: job::Entity::find()
            .filter(job::Column::Status.is_in([JobStatus::Queued, JobStatus::Running]))
            .count(db)
            .await?,
    }))
}
