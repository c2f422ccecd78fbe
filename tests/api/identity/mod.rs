mod auth;
mod framework;
mod kyc;
mod lockout;
mod spec_fields;
mod tokens;
mod users;
