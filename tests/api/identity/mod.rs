mod auth;
mod framework;
mod kyc;
mod lockout;
mod otp_cap;
mod spec_fields;
mod tokens;
mod users;
