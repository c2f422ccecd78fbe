//! The advanced search and the facets. Free text is first read for attribute words, years
//! and prices, which become filters (the natural-language search's reader); the other words
//! go to the database's own full-text index (FTS5 with bm25 on SQLite, a tsvector with
//! ts_rank on PostgreSQL); before that each is widened by the catalogue words it may be a
//! misspelling of, found by trigrams (FTS5's trigram tokenizer, pg_trgm) and ranked by one
//! similarity measure on both databases, or by one edit for short words.

use crate::core::page::{self, Page, Window};
use crate::providers::car_ai::query::read;
use crate::providers::car_ai::{Interpretation as InterpretedQuery, Vocabulary};
use crate::services::marketplace::cars::domain::{BODY_TYPE, CONDITION, FUEL_TYPE, TRANSMISSION};
use crate::services::marketplace::cars::filters::{CarFilters, Sort};
use crate::services::marketplace::cars::search_terms::{
    corrections, inner_trigrams, query_words, Names,
};
use crate::services::marketplace::catalogue::store as catalogue;
use crate::services::marketplace::error::Result;
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::sea_query::{Alias, Condition, Expr, ExprTrait, Order, Query, UnionType};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, IdenStatic, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, QueryTrait, Select, Statement,
};
use serde::Serialize;
use std::collections::HashMap;
use switchboard_entities::marketplace::car;
use utoipa::ToSchema;
use uuid::Uuid;

/// Full-text matches one search considers (SQLite; far beyond any listing count here).
const MAX_MATCHES: u64 = 1_000_000;

/// Candidate words one trigram lookup considers.
const CANDIDATES: u64 = 200;

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

/// `select` narrowed to the listings matching `query`; with `ranked`, each match carries its
/// relevance (`fts_match.rank` on SQLite, bm25 computed per match, so only when ordered by it).
fn matching(
    mut select: Select<car::Entity>,
    query: &TextQuery,
    ranked: bool,
) -> Select<car::Entity> {
    match query {
        // `(SELECT …)`: the query is built once per statement (an init plan). Written inline,
        // PostgreSQL's generic plan of the prepared statement (chosen after five runs) rebuilt
        // it for each match it ranked: 221 → 67 ms for 35,809 matches of "toyta corola sunrof".
        TextQuery::Ts(expr, values) => select.filter(Expr::cust_with_values(
            format!("marketplace_cars.search_vector @@ (SELECT {expr})"),
            values.clone(),
        )),
        TextQuery::Fts5(q) => {
            // The matches as a subquery with a LIMIT, which SQLite does not flatten into the
            // join: otherwise, with a selective filter (a price bound), the planner may scan
            // the listings and run the full-text match once per listing (seconds, not ms).
            // And first, CROSS JOIN the listings (SQLite keeps that order): else SQLite 3.51
            // walks a list index over every active listing and probes the matches for each
            // (65 ms for "honda leather" on 100,000 listings, 21 ms the other way round).
            // Joined by the integer search key (the match's rowid), whose index carries the
            // filters and sort keys (migration `m20261205_000001`).
            let mut matches = Query::select();
            matches.expr_as(Expr::cust("rowid"), Alias::new("search_key"));
            if ranked {
                matches.expr(Expr::cust("rank"));
            }
            let matches = matches
                .from(Alias::new("marketplace_cars_fts"))
                .and_where(Expr::cust_with_values(
                    "marketplace_cars_fts MATCH ?",
                    [q.clone()],
                ))
                .limit(MAX_MATCHES)
                .to_owned();
            QueryTrait::query(&mut select)
                .from_clear()
                .from_subquery(matches, Alias::new("fts_match"))
                .cross_join(car::Entity)
                .and_where(Expr::cust(
                    "fts_match.search_key = marketplace_cars.search_key",
                ));
            select
        }
    }
}

/// `select` (already [`matching`] `query`) ordered most relevant first.
fn by_relevance(select: Select<car::Entity>, query: &TextQuery) -> Select<car::Entity> {
    match query {
        TextQuery::Ts(expr, values) => select.order_by(
            Expr::cust_with_values(
                format!("ts_rank(marketplace_cars.search_vector, (SELECT {expr}))"),
                values.clone(),
            ),
            Order::Desc,
        ),
        // bm25: lower is better.
        TextQuery::Fts5(_) => select.order_by(Expr::cust("fts_match.rank"), Order::Asc),
    }
}

