//! The advanced search and the facets. Free text goes to the database's own full-text index
//! (FTS5 with bm25 on SQLite, a tsvector with ts_rank on PostgreSQL); before that each query
//! word is widened by the listed words it may be a misspelling of, found by trigrams (FTS5's
//! trigram tokenizer, pg_trgm) and ranked by one similarity measure on both databases.

use super::super::car_filters::{CarFilters, Sort};
use super::super::error::Result;
use super::super::search_terms::{corrections, inner_trigrams, query_words};
use super::super::MarketplaceState;
use crate::core::page::{self, Page, Window};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, JoinType, Order, Query};
use sea_orm::{
    ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect, QueryTrait,
    Select, Statement,
};
use serde::Serialize;
use switchboard_entities::marketplace::car;
use utoipa::ToSchema;

/// Full-text matches one search considers (SQLite; far beyond any listing count here).
const MAX_MATCHES: u64 = 1_000_000;

/// Candidate words one trigram lookup considers.
const CANDIDATES: u64 = 200;

/// Each query word with the listed words it may stand for.
async fn widen(db: &impl ConnectionTrait, words: Vec<String>) -> Result<Vec<Vec<String>>> {
    let backend = db.get_database_backend();
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        let grams = inner_trigrams(&word);
        let mut alternatives = vec![word.clone()];
        if !grams.is_empty() {
            let stmt = match backend {
                DbBackend::Postgres => Statement::from_sql_and_values(
                    backend,
                    "SELECT term FROM marketplace_search_terms WHERE term % $1 LIMIT $2",
                    [word.clone().into(), (CANDIDATES as i64).into()],
                ),
                _ => {
                    let any: Vec<String> = grams.iter().map(|g| format!("\"{g}\"")).collect();
                    Statement::from_sql_and_values(
                        backend,
                        "SELECT term FROM marketplace_search_terms_trgm \
                         WHERE marketplace_search_terms_trgm MATCH ? LIMIT ?",
                        [any.join(" OR ").into(), (CANDIDATES as i64).into()],
                    )
                }
            };
            let candidates: Vec<String> = db
                .query_all_raw(stmt)
                .await?
                .iter()
                .filter_map(|row| row.try_get::<String>("", "term").ok())
                .collect();
            alternatives.extend(corrections(&word, &candidates));
        }
        out.push(alternatives);
    }
    Ok(out)
}

/// The full-text query in the database's syntax: every word (or one of its alternatives), or,
/// with `any`, at least one.
fn text_query(backend: DbBackend, words: &[Vec<String>], any: bool) -> String {
    let (or, and) = match backend {
        DbBackend::Postgres => (" | ", if any { " | " } else { " & " }),
        _ => (" OR ", if any { " OR " } else { " AND " }),
    };
    words
        .iter()
        .map(|alts| {
            let quoted: Vec<String> = alts
                .iter()
                .map(|w| match backend {
                    DbBackend::Postgres => w.clone(),
                    _ => format!("\"{w}\""),
                })
                .collect();
            format!("({})", quoted.join(or))
        })
        .collect::<Vec<_>>()
        .join(and)
}

/// `select` narrowed to the listings matching `query`.
fn matching(
    backend: DbBackend,
    mut select: Select<car::Entity>,
    query: &str,
) -> Select<car::Entity> {
    match backend {
        DbBackend::Postgres => select.filter(Expr::cust_with_values(
            "marketplace_cars.search_vector @@ to_tsquery('english', $1)",
            [query.to_owned()],
        )),
        _ => {
            // The matches as a subquery with a LIMIT, which SQLite does not flatten into the
            // join: otherwise, with a selective filter (a price bound), the planner may scan
            // the listings and run the full-text match once per listing (seconds, not ms).
            let matches = Query::select()
                .expr(Expr::cust("car_id"))
                .expr(Expr::cust("rank"))
                .from(Alias::new("marketplace_cars_fts"))
                .and_where(Expr::cust_with_values(
                    "marketplace_cars_fts MATCH ?",
                    [query.to_owned()],
                ))
                .limit(MAX_MATCHES)
                .to_owned();
            QueryTrait::query(&mut select).join_subquery(
                JoinType::InnerJoin,
                matches,
                Alias::new("fts_match"),
                Expr::cust("fts_match.car_id = marketplace_cars.id"),
            );
            select
        }
    }
}

/// `select` (already [`matching`] `query`) ordered most relevant first.
fn by_relevance(
    backend: DbBackend,
    select: Select<car::Entity>,
    query: &str,
) -> Select<car::Entity> {
    match backend {
        DbBackend::Postgres => select.order_by(
            Expr::cust_with_values(
                "ts_rank(marketplace_cars.search_vector, to_tsquery('english', $1))",
                [query.to_owned()],
            ),
            Order::Desc,
        ),
        // bm25: lower is better.
        _ => select.order_by(Expr::cust("fts_match.rank"), Order::Asc),
    }
}

/// How a free-text search was read: the words used and what each may also stand for.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Interpretation {
    pub terms: Vec<Vec<String>>,
    /// Whether no listing held every word, so listings with any of them were answered.
    pub matched_any: bool,
}

