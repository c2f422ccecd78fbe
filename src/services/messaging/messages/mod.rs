//! Messages: the send, bulk and read routes, their parsed values, and a message's way to its
//! provider (dispatch, hand-over, status moves, delivery reports and reconciliation).

pub mod dispatch;
pub mod dispatch_job;
pub mod domain;
pub mod dto;
pub mod handover;
pub mod reports;
pub mod routes;
pub mod status;
pub mod store;
