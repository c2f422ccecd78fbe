//! The advanced search and the facets. Free text is first read for attribute words, years
//! and prices, which become filters (the natural-language search's reader); the other words
//! go to the database's own full-text index (FTS5 with bm25 on SQLite, a tsvector with
//! ts_rank on PostgreSQL); before that each is widened by the catalogue words it may be a
//! misspelling of, found by trigrams (FTS5's trigram tokenizer, pg_trgm) and ranked by one
//! similarity measure on both databases, or by one edit for short words.

use super::super::car_filters::{CarFilters, Sort};
use super::super::error::Result;
use super::super::listing::{BODY_TYPE, CONDITION, FUEL_TYPE, TRANSMISSION};
use super::super::search_terms::{corrections, inner_trigrams, query_words, Names};
use super::super::MarketplaceState;
use super::catalogue;
use crate::core::page::{self, Page, Window};
use crate::providers::car_ai::query::read;
use crate::providers::car_ai::{Interpretation as InterpretedQuery, Vocabulary};
use sea_orm::sea_query::{Alias, Expr, JoinType, Order, Query};
use sea_orm::{
    ConnectionTrait, DbBackend, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
    QueryTrait, Select, Statement,
};
use serde::Serialize;
use switchboard_entities::marketplace::{car, catalogue_make, catalogue_model};
use utoipa::ToSchema;

/// Full-text matches one search considers (SQLite; far beyond any listing count here).
const MAX_MATCHES: u64 = 1_000_000;

/// Candidate words one trigram lookup considers.
const CANDIDATES: u64 = 200;

/// The public catalogue's make and model names (a few hundred short rows).
async fn catalogue_names(db: &impl ConnectionTrait) -> Result<Names> {
    let mut names: Vec<String> = catalogue_make::Entity::find()
        .select_only()
        .column(catalogue_make::Column::Name)
        .into_tuple()
        .all(db)
        .await?;
    let models: Vec<String> = catalogue_model::Entity::find()
        .select_only()
        .column(catalogue_model::Column::Name)
        .into_tuple()
        .all(db)
        .await?;
    names.extend(models);
    Ok(Names::new(names.iter().map(String::as_str)))
}

/// Each query word with what it may stand for: listed words it misspells (trigrams), and
/// catalogue names it spells without punctuation or with one typo in a short word. An
/// alternative of several words ("cr-v") is matched as a phrase.
async fn widen(
    db: &impl ConnectionTrait,
    names: &Names,
    words: Vec<String>,
) -> Result<Vec<Vec<String>>> {
    let backend = db.get_database_backend();
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        let grams = inner_trigrams(&word);
        let mut alternatives = vec![word.clone()];
        // A make or model word is itself, not a misspelling ("ford" is not "forte").
        if !grams.is_empty() && !names.has_word(&word) {
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
            if !candidates.contains(&word) {
                alternatives.extend(corrections(&word, &candidates));
            }
        }
        for alt in names.alternatives(&word) {
            if !alternatives.contains(&alt) {
                alternatives.push(alt);
            }
        }
        out.push(alternatives);
    }
    Ok(out)
}

/// A full-text query in the database's own terms.
enum TextQuery {
    /// An FTS5 query string.
    Fts5(String),
    /// A tsquery expression with its `$n` values.
    Ts(String, Vec<sea_orm::Value>),
}

/// Every word (or one of its alternatives), or, with `any`, at least one. An alternative is
/// handed to the database's own tokenizer as a phrase, so "cr-v" and "f-150" are split as
/// the listings' text was (PostgreSQL reads "F-150" as "f" and "-150").
fn text_query(backend: DbBackend, words: &[Vec<String>], any: bool) -> TextQuery {
    match backend {
        DbBackend::Postgres => {
            let mut values = vec![];
            let groups: Vec<String> = words
                .iter()
                .map(|alts| {
                    let one: Vec<String> = alts
                        .iter()
                        .map(|w| {
                            values.push(w.clone().into());
                            format!("phraseto_tsquery('english', ${})", values.len())
                        })
                        .collect();
                    format!("({})", one.join(" || "))
                })
                .collect();
            TextQuery::Ts(groups.join(if any { " || " } else { " && " }), values)
        }
        _ => {
            let groups: Vec<String> = words
                .iter()
                .map(|alts| {
                    let quoted: Vec<String> = alts
                        .iter()
                        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
                        .collect();
                    format!("({})", quoted.join(" OR "))
                })
                .collect();
            TextQuery::Fts5(groups.join(if any { " OR " } else { " AND " }))
        }
    }
}

