pub mod data;
pub mod routes;
