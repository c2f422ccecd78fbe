//! Trending ads: what posters took up lately. An ad's score over the last 7 days is
//!
//!   score = Σ_days (subscriptions_d + 3 × approved_screenshots_d) × 2^−(d + ½)/2
//!
//! where `d` is whole days ago (0 = the last 24 hours): each subscription counts 1 and
//! each approved screenshot 3 (proof the ad was really posted), halving every two days, so
//! a burst today outranks a bigger one last week. One statement weighs each of the last 7
//! days' events by its day, sums them per ad, keeps the ads listed in the poster's country
//! and answers the highest (ties by id): the database reads each event once and sends back
//! only the answer.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ConnectionTrait, DbBackend, FromQueryResult, Statement, Value};
use switchboard_entities::advertising::ad;
use switchboard_entities::advertising::screenshot::ScreenshotStatus;

pub const DAYS: i64 = 7;
const SCREENSHOT_WEIGHT: f64 = 3.0;
const HALF_LIFE_DAYS: f64 = 2.0;

/// The weight of something that happened `days_ago` whole days ago.
pub fn decay(days_ago: i64) -> f64 {
    (-(days_ago as f64 + 0.5) / HALF_LIFE_DAYS).exp2()
}

/// The weight of an event at `column`, by its day: `$2` is a day ago, `$3` two days, … (`$1`
/// is now), times `factor`.
fn weighed(column: &str, factor: f64) -> String {
    let days: String = (0..DAYS)
        .map(|d| format!(" WHEN {column} > ${} THEN {:?}", d + 2, decay(d) * factor))
        .collect();
    format!("CASE{days} END")
}

/// The `limit` listed ads of `country` with the highest scores at `now`, highest first.
pub async fn top(
    st: &AdvertisingState,
    country: &str,
    now: DateTime<Utc>,
    limit: u64,
) -> Result<Vec<(ad::Model, f64)>> {
    let db = &st.core.db;
    let oldest = DAYS + 1;
    let sql = format!(
        "SELECT a.*, t.score FROM (\
           SELECT ad_id, CAST(SUM(w) AS DOUBLE PRECISION) AS score FROM (\
             SELECT ad_id, {} AS w FROM advertising_subscriptions \
               WHERE created_at > ${oldest} AND created_at <= $1 \
             UNION ALL \
             SELECT ad_id, {} AS w FROM advertising_screenshots \
               WHERE status = ${} AND decided_at > ${oldest} AND decided_at <= $1\
           ) e GROUP BY ad_id\
         ) t JOIN advertising_ads a ON a.id = t.ad_id \
         WHERE a.listed AND a.country = ${} \
         ORDER BY t.score DESC, t.ad_id LIMIT {limit}",
        weighed("created_at", 1.0),
        weighed("decided_at", SCREENSHOT_WEIGHT),
        oldest + 2,
        oldest + 1,
    );
    let mut values: Vec<Value> = (0..=DAYS)
        .map(|d| (now - Duration::days(d)).into())
        .collect();
    values.push(country.into());
    // The status is bound like the rest, not spliced into the text.
    values.push(ScreenshotStatus::Approved.into());
    let backend = db.get_database_backend();
    // SQLite numbers its parameters `?NNN`.
    let sql = match backend {
        DbBackend::Sqlite => sql.replace('$', "?"),
        _ => sql,
    };
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        out.push((
            ad::Model::from_query_result(&row, "")?,
            row.try_get::<f64>("", "score")?,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_halves_every_two_days() {
        assert!((decay(0) / decay(2) - 2.0).abs() < 1e-9);
        assert!(decay(0) < 1.0 && decay(6) > 0.0);
    }
}
