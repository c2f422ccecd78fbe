//! Signing up and in: one-time codes by SMS, sign-up, sign-in with lockout, PIN reset.

pub mod domain;
pub mod dto;
pub mod otp;
pub mod routes;
pub mod service;
