pub mod kyc_verification;
pub mod otp_failure;
pub mod refresh_token;
pub mod session;
pub mod temp_token;
pub mod user;
