//! Rankings and figures over the interactions: trending cars, counters of many cars at once,
//! and one car's analytics for its owner.

use crate::services::marketplace::auth::Caller;
use crate::services::marketplace::cars::store::owned;
use crate::services::marketplace::customers::store::cars_in_order;
use crate::services::marketplace::error::Result;
use crate::services::marketplace::interactions::counters::date_text;
use crate::services::marketplace::state::MarketplaceState;
use chrono::{DateTime, Days, NaiveDate, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QuerySelect, Statement,
    Value,
};
use switchboard_entities::marketplace::{car, car_view};
use uuid::Uuid;

/// Days trending looks back over, today (UTC) included.
const TRENDING_DAYS: u64 = 7;
/// An event's weight is exp(-age_hours / DECAY_HOURS).
const DECAY_HOURS: f64 = 48.0;
/// Days of view history in a car's analytics, today included.
const HISTORY_DAYS: u64 = 30;

/// Points per event: views 1, likes 3, favorites 2, inquiries 5 (each table has `day`).
const EVENTS: [(&str, i64); 4] = [
    ("marketplace_car_views", 1),
    ("marketplace_car_likes", 3),
    ("marketplace_favorites", 2),
    ("marketplace_inquiries", 5),
];

/// The first of the `n` UTC days that end today.
fn first_day(now: DateTime<Utc>, n: u64) -> NaiveDate {
    let today = now.date_naive();
    today.checked_sub_days(Days::new(n - 1)).unwrap_or(today)
}

/// Placeholders in each database's syntax, numbered as values are pushed.
struct Params {
    backend: DbBackend,
    values: Vec<Value>,
}

impl Params {
    fn push(&mut self, v: impl Into<Value>) -> String {
        self.values.push(v.into());
        match self.backend {
            DbBackend::Postgres => format!("${}", self.values.len()),
            _ => "?".into(),
        }
    }
}

/// Active cars ranked by their score over the last seven UTC days: each event's points
/// times exp(-age/48 h), where an event's age is counted in whole days (today 0 h,
/// yesterday 24 h, …), so the sum runs in SQL over the per-day rows the `day` indexes serve.
/// Ties: the newest listing first.
pub async fn trending(st: &MarketplaceState, limit: u64) -> Result<Vec<(car::Model, f64)>> {
    let db = &st.core.db;
    let now = st.core.now();
    let mut p = Params {
        backend: db.get_database_backend(),
        values: Vec::new(),
    };
    let since = date_text(first_day(now, TRENDING_DAYS));
    // Values are pushed in the order their placeholders appear (SQLite's `?` are positional).
    let weights: Vec<String> = (0..TRENDING_DAYS)
        .map(|ago| {
            let day = now.date_naive().checked_sub_days(Days::new(ago));
            let day = day.map(date_text).unwrap_or_default();
            let weight = (-((ago * 24) as f64) / DECAY_HOURS).exp();
            format!("WHEN {} THEN {}", p.push(day), p.push(weight))
        })
        .collect();
    let events: Vec<String> = EVENTS
        .iter()
        .map(|(table, points)| {
            format!(
                "SELECT car_id, day, {points} AS points FROM {table} WHERE day >= {}",
                p.push(since.clone())
            )
        })
        .collect();
    let sql = format!(
        "SELECT c.id AS id, SUM(e.points * CASE e.day {} ELSE 0.0 END) AS score \
         FROM ({}) e JOIN marketplace_cars c ON c.id = e.car_id \
         WHERE c.status = {} GROUP BY c.id, c.created_at \
         ORDER BY score DESC, c.created_at DESC, c.id DESC LIMIT {}",
        weights.join(" "),
        events.join(" UNION ALL "),
        p.push(car::CarStatus::Active),
        p.push(limit as i64),
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(p.backend, sql, p.values))
        .await?;
    let mut ranked = Vec::with_capacity(rows.len());
    for row in rows {
        ranked.push((
            row.try_get::<Uuid>("", "id")?,
            row.try_get::<f64>("", "score")?,
        ));
    }
    let ids: Vec<Uuid> = ranked.iter().map(|(id, _)| *id).collect();
    let cars = cars_in_order(db, &ids).await?;
    Ok(cars
        .into_iter()
        .map(|c| {
            let score = ranked
                .iter()
                .find(|(id, _)| *id == c.id)
                .map_or(0.0, |(_, s)| *s);
            (c, score)
        })
        .collect())
}

/// The cars `asked` names, in the order asked and each once, and the ids that name none
/// (malformed or unknown), as sent.
pub async fn stats(
    st: &MarketplaceState,
    asked: &[String],
) -> Result<(Vec<car::Model>, Vec<String>)> {
    let mut unique: Vec<&String> = Vec::with_capacity(asked.len());
    for raw in asked {
        if !unique.contains(&raw) {
            unique.push(raw);
        }
    }
    let parsed: Vec<(&String, Option<Uuid>)> = unique
        .into_iter()
        .map(|raw| (raw, Uuid::parse_str(raw).ok()))
        .collect();
    let ids: Vec<Uuid> = parsed.iter().filter_map(|(_, id)| *id).collect();
    let mut found = cars_in_order(&st.core.db, &ids).await?;
    let mut cars = Vec::with_capacity(found.len());
    let mut not_found = Vec::new();
    for (raw, id) in parsed {
        match id.and_then(|id| found.iter().position(|c| c.id == id)) {
            Some(at) => cars.push(found.swap_remove(at)),
            None => not_found.push(raw.clone()),
        }
    }
    Ok((cars, not_found))
}

/// A car's analytics: its counters and its views per UTC day over the last 30 days, oldest
/// first, days without views included as 0.
pub async fn analytics(
    st: &MarketplaceState,
    caller: Caller,
    car_id: Uuid,
) -> Result<(car::Model, Vec<(String, i64)>)> {
    let db = &st.core.db;
    let car = owned(db, caller, car_id).await?;
    let first = first_day(st.core.now(), HISTORY_DAYS);
    let counted: Vec<(String, i64)> = car_view::Entity::find()
        .select_only()
        .column(car_view::Column::Day)
        .column_as(Expr::col(car_view::Column::Viewer).count(), "n")
        .filter(car_view::Column::CarId.eq(car_id))
        .filter(car_view::Column::Day.gte(date_text(first)))
        .group_by(car_view::Column::Day)
        .into_tuple()
        .all(db)
        .await?;
    let history = (0..HISTORY_DAYS)
        .filter_map(|i| first.checked_add_days(Days::new(i)))
        .map(|d| {
            let day = date_text(d);
            let n = counted
                .iter()
                .find(|(k, _)| *k == day)
                .map_or(0, |(_, n)| *n);
            (day, n)
        })
        .collect();
    Ok((car, history))
}
