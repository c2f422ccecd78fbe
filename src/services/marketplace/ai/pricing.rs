//! Pricing insights: the car's price against the average of like listings, active and priced,
//! within [`YEAR_SPAN`] model years and the car's [`mileage_band`]: the same make and model
//! first, else the same make and body type. Below [`MIN_COMPARABLES`] like listings no
//! average is given: the answer says there is not enough data and how many were found. The
//! writer only words the result.

use crate::providers::car_ai::{PriceFacts, PriceWords};
use crate::services::marketplace::ai::store;
use crate::services::marketplace::cars::store::find;
use crate::services::marketplace::error::Result;
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::sea_query::{Expr, ExprTrait, Func, Order};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Select,
};
use switchboard_entities::marketplace::car;
use uuid::Uuid;

/// Model years either side of the car's that count as comparable.
pub const YEAR_SPAN: i32 = 3;
/// The fewest like listings a market average is given from: one or two other cars say more
/// about those cars than about the market.
pub const MIN_COMPARABLES: u64 = 3;
/// The mileage band reaches this share of the car's mileage either side...
const MILEAGE_BAND_SHARE: f64 = 0.5;
/// ...and never less than this many kilometres (so nearly new cars have company).
const MILEAGE_BAND_MIN_KM: i64 = 30_000;
/// Comparable listings shown.
const SIMILAR_SHOWN: u64 = 5;

/// Which listings were compared, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The same make and model.
    Model,
    /// The same make and body type.
    MakeAndBody,
}

impl Basis {
    const NARROWEST_FIRST: [Self; 2] = [Self::Model, Self::MakeAndBody];

    fn words(self) -> &'static str {
        match self {
            Self::Model => "the same make and model",
            Self::MakeAndBody => "the same make and body type",
        }
    }
}

/// What a comparison was made on, as the answer's `comparedBy` says it.
pub fn compared_by(basis: Basis, enough: bool) -> &'static str {
    match (basis, enough) {
        (_, false) => "notEnoughData",
        (Basis::Model, true) => "model",
        (Basis::MakeAndBody, true) => "makeAndBody",
    }
}

/// The kilometres a like listing may show: the car's mileage ± half of it, at least ±30,000.
pub fn mileage_band(km: i64) -> (i64, i64) {
    let reach = Ord::max(
        (km as f64 * MILEAGE_BAND_SHARE).round() as i64,
        MILEAGE_BAND_MIN_KM,
    );
    (Ord::max(km - reach, 0), km.saturating_add(reach))
}

pub struct Insights {
    pub car: car::Model,
    pub basis: Basis,
    /// The numbers the words were given (the average is `None` below the minimum).
    pub facts: PriceFacts,
    pub similar: Vec<car::Model>,
    pub words: PriceWords,
}

/// Active priced listings other than `c` that `basis` calls like it.
fn comparable(c: &car::Model, basis: Basis) -> Select<car::Entity> {
    use car::Column as C;
    let (lo, hi) = mileage_band(c.mileage);
    let s = car::Entity::find()
        .filter(C::Status.eq(car::CarStatus::Active))
        .filter(C::Id.ne(c.id))
        .filter(C::Price.gt(0.0))
        .filter(C::MakeKey.eq(c.make_key.as_str()))
        .filter(C::Year.between(c.year - YEAR_SPAN, c.year + YEAR_SPAN))
        .filter(C::Mileage.between(lo, hi));
    match basis {
        Basis::Model => s.filter(C::ModelKey.eq(c.model_key.as_str())),
        Basis::MakeAndBody => s.filter(C::BodyType.eq(c.body_type.as_str())),
    }
}

/// The average price of `select`'s listings.
async fn average(db: &impl ConnectionTrait, select: Select<car::Entity>) -> Result<Option<f64>> {
    let avg: Option<Option<f64>> = select
        .select_only()
        .column_as(Expr::col(car::Column::Price).avg(), "average")
        .into_tuple()
        .one(db)
        .await?;
    Ok(avg.flatten().map(|a| (a * 100.0).round() / 100.0))
}

/// `POST /ai/pricing-insights`.
pub async fn insights(st: &MarketplaceState, id: Uuid) -> Result<Insights> {
    let db = &st.core.db;
    let car = find(db, id).await?;
    // The narrowest basis with enough listings; failing that, the one that found the most.
    let mut found: Option<(Basis, u64)> = None;
    for basis in Basis::NARROWEST_FIRST {
        let n = comparable(&car, basis).count(db).await?;
        if found.is_none_or(|(_, best)| n > best) {
            found = Some((basis, n));
        }
        if n >= MIN_COMPARABLES {
            break;
        }
    }
    let (basis, comparables) = found.unwrap_or((Basis::Model, 0));
    let enough = comparables >= MIN_COMPARABLES;
    let market_average = if enough {
        average(db, comparable(&car, basis)).await?
    } else {
        None
    };
    // The closest in price first, so the list shows what the average is made of.
    let similar = comparable(&car, basis)
        .order_by(
            Expr::expr(Func::abs(Expr::col(car::Column::Price).sub(car.price))),
            Order::Asc,
        )
        .order_by(car::Column::Id, Order::Asc)
        .limit(SIMILAR_SHOWN)
        .all(db)
        .await?;
    let facts = PriceFacts {
        car: store::facts_of(st, &car),
        current_price: car.price,
        market_average,
        comparables,
        minimum: MIN_COMPARABLES,
        basis: basis.words().to_owned(),
        years: (car.year - YEAR_SPAN, car.year + YEAR_SPAN),
        mileage_km: mileage_band(car.mileage),
    };
    let words = st.providers.car_writer.word_price(&facts).await;
    Ok(Insights {
        car,
        basis,
        facts,
        similar,
        words,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mileage_band_is_half_either_side_and_at_least_30000_km() {
        assert_eq!(mileage_band(42_000), (12_000, 72_000));
        assert_eq!(mileage_band(100_000), (50_000, 150_000));
        assert_eq!(mileage_band(0), (0, 30_000));
    }
}
