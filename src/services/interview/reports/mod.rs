//! A completed session's report: JSON for the backend or the candidate, and the PDF.

pub mod dto;
pub(crate) mod pdf;
pub mod routes;
pub mod store;
