pub mod car;
pub mod dealer_application;
pub mod otp_code;
pub mod refresh_token;
pub mod reset_token;
pub mod search_term;
pub mod user;
