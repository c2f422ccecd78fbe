//! Support and notifications: a poster's support tickets with their messages (administrators
//! read and answer them in part 2, so a message names its author's kind and id), and the
//! notifications the platform sends a poster by push and WhatsApp through the job queue.

pub mod admin;
pub mod domain;
pub mod dto;
pub mod notify;
pub mod routes;
pub mod store;
