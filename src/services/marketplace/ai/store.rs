//! The AI helpers' workflows. Every number they answer (prices, averages, counts, matching
//! cars) is read from the listings here; the writer port only words text and reads queries.

use crate::providers::car_ai::{CarFacts, Vocabulary};
use crate::services::marketplace::cars::search;
use crate::services::marketplace::error::Result;
use crate::services::marketplace::state::MarketplaceState;
use chrono::Datelike;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use switchboard_entities::marketplace::car;

/// Distinct listed models read into a search vocabulary (bounds the query on a huge market).
const MAX_LISTED_MODELS: u64 = 5_000;

/// The listed makes and models and the listing fields' closed sets.
pub async fn vocabulary(db: &impl ConnectionTrait) -> Result<Vocabulary> {
    let listed: Vec<(String, String)> = car::Entity::find()
        .filter(car::Column::Status.eq(car::CarStatus::Active))
        .select_only()
        .column(car::Column::Make)
        .column(car::Column::Model)
        .distinct()
        .limit(MAX_LISTED_MODELS)
        .into_tuple()
        .all(db)
        .await?;
    Ok(Vocabulary {
        listed,
        ..search::closed_sets()
    })
}

/// The current year on the service's clock.
pub fn this_year(st: &MarketplaceState) -> i32 {
    st.core.now().year()
}

/// A stored listing's facts.
pub fn facts_of(st: &MarketplaceState, c: &car::Model) -> CarFacts {
    CarFacts {
        make: c.make.clone(),
        model: c.model.clone(),
        year: Some(c.year),
        mileage: Some(c.mileage),
        price: Some(c.price),
        fuel_type: Some(c.fuel_type.clone()),
        transmission: Some(c.transmission.clone()),
        body_type: Some(c.body_type.clone()),
        exterior_color: Some(c.color.clone()),
        interior_color: None,
        condition: Some(c.condition.clone()),
        features: serde_json::from_value(c.features.clone()).unwrap_or_default(),
        this_year: this_year(st),
    }
}
