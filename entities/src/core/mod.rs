pub mod actor_lease;
pub mod job;
pub mod otp_code;
