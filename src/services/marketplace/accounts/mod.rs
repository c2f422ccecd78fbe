//! Accounts (`/auth/*`): sign-up with phone verification, login, token refresh and logout,
//! password reset, code resends, and the first administrator.

pub mod domain;
pub mod dto;
pub mod otp;
pub mod routes;
pub mod store;
pub mod tokens;
