pub mod message;
pub mod onboarding;
pub mod report;
pub mod session;
pub mod webhook_delivery;
