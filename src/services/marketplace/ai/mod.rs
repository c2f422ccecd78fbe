//! The AI helpers: listing text and description enhancement for dealers; natural-language
//! search, recommendations, pricing insights, descriptions and the lifestyle quiz. Every
//! number they answer is read from the listings; the writer port only words text.

pub mod dto;
pub mod pricing;
pub mod recommend;
pub mod routes;
pub mod search;
pub mod store;
