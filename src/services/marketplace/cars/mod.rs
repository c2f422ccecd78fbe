//! Car listings (`/cars/*`): browse, filter, sort and search them, their facets; create,
//! change and remove them; trending cars, counters and one car's analytics (`stats/`).

pub mod domain;
pub mod dto;
pub mod filters;
pub mod routes;
pub mod search;
pub mod search_terms;
pub mod stats;
pub mod store;
