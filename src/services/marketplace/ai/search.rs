//! The natural-language search: the writer reads the sentence into filters, which run as the
//! car lists' own filters and sort against the listings. When nothing matches, constraints
//! are relaxed one at a time in [`RELAXATIONS`] order, and the answer says which were.

use crate::core::page::{self, Page, Window};
use crate::providers::car_ai::Interpretation;
use crate::services::marketplace::ai::store;
use crate::services::marketplace::cars::domain::MAX_PRICE;
use crate::services::marketplace::cars::filters::{CarFilters, RawFilters, Sort};
use crate::services::marketplace::error::Result;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::Scalar;
use sea_orm::sea_query::{Expr, ExprTrait, Func};
use sea_orm::{EntityTrait, QueryFilter};
use switchboard_entities::marketplace::car;

/// How much a relaxed price ceiling rises.
const PRICE_RELAXATION: f64 = 1.2;

type Relaxation = fn(&Interpretation) -> Option<Interpretation>;

/// Constraints given up, in this order, while nothing matches: the wished-for features
/// first (nice to have), then the price ceiling by 20%, then the mileage ceiling, then the
/// body type. Make, model, year, fuel and gearbox are never given up.
pub const RELAXATIONS: [(&str, Relaxation); 4] = [
    ("priorityFeatures", |q| {
        (!q.priority_features.is_empty()).then(|| Interpretation {
            priority_features: vec![],
            ..q.clone()
        })
    }),
    ("maxPrice", |q| {
        q.max_price.map(|p| Interpretation {
            max_price: Some((p * PRICE_RELAXATION).round().min(MAX_PRICE)),
            ..q.clone()
        })
    }),
    ("maxMileage", |q| {
        q.max_mileage.map(|_| Interpretation {
            max_mileage: None,
            ..q.clone()
        })
    }),
    ("bodyType", |q| {
        q.body_type.as_ref().map(|_| Interpretation {
            body_type: None,
            ..q.clone()
        })
    }),
];

pub struct NaturalSearch {
    /// How the sentence was read.
    pub interpreted: Interpretation,
    /// What was finally run (the reading, relaxed).
    pub applied: Interpretation,
    pub relaxed: Vec<&'static str>,
    pub page: Page<car::Model>,
}

/// The listings `q` asks for, a page of them in its order.
async fn run(
    st: &MarketplaceState,
    q: &Interpretation,
    window: Window,
) -> Result<Page<car::Model>> {
    let num = |v: Option<f64>| v.map(|v| Scalar::Number(v.min(MAX_PRICE)));
    let raw = RawFilters {
        make: q.make.clone(),
        model: q.model.clone(),
        min_price: num(q.min_price),
        max_price: num(q.max_price),
        min_year: q.min_year.map(|y| Scalar::Number(f64::from(y))),
        max_year: q.max_year.map(|y| Scalar::Number(f64::from(y))),
        fuel_type: q.fuel_type.clone(),
        transmission: q.transmission.clone(),
        body_type: q.body_type.clone(),
        condition: q.condition.clone(),
        max_mileage: q.max_mileage.map(|m| Scalar::Number(m as f64)),
        seller_type: None,
        status: None,
    };
    let filters = CarFilters::parse(&raw)?;
    // The reading's colour (the rest is in `raw` already).
    let filters = filters.and_read(q).unwrap_or(filters);
    let sort = Sort::parse("sortBy", q.sort_by.as_deref())?;
    let mut select = filters.apply(car::Entity::find());
    for f in &q.priority_features {
        // Matched as text in the listing's features; LIKE's wildcards are not features.
        let needle: String = f
            .to_lowercase()
            .chars()
            .filter(|c| !matches!(c, '%' | '_' | '\\'))
            .collect();
        select = select.filter(
            Expr::expr(Func::lower(Expr::col(car::Column::FeaturesText)))
                .like(format!("%{needle}%")),
        );
    }
    page::fetch(sort.apply(select), &st.core.db, window).await
}

/// `POST /ai/search-natural-language`.
pub async fn natural_language(
    st: &MarketplaceState,
    query: &str,
    window: Window,
) -> Result<NaturalSearch> {
    let vocab = store::vocabulary(&st.core.db).await?;
    let interpreted = st.providers.car_writer.interpret(query, &vocab).await;
    let mut applied = interpreted.clone();
    let mut relaxed = vec![];
    let mut page = run(st, &applied, window).await?;
    for (name, relax) in RELAXATIONS {
        if page.total > 0 {
            break;
        }
        if let Some(next) = relax(&applied) {
            applied = next;
            relaxed.push(name);
            page = run(st, &applied, window).await?;
        }
    }
    Ok(NaturalSearch {
        interpreted,
        applied,
        relaxed,
        page,
    })
}
