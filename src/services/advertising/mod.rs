//! Advertising service (issue 21). Only its places data so far; the service itself arrives
//! with the lead's branch, which replaces this file.

pub mod places;
