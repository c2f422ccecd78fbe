//! The advertising platform: posters, advertisers and administrators and their sessions, ads, subscriptions, screenshots,
//! the money ledger and support tickets.

pub mod ad;
pub mod ad_view;
pub mod admin;
pub mod admin_recovery_code;
pub mod admin_totp;
pub mod advertiser;
pub mod advertiser_token;
pub mod balance;
pub mod category;
pub mod device_token;
pub mod invoice;
pub mod ledger_entry;
pub mod payment;
pub mod payment_event;
pub mod phone_guard;
pub mod poster;
pub mod screenshot;
pub mod session;
pub mod signin_guard;
pub mod subscription;
pub mod support_message;
pub mod support_ticket;
pub mod transaction;
pub mod withdrawal;
