pub mod job;
pub mod otp_code;
