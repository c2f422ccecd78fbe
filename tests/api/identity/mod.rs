mod auth;
mod framework;
mod kyc;
mod tokens;
mod users;
