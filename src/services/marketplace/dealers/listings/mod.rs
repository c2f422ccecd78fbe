//! A dealer's listings as a whole: the public list, the dealer's statistics, and the export
//! as CSV (spreadsheet-safe cells, `csv.rs`) or JSON.

pub mod csv;
pub mod routes;
pub mod store;
