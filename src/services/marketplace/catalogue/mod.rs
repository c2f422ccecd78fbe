//! The car catalogue (`/cars/makes`, `/cars/models/{make}`, `/cars/body-types`,
//! `/cars/features`, `/cars/templates/{make}/{model}`): what it starts with (`data.rs`) plus
//! every make and model listed since (`store.rs`).

pub mod data;
pub mod names;
pub mod routes;
pub mod store;
