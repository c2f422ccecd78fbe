//! Payments: an advertiser funds an ad's budget through a checkout session of the payments
//! port; the provider's signed webhook settles it (a ledger deposit that funds the ad), and
//! every paid checkout gets an invoice PDF, mailed by the `invoice-email` job.

pub mod dto;
pub mod event;
pub mod invoice;
pub mod refunds;
pub mod routes;
pub mod sandbox;
pub mod store;
pub mod webhook;

use super::error::{AdvertisingError, Record};
use crate::core::error::ApiError;

/// Every payment is in US dollars.
pub const CURRENCY: &str = "usd";

pub fn payment_not_found() -> ApiError {
    AdvertisingError::NotFound(Record::Payment).into()
}

pub fn invoice_not_found() -> ApiError {
    AdvertisingError::NotFound(Record::Invoice).into()
}
