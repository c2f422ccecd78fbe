pub mod actor_lease;
pub mod job;
pub mod node;
pub mod otp_code;
