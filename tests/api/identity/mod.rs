mod auth;
mod framework;
mod kyc;
mod lockout;
mod tokens;
mod users;
