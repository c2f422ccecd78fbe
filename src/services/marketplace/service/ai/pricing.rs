//! Pricing insights: the car's price against the average of comparable priced listings,
//! compared as narrowly as the market allows — the same make and model within two model
//! years, else the same make, else the same body type. The writer only words the result.

use super::super::super::error::Result;
use super::super::super::MarketplaceState;
use super::super::cars::find;
use crate::providers::car_ai::{PriceFacts, PriceWords};
use sea_orm::sea_query::{Expr, ExprTrait, Func, Order};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Select,
};
use switchboard_entities::marketplace::car;
use uuid::Uuid;

/// Model years either side of the car's that count as comparable.
const YEAR_SPAN: i32 = 2;
/// Comparable listings shown.
const SIMILAR_SHOWN: u64 = 5;

/// Which listings were compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    MakeModelYear,
    Make,
    BodyType,
    None,
}

impl Basis {
    pub fn code(self) -> &'static str {
        match self {
            Self::MakeModelYear => "makeModelYear",
            Self::Make => "make",
            Self::BodyType => "bodyType",
            Self::None => "none",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Self::MakeModelYear => "the same make and model within two model years",
            Self::Make => "the same make",
            Self::BodyType => "the same body type",
            Self::None => "none found",
        }
    }
}

pub struct Insights {
    pub car: car::Model,
    pub market_average: Option<f64>,
    pub comparables: u64,
    pub basis: Basis,
    pub similar: Vec<car::Model>,
    pub words: PriceWords,
}

/// Active priced listings other than `c` that `basis` compares with it.
fn comparable(c: &car::Model, basis: Basis) -> Select<car::Entity> {
    use car::Column as C;
    let s = car::Entity::find()
        .filter(C::Status.eq("active"))
        .filter(C::Id.ne(c.id))
        .filter(C::Price.gt(0.0));
    match basis {
        Basis::MakeModelYear => s
            .filter(C::MakeKey.eq(c.make_key.as_str()))
            .filter(C::ModelKey.eq(c.model_key.as_str()))
            .filter(C::Year.between(c.year - YEAR_SPAN, c.year + YEAR_SPAN)),
        Basis::Make => s.filter(C::MakeKey.eq(c.make_key.as_str())),
        Basis::BodyType => s.filter(C::BodyType.eq(c.body_type.as_str())),
        Basis::None => s.filter(Expr::val(false)),
    }
}

/// The average price and count of `select`'s listings.
async fn average(
    db: &impl ConnectionTrait,
    select: Select<car::Entity>,
) -> Result<(Option<f64>, u64)> {
    let row: Option<(Option<f64>, i64)> = select
        .select_only()
        .column_as(Expr::col(car::Column::Price).avg(), "average")
        .column_as(Expr::col(car::Column::Id).count(), "n")
        .into_tuple()
        .one(db)
        .await?;
    let (avg, n) = row.unwrap_or((None, 0));
    Ok((
        avg.map(|a| (a * 100.0).round() / 100.0),
        u64::try_from(n).unwrap_or(0),
    ))
}

/// `POST /ai/pricing-insights`.
pub async fn insights(st: &MarketplaceState, id: Uuid) -> Result<Insights> {
    let db = &st.core.db;
    let car = find(db, id).await?;
    let mut found = (None, 0, Basis::None);
    for basis in [Basis::MakeModelYear, Basis::Make, Basis::BodyType] {
        let (avg, n) = average(db, comparable(&car, basis)).await?;
        if n > 0 {
            found = (avg, n, basis);
            break;
        }
    }
    let (market_average, comparables, basis) = found;
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
    let words = st
        .providers
        .car_writer
        .word_price(&PriceFacts {
            car: super::facts_of(st, &car),
            current_price: car.price,
            market_average,
            comparables,
            basis: basis.words().to_owned(),
        })
        .await;
    Ok(Insights {
        car,
        market_average,
        comparables,
        basis,
        similar,
        words,
    })
}