/// `select` narrowed to the listings matching `query`.
fn matching(mut select: Select<car::Entity>, query: &TextQuery) -> Select<car::Entity> {
    match query {
        TextQuery::Ts(expr, values) => select.filter(Expr::cust_with_values(
            format!("marketplace_cars.search_vector @@ ({expr})"),
            values.clone(),
        )),
        TextQuery::Fts5(q) => {
            // The matches as a subquery with a LIMIT, which SQLite does not flatten into the
            // join: otherwise, with a selective filter (a price bound), the planner may scan
            // the listings and run the full-text match once per listing (seconds, not ms).
            let matches = Query::select()
                .expr(Expr::cust("car_id"))
                .expr(Expr::cust("rank"))
                .from(Alias::new("marketplace_cars_fts"))
                .and_where(Expr::cust_with_values(
                    "marketplace_cars_fts MATCH ?",
                    [q.clone()],
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
fn by_relevance(select: Select<car::Entity>, query: &TextQuery) -> Select<car::Entity> {
    match query {
        TextQuery::Ts(expr, values) => select.order_by(
            Expr::cust_with_values(
                format!("ts_rank(marketplace_cars.search_vector, ({expr}))"),
                values.clone(),
            ),
            Order::Desc,
        ),
        // bm25: lower is better.
        TextQuery::Fts5(_) => select.order_by(Expr::cust("fts_match.rank"), Order::Asc),
    }
}

/// How a free-text search was read: the filters its words named, the other words and what
/// each may also stand for.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Interpretation {
    /// The filters read from the query's words (fuel, gearbox, body, condition, colour,
    /// years, prices, mileage, a sort), applied where the request's own filters set none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filters: Option<InterpretedQuery>,
    /// The words searched as text, each with its alternatives.
    pub terms: Vec<Vec<String>>,
    /// Whether no listing held every word, so listings with any of them were answered.
    pub matched_any: bool,
}

/// The closed sets of the listing fields, all a query's words are read against (makes and
/// models stay text: the full-text index ranks them, descriptions included).
pub fn closed_sets() -> Vocabulary {
    Vocabulary {
        listed: vec![],
        body_types: BODY_TYPE.values,
        fuel_types: FUEL_TYPE.values,
        transmissions: TRANSMISSION.values,
        conditions: CONDITION.values,
    }
}

/// `POST /cars/advanced-search`: the query's attribute words, years and price phrases read
/// as filters (by the natural-language search's own reader) beside `filters`; the listings
/// matching every other word (each word or what it may stand for), else any of them; by
/// relevance unless `sort` is given or read.
pub async fn advanced(
    st: &MarketplaceState,
    query: Option<&str>,
    filters: &CarFilters,
    sort: &Sort,
    window: Window,
) -> Result<(Page<car::Model>, Option<Interpretation>)> {
    let db = &st.core.db;
    let Some(query) = query else {
        let page = page::fetch(sort.apply(filters.apply(car::Entity::find())), db, window).await?;
        return Ok((page, None));
    };
    let reading = read(query, &closed_sets());
    let read_filters = (reading.filters != InterpretedQuery::default())
        .then(|| filters.and_read(&reading.filters))
        .flatten();
    // Read filters that contradict the request's own are not applied; their words are text.
    let (filters, words, read_as) = match read_filters {
        Some(f) => (
            f,
            query_words(&reading.rest.join(" ")),
            Some(reading.filters),
        ),
        None => (filters.clone(), query_words(query), None),
    };
    let sort = match (&read_as, sort.is_empty()) {
        (Some(r), true) => Sort::parse("sortBy", r.sort_by.as_deref())?,
        _ => sort.clone(),
    };
    if words.is_empty() {
        let page = page::fetch(sort.apply(filters.apply(car::Entity::find())), db, window).await?;
        let read = read_as.map(|f| Interpretation {
            filters: Some(f),
            terms: vec![],
            matched_any: false,
        });
        return Ok((page, read));
    }
    catalogue::ready(st).await?;
    let backend = db.get_database_backend();
    let names = catalogue_names(db).await?;
    let terms = widen(db, &names, words).await?;
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
        let select = matching(filters.apply(car::Entity::find()), &q);
        let select = if sort.is_empty() {
            Sort::default().apply(by_relevance(select, &q))
        } else {
            sort.apply(select)
        };
        page = page::fetch(select, db, window).await?;
        matched_any = any;
        if page.total > 0 {
            break;
        }
    }
    let read = Interpretation {
        filters: read_as,
        terms,
        matched_any,
    };
    Ok((page, Some(read)))
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

/// `CASE` giving a listing's price band: its index in [`PRICE_BANDS`]. The triggers of
/// `marketplace_car_counts` (migration `m20261202_000001`) compute the same bands.
fn band_sql() -> String {
    let mut sql = String::from("CASE");
    for (i, (_, _, hi)) in PRICE_BANDS.iter().enumerate() {
        if hi.is_finite() {
            sql.push_str(&format!(" WHEN price < {hi} THEN {i}"));
        } else {
            sql.push_str(&format!(" ELSE {i} END"));
        }
    }
    sql
}

const COUNTS: &str = "marketplace_car_counts";

/// How many listings the list with `filters` holds. Without a range filter, summed from
/// `marketplace_car_counts` (one row per combination of the equality filters' values, kept by
/// triggers), so the default list of 100,000 listings reads a few thousand small rows instead
/// of every listing; with one, counted over the listings (an index holds the range columns).
pub async fn count(db: &impl ConnectionTrait, filters: &CarFilters) -> Result<u64> {
    if filters.has_range() {
        return Ok(filters.apply(car::Entity::find()).count(db).await?);
    }
    let backend = db.get_database_backend();
    let stmt = backend.build(
        Query::select()
            .expr_as(
                Expr::cust("CAST(COALESCE(SUM(listings), 0) AS BIGINT)"),
                Alias::new("n"),
            )
            .from(Alias::new(COUNTS))
            .cond_where(filters.equality_condition()),
    );
    let n = match db.query_one_raw(stmt).await? {
        Some(row) => row.try_get::<i64>("", "n")?,
        None => 0,
    };
    Ok(u64::try_from(n).unwrap_or(0))
}

/// `GET /cars/facets`: one statement. Its source is one row per combination of make, body,
/// fuel, gearbox, condition and price band with the number of listings that have it: from
/// `marketplace_car_counts` without a range filter, else grouped from the filtered listings;
/// each facet is grouped from that source (a few thousand rows at most).
pub async fn facets(st: &MarketplaceState, filters: &CarFilters) -> Result<Facets> {
    use car::Column as C;
    let db = &st.core.db;
    let backend = db.get_database_backend();
    let source = if filters.has_range() {
        let band = band_sql();
        let mut grouped = filters
            .apply(car::Entity::find())
            .select_only()
            .columns([
                C::Make,
                C::MakeKey,
                C::BodyType,
                C::FuelType,
                C::Transmission,
                C::Condition,
            ])
            .column_as(Expr::cust(band.clone()), "price_band")
            .column_as(Expr::cust("COUNT(*)"), "listings")
            .group_by(C::Make)
            .group_by(C::MakeKey)
            .group_by(C::BodyType)
            .group_by(C::FuelType)
            .group_by(C::Transmission)
            .group_by(C::Condition)
            .group_by(Expr::cust(band));
        QueryTrait::query(&mut grouped).to_owned()
    } else {
        Query::select()
            .columns(
                [
                    "make",
                    "make_key",
                    "body_type",
                    "fuel_type",
                    "transmission",
                    "condition",
                    "price_band",
                    "listings",
                ]
                .map(Alias::new),
            )
            .from(Alias::new(COUNTS))
            .cond_where(filters.equality_condition())
            .and_where(Expr::cust("listings > 0"))
            .to_owned()
    };
    let source = backend.build(&source);
    let by = |facet: &str, value: &str, key: &str| {
        format!(
            "SELECT '{facet}' AS facet, {value} AS value, \
             CAST(SUM(listings) AS BIGINT) AS n FROM m GROUP BY {key}"
        )
    };
    let sql = format!(
        "WITH m AS MATERIALIZED ({}) {}",
        source.sql,
        [
            by("make", "MIN(make)", "make_key"),
            by("bodyType", "body_type", "body_type"),
            by("fuelType", "fuel_type", "fuel_type"),
            by("transmission", "transmission", "transmission"),
            by("condition", "condition", "condition"),
            by("band", "CAST(price_band AS TEXT)", "price_band"),
        ]
        .join(" UNION ALL ")
    );
    let stmt = Statement::from_sql_and_values(
        backend,
        sql,
        source.values.map(|v| v.0).unwrap_or_default(),
    );
    let mut facets = Facets {
        total: 0,
        make: vec![],
        body_type: vec![],
        fuel_type: vec![],
        transmission: vec![],
        condition: vec![],
        price_band: PRICE_BANDS
            .iter()
            .map(|(label, _, _)| FacetCount {
                value: (*label).into(),
                count: 0,
            })
            .collect(),
    };
    for row in db.query_all_raw(stmt).await? {
        let facet: String = row.try_get("", "facet")?;
        let value: String = row.try_get("", "value")?;
        let count: i64 = row.try_get("", "n")?;
        let list = match facet.as_str() {
            "make" => &mut facets.make,
            "bodyType" => &mut facets.body_type,
            "fuelType" => &mut facets.fuel_type,
            "transmission" => &mut facets.transmission,
            "condition" => &mut facets.condition,
            _ => {
                if let Some(band) = value
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| facets.price_band.get_mut(i))
                {
                    band.count += count;
                    facets.total += count;
                }
                continue;
            }
        };
        list.push(FacetCount { value, count });
    }
    for list in [
        &mut facets.make,
        &mut facets.body_type,
        &mut facets.fuel_type,
        &mut facets.transmission,
        &mut facets.condition,
    ] {
        list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    }
    Ok(facets)
}
