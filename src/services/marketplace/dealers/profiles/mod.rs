//! Dealer profiles: read by anyone, changed by their dealer (name, location, description,
//! business info and business hours).

pub mod hours;
pub mod routes;
pub mod store;