/// The window of `select` (matches in order) with their total, in two steps: the window's
/// ids, each row carrying the total (`COUNT(*) OVER ()`), then those listings by id. The
/// window function and the sort buffer every match, so they hold an id and the sort keys, not
/// whole listings with their descriptions and JSON (9.7 → 5.5 ms for the 2,871 matches of
/// "hondda leathr" on SQLite). Past the last match the total is counted apart.
async fn ids_then_rows(
    select: Select<car::Entity>,
    db: &impl ConnectionTrait,
    window: Window,
) -> Result<Page<car::Model>> {
    let ids: Vec<(Uuid, i64)> = select
        .clone()
        .select_only()
        .column(car::Column::Id)
        .expr_as(Expr::cust("COUNT(*) OVER ()"), "full_count")
        .limit(window.limit)
        .offset(window.offset)
        .into_tuple()
        .all(db)
        .await?;
    let Some(&(_, total)) = ids.first() else {
        return if window.offset == 0 {
            Ok(Page {
                items: vec![],
                total: 0,
                window,
            })
        } else {
            page::fetch(select, db, window).await
        };
    };
    let mut rows: HashMap<Uuid, car::Model> = car::Entity::find()
        .filter(car::Column::Id.is_in(ids.iter().map(|(id, _)| *id)))
        .all(db)
        .await?
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    Ok(Page {
        // A listing deleted between the two reads is left out of this page.
        items: ids.iter().filter_map(|(id, _)| rows.remove(id)).collect(),
        total: u64::try_from(total).unwrap_or(0),
        window,
    })
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
    // Without text the search is the car list itself (its counts and list indexes).
    let Some(query) = query else {
        return Ok((list(st, filters, sort, window).await?, None));
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
        let page = list(st, &filters, &sort, window).await?;
        let read = read_as.map(|f| Interpretation {
            filters: Some(f),
            terms: vec![],
            matched_any: false,
        });
        return Ok((page, read));
    }
    catalogue::ready(st).await?;
    let backend = db.get_database_backend();
    let names = catalogue::names(st).await?;
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
        let select = matching(filters.apply(car::Entity::find()), &q, sort.is_empty());
        let select = if sort.is_empty() {
            Sort::default().apply(by_relevance(select, &q))
        } else {
            sort.apply(select)
        };
        // By relevance every match is ranked anyway, and the page carries the count. In a
        // given order PostgreSQL walks that order's index and stops after the page, and counts
        // off the text index apart; a count over the page's rows would make it rank all.
        page = if backend == DbBackend::Postgres && !sort.is_empty() {
            page::fetch(select, db, window).await?
        } else {
            ids_then_rows(select, db, window).await?
        };
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

impl Facets {
    /// `count` listings have `value` of `facet` (a price band by its index).
    fn add(&mut self, facet: &str, value: String, count: i64) {
        let list = match facet {
            "make" => &mut self.make,
            "bodyType" => &mut self.body_type,
            "fuelType" => &mut self.fuel_type,
            "transmission" => &mut self.transmission,
            "condition" => &mut self.condition,
            _ => {
                if let Some(band) = value
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| self.price_band.get_mut(i))
                {
                    band.count += count;
                    self.total += count;
                }
                return;
            }
        };
        list.push(FacetCount { value, count });
    }
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

/// A price range cut at the facets' band edges: the bands wholly inside it, read from the kept
/// counts, and what is left of it at either end as (lowest, highest, highest included).
struct PriceSplit {
    bands: Vec<usize>,
    ends: Vec<(f64, f64, bool)>,
}

/// The lowest price of band `i` (band 0 holds every price under its upper bound).
fn band_floor(i: usize) -> f64 {
    if i == 0 {
        f64::NEG_INFINITY
    } else {
        PRICE_BANDS[i].1
    }
}

/// `filters`' price range cut at the band edges, when it is their only range and holds at
/// least one whole band.
fn price_split(filters: &CarFilters) -> Option<PriceSplit> {
    let (lo, hi) = filters.price_only()?;
    split_prices(lo, hi)
}

/// A price range cut at the band edges, when it holds at least one whole band.
fn split_prices(lo: Option<f64>, hi: Option<f64>) -> Option<PriceSplit> {
    let (lo, hi) = (lo.unwrap_or(f64::NEG_INFINITY), hi.unwrap_or(f64::INFINITY));
    let bands: Vec<usize> = (0..PRICE_BANDS.len())
        .filter(|&i| band_floor(i) >= lo && PRICE_BANDS[i].2 <= hi)
        .collect();
    let (first, last) = (*bands.first()?, *bands.last()?);
    let mut ends = vec![];
    if lo < band_floor(first) {
        ends.push((lo, band_floor(first), false));
    }
    let top = PRICE_BANDS[last].2;
    if top.is_finite() && top <= hi {
        ends.push((top, hi, true));
    }
    Some(PriceSplit { bands, ends })
}

/// `select` narrowed to prices from `lo` (unbounded when not finite) to `hi`, `hi` itself
/// included or not (unbounded when not finite).
fn priced_in(select: Select<car::Entity>, lo: f64, hi: f64, included: bool) -> Select<car::Entity> {
    let mut select = select;
    if lo.is_finite() {
        select = select.filter(car::Column::Price.gte(lo));
    }
    if hi.is_finite() {
        select = select.filter(if included {
            car::Column::Price.lte(hi)
        } else {
            car::Column::Price.lt(hi)
        });
    }
    select
}

/// Upper bounds (exclusive) of the mileage bands of `marketplace_car_range_counts`
/// (migration `m20261206_000002` computes the same bands); the last band holds the rest.
const MILEAGE_EDGES: [i64; 7] = [10_000, 25_000, 50_000, 75_000, 100_000, 150_000, 200_000];

/// The exact count of a list whose only filters besides the status are bounds and the fuel
/// type, from `marketplace_car_range_counts`: the kept rows of the whole price and mileage
/// bands in range (years are kept one by one), plus the listings in the parts of the price
/// and mileage ranges that cut a band (none when a bound is on a band edge but the listings
/// priced exactly at an upper bound). None when the filters or a range do not fit.
async fn range_count(db: &impl ConnectionTrait, filters: &CarFilters) -> Result<Option<u64>> {
    let Some(r) = filters.kept_ranges() else {
        return Ok(None);
    };
    let split = if r.min_price.is_none() && r.max_price.is_none() {
        PriceSplit {
            bands: (0..PRICE_BANDS.len()).collect(),
            ends: vec![],
        }
    } else {
        match split_prices(r.min_price, r.max_price) {
            Some(split) => split,
            None => return Ok(None),
        }
    };
    // Mileage band i is whole when all of it is at most the bound; the listings from the
    // last whole band's top up to the bound are counted apart.
    let (mileage_bands, mileage_end) = match r.max_mileage {
        None => ((0..=MILEAGE_EDGES.len()).collect::<Vec<_>>(), None),
        Some(max) => {
            let whole: Vec<usize> = (0..MILEAGE_EDGES.len())
                .filter(|&i| MILEAGE_EDGES[i] <= max + 1)
                .collect();
            let Some(&last) = whole.last() else {
                return Ok(None);
            };
            let end = (MILEAGE_EDGES[last] <= max).then_some(MILEAGE_EDGES[last]);
            (whole, end)
        }
    };
    let col = |c: &str| Expr::col(Alias::new(c));
    let as_i32 = |v: &[usize]| v.iter().map(|&b| b as i32).collect::<Vec<_>>();
    let mut kept = Condition::all()
        .add(col("status").eq(r.status))
        .add(col("price_band").is_in(as_i32(&split.bands)))
        .add(col("mileage_band").is_in(as_i32(&mileage_bands)));
    if let Some(f) = r.fuel_type {
        kept = kept.add(col("fuel_type").eq(f));
    }
    if let Some(y) = r.min_year {
        kept = kept.add(col("year").gte(y));
    }
    if let Some(y) = r.max_year {
        kept = kept.add(col("year").lte(y));
    }
    let mut n = sum_listings(db, RANGE_COUNTS, kept).await?;
    let rest = filters.without_price();
    for &(lo, hi, included) in &split.ends {
        let select = priced_in(car::Entity::find(), lo, hi, included);
        n += rest.apply(select).count(db).await?;
    }
    if let Some(from) = mileage_end {
        // Priced in the whole bands: the ends' listings were counted above.
        let (first, last) = (split.bands[0], split.bands[split.bands.len() - 1]);
        let select = car::Entity::find().filter(car::Column::Mileage.gte(from));
        let select = priced_in(select, band_floor(first), PRICE_BANDS[last].2, false);
        n += rest.apply(select).count(db).await?;
    }
    Ok(Some(n))
}

const COUNTS: &str = "marketplace_car_counts";
const FACET_COUNTS: &str = "marketplace_car_facet_counts";
const RANGE_COUNTS: &str = "marketplace_car_range_counts";

/// The listings `table`'s rows matching `condition` hold, summed.
async fn sum_listings(db: &impl ConnectionTrait, table: &str, condition: Condition) -> Result<u64> {
    let stmt = db.get_database_backend().build(
        Query::select()
            .expr_as(
                Expr::cust("CAST(COALESCE(SUM(listings), 0) AS BIGINT)"),
                Alias::new("n"),
            )
            .from(Alias::new(table))
            .cond_where(condition),
    );
    let n = match db.query_one_raw(stmt).await? {
        Some(row) => row.try_get::<i64>("", "n")?,
        None => 0,
    };
    Ok(u64::try_from(n).unwrap_or(0))
}

/// `GET /cars`: the filtered listings in the asked order.
pub async fn list(
    st: &MarketplaceState,
    filters: &CarFilters,
    sort: &Sort,
    window: Window,
) -> Result<Page<car::Model>> {
    let db = &st.core.db;
    let total = count(db, filters).await?;
    let select = filters.apply_for_page(car::Entity::find(), db.get_database_backend(), sort);
    page::fetch_counted(sort.apply(select), db, window, total).await
}

/// How many listings the list with `filters` holds. By the status alone, the rows of one facet
/// in `marketplace_car_facet_counts` (a few dozen) summed. Without a range filter, summed from
/// `marketplace_car_counts` (one row per combination of the equality filters' values, kept by
/// triggers), so a list of 100,000 listings reads a few thousand small rows at most instead of
/// every listing; with one, counted over the listings (an index holds the range columns).
pub async fn count(db: &impl ConnectionTrait, filters: &CarFilters) -> Result<u64> {
    if filters.has_range() {
        if let Some(n) = range_count(db, filters).await? {
            return Ok(n);
        }
        return Ok(filters.apply(car::Entity::find()).count(db).await?);
    }
    if filters.status_only() {
        let by_band = Condition::all()
            .add(Expr::col(Alias::new("status")).eq(filters.status()))
            .add(Expr::col(Alias::new("facet")).eq("band"));
        return sum_listings(db, FACET_COUNTS, by_band).await;
    }
    sum_listings(db, COUNTS, filters.equality_condition()).await
}

/// The facets read from one pass per make: each closed facet as (name, column, values).
const CLOSED_FACETS: [(&str, &str, &[&str]); 4] = [
    ("bodyType", "body_type", BODY_TYPE.values),
    ("fuelType", "fuel_type", FUEL_TYPE.values),
    ("transmission", "transmission", TRANSMISSION.values),
    ("condition", "condition", CONDITION.values),
];

/// The rows a facets statement answers.
#[derive(Clone, Copy, PartialEq)]
enum FacetRows {
    /// (facet, value, n): one row per value of each facet.
    PerValue,
    /// One row per make: its first spelling, its count (`c0`), then the count of each value
    /// of each closed facet and of each price band (`c1`…, in [`CLOSED_FACETS`] then
    /// [`PRICE_BANDS`] order).
    PerMake,
}

/// The facets' statement. Without any filter but the status: rows of (facet, value, n) from
/// `marketplace_car_facet_counts` (kept per facet value). Else one row per make, summed over
/// a source of (combination, listings): `marketplace_car_counts` without a range filter, else
/// the filtered listings, one each. One pass, grouped by make, where six GROUP BYs over the
/// source each sorted it (8 ms for the 3,200 combinations of one fuel on SQLite, 2 ms now).
/// PostgreSQL with a range filter is the exception: its hash aggregate of thousands of
/// listings with 27 conditional sums costs more than grouping them by combination once and
/// each facet from that (152 against 110–116 req/s for a make and a price bound).
fn facet_statement(backend: DbBackend, filters: &CarFilters) -> (Statement, FacetRows) {
    use car::Column as C;
    if filters.status_only() {
        let param = match backend {
            DbBackend::Postgres => "$1",
            _ => "?",
        };
        // Each value's stripes summed; a make shown as its first spelling that some listing
        // still has.
        let stmt = Statement::from_sql_and_values(
            backend,
            format!(
                "SELECT facet, MIN(value) AS value, CAST(SUM(n) AS BIGINT) AS n FROM (\
                 SELECT facet, key, value, SUM(listings) AS n FROM {FACET_COUNTS} \
                 WHERE status = {param} GROUP BY facet, key, value \
                 HAVING SUM(listings) > 0) AS v GROUP BY facet, key"
            ),
            [filters.status().into()],
        );
        return (stmt, FacetRows::PerValue);
    }
    let columns = [
        C::Make,
        C::MakeKey,
        C::BodyType,
        C::FuelType,
        C::Transmission,
        C::Condition,
    ];
    let split = price_split(filters);
    if split.is_none() && filters.has_range() && backend == DbBackend::Postgres {
        return (
            grouped_facets(backend, filters, columns),
            FacetRows::PerValue,
        );
    }
    let kept = || {
        Query::select()
            .columns(columns.map(|c| Alias::new(c.as_str())))
            .column(Alias::new("price_band"))
            .expr_as(Expr::cust("listings"), Alias::new("n"))
            .from(Alias::new(COUNTS))
            .cond_where(filters.equality_condition())
            .and_where(Expr::cust("listings > 0"))
            .to_owned()
    };
    let listings = |filters: &CarFilters, select: Select<car::Entity>| {
        let mut rows = filters
            .apply(select)
            .select_only()
            .columns(columns)
            .column_as(Expr::cust(band_sql()), "price_band")
            .column_as(Expr::cust("1"), "n");
        QueryTrait::query(&mut rows).to_owned()
    };
    let source = if let Some(split) = split {
        // The whole bands' kept rows, and the listings priced in the range's ends (a price
        // bound on a band edge leaves at most the listings at exactly that price).
        let bands = split.bands.iter().map(|&b| b as i32);
        let mut source = kept()
            .and_where(Expr::col(Alias::new("price_band")).is_in(bands))
            .to_owned();
        let rest = filters.without_price();
        for (lo, hi, included) in split.ends {
            let select = priced_in(car::Entity::find(), lo, hi, included);
            source.union(UnionType::All, listings(&rest, select));
        }
        source
    } else if filters.has_range() {
        listings(filters, car::Entity::find())
    } else {
        kept()
    };
    let source = backend.build(&source);

    let sum = |when: String| format!("CAST(SUM(CASE WHEN {when} THEN n END) AS BIGINT)");
    let mut sums = vec!["CAST(SUM(n) AS BIGINT)".to_owned()];
    for (_, column, values) in CLOSED_FACETS {
        sums.extend(values.iter().map(|v| sum(format!("{column} = '{v}'"))));
    }
    sums.extend((0..PRICE_BANDS.len()).map(|i| sum(format!("price_band = {i}"))));
    let sums: Vec<String> = sums
        .into_iter()
        .enumerate()
        .map(|(i, s)| format!("{s} AS c{i}"))
        .collect();
    let sql = format!(
        "SELECT MIN(make) AS make, {} FROM ({}) AS m GROUP BY make_key",
        sums.join(", "),
        source.sql
    );
    let stmt = Statement::from_sql_and_values(
        backend,
        sql,
        source.values.map(|v| v.0).unwrap_or_default(),
    );
    (stmt, FacetRows::PerMake)
}

/// The facets of the listings `filters` keep as rows of (facet, value, n): the listings
/// grouped by their combination of `columns` and price band once (materialised), then each
/// facet grouped from those few thousand rows.
fn grouped_facets(
    backend: DbBackend,
    filters: &CarFilters,
    columns: [car::Column; 6],
) -> Statement {
    let band = band_sql();
    let mut grouped = filters
        .apply(car::Entity::find())
        .select_only()
        .columns(columns)
        .column_as(Expr::cust(band.clone()), "price_band")
        .column_as(Expr::cust("COUNT(*)"), "listings");
    for c in columns {
        grouped = grouped.group_by(c);
    }
    let mut grouped = grouped.group_by(Expr::cust(band));
    let source = backend.build(QueryTrait::query(&mut grouped));
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
    Statement::from_sql_and_values(backend, sql, source.values.map(|v| v.0).unwrap_or_default())
}

/// `GET /cars/facets`: one statement ([`facet_statement`]).
pub async fn facets(st: &MarketplaceState, filters: &CarFilters) -> Result<Facets> {
    let db = &st.core.db;
    let (stmt, shape) = facet_statement(db.get_database_backend(), filters);
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
    let rows = db.query_all_raw(stmt).await?;
    if shape == FacetRows::PerValue {
        for row in rows {
            let facet: String = row.try_get("", "facet")?;
            let value: String = row.try_get("", "value")?;
            let count: i64 = row.try_get("", "n")?;
            facets.add(&facet, value, count);
        }
    } else {
        // Per make rows: each closed value's count summed over the makes.
        let mut closed: Vec<(&str, String, Option<i64>)> = CLOSED_FACETS
            .iter()
            .flat_map(|(facet, _, values)| values.iter().map(|v| (*facet, (*v).to_owned(), None)))
            .collect();
        closed.extend((0..PRICE_BANDS.len()).map(|i| ("band", i.to_string(), None)));
        for row in rows {
            let make: String = row.try_get("", "make")?;
            facets.add("make", make, row.try_get("", "c0")?);
            for (i, (_, _, sum)) in closed.iter_mut().enumerate() {
                if let Some(n) = row.try_get::<Option<i64>>("", &format!("c{}", i + 1))? {
                    *sum = Some(sum.unwrap_or(0) + n);
                }
            }
        }
        for (facet, value, sum) in closed {
            if let Some(n) = sum {
                facets.add(facet, value, n);
            }
        }
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
