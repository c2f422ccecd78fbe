mod auth;
mod framework;
mod kyc;
mod otp_cap;
mod tokens;
mod users;
