//! The candidate's page at interview_url and its script (`assets/`).

pub mod routes;
