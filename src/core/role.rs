//! The roles an access token can carry: what its bearer may act as. Tokens carry them
//! (`core::jwt`), sessions keep them current (`core::session`) and the bearer extractors check
//! them (`core::auth`).

use serde::{Deserialize, Serialize};

/// What an access token lets its bearer act as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Dealer,
    Admin,
    Advertiser,
    /// An advertising poster (signed in by phone).
    Poster,
    /// An administrator who moderates users, ads, screenshots and support (advertising).
    Moderator,
    /// An administrator who sees finance and analytics (advertising).
    Finance,
}