/// `POST /cars/advanced-search`: listings matching every word of `query` (each word or a listed
/// word it misspells), else any of them, with the filters; by relevance unless `sort` is given.
pub async fn advanced(
    st: &MarketplaceState,
    query: Option<&str>,
    filters: &CarFilters,
    sort: &Sort,
    window: Window,
) -> Result<(Page<car::Model>, Option<Interpretation>)> {
    let db = &st.core.db;
    let words = query.map(query_words).unwrap_or_default();
    if words.is_empty() {
        let page = page::fetch(sort.apply(filters.apply(car::Entity::find())), db, window).await?;
        return Ok((page, None));
    }
    let backend = db.get_database_backend();
    let terms = widen(db, words).await?;
    let mut matched_any = false;
    let mut page = Page {
        items: vec![],
        total: 0,
        window,
    };
    for any in [false, true] {
        if any && terms.len() < 2 {
            break;
        }
        let q = text_query(backend, &terms, any);
        let select = matching(backend, filters.apply(car::Entity::find()), &q);
        let select = if sort.is_empty() {
            Sort::default().apply(by_relevance(backend, select, &q))
        } else {
            sort.apply(select)
        };
        page = page::fetch(select, db, window).await?;
        matched_any = any;
        if page.total > 0 {
            break;
        }
    }
    Ok((page, Some(Interpretation { terms, matched_any })))
}

/// One value of a facet and how many listings have it.
#[derive(Debug, Serialize, ToSchema)]
pub struct FacetCount {
    pub value: String,
    pub count: i64,
}

/// Counts of the filtered listings by make, body, fuel, gearbox, condition and price band.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Facets {
    pub total: i64,
    pub make: Vec<FacetCount>,
    pub body_type: Vec<FacetCount>,
    pub fuel_type: Vec<FacetCount>,
    pub transmission: Vec<FacetCount>,
    pub condition: Vec<FacetCount>,
    pub price_band: Vec<FacetCount>,
}

/// Price bands of the facets: label, lower bound (inclusive), upper bound (exclusive).
const PRICE_BANDS: [(&str, f64, f64); 7] = [
    ("under 5000", 0.0, 5_000.0),
    ("5000-10000", 5_000.0, 10_000.0),
    ("10000-20000", 10_000.0, 20_000.0),
    ("20000-30000", 20_000.0, 30_000.0),
    ("30000-50000", 30_000.0, 50_000.0),
    ("50000-100000", 50_000.0, 100_000.0),
    ("100000 and over", 100_000.0, f64::INFINITY),
];

async fn counts_by(
    db: &impl ConnectionTrait,
    filters: &CarFilters,
    key: car::Column,
    label: car::Column,
) -> Result<Vec<FacetCount>> {
    let rows: Vec<(String, i64)> = filters
        .apply(car::Entity::find())
        .select_only()
        .column_as(Expr::col(label).min(), "value")
        .column_as(Expr::col(car::Column::Id).count(), "count")
        .group_by(key)
        .into_tuple()
        .all(db)
        .await?;
    let mut counts: Vec<FacetCount> = rows
        .into_iter()
        .map(|(value, count)| FacetCount { value, count })
        .collect();
    counts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    Ok(counts)
}

/// `GET /cars/facets`.
pub async fn facets(st: &MarketplaceState, filters: &CarFilters) -> Result<Facets> {
    use car::Column as C;
    let db = &st.core.db;
    // The total and every price band in one pass over the filtered listings.
    let mut bands = filters
        .apply(car::Entity::find())
        .select_only()
        .column_as(Expr::cust("COUNT(*)"), "total");
    for (i, (_, lo, hi)) in PRICE_BANDS.iter().enumerate() {
        let upper = if hi.is_finite() {
            format!(" AND price < {hi}")
        } else {
            String::new()
        };
        bands = bands.column_as(
            Expr::cust(format!(
                "COALESCE(SUM(CASE WHEN price >= {lo}{upper} THEN 1 ELSE 0 END), 0)"
            )),
            format!("band{i}"),
        );
    }
    type Row = (i64, i64, i64, i64, i64, i64, i64, i64);
    let (total, b0, b1, b2, b3, b4, b5, b6) =
        bands.into_tuple::<Row>().one(db).await?.unwrap_or_default();
    let price_band = PRICE_BANDS
        .iter()
        .zip([b0, b1, b2, b3, b4, b5, b6])
        .map(|((label, _, _), count)| FacetCount {
            value: (*label).into(),
            count,
        })
        .collect();
    Ok(Facets {
        total,
        make: counts_by(db, filters, C::MakeKey, C::Make).await?,
        body_type: counts_by(db, filters, C::BodyType, C::BodyType).await?,
        fuel_type: counts_by(db, filters, C::FuelType, C::FuelType).await?,
        transmission: counts_by(db, filters, C::Transmission, C::Transmission).await?,
        condition: counts_by(db, filters, C::Condition, C::Condition).await?,
        price_band,
    })
}
