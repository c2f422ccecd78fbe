//! Consent: recipients who opt out are not sent to again. Keywords texted to a workspace's
//! number (STOP, START, HELP), the suppression list and its audit trail, one-click
//! unsubscribe links in bulk mail, and the email provider's bounces and complaints.

pub mod bounces;
pub mod domain;
pub mod dto;
pub mod keywords;
pub mod routes;
pub mod store;
pub mod unsubscribe;
