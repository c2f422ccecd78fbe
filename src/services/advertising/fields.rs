//! Fields several features parse alike: a country named by id or code, an e-mail address
//! and an https URL, each refused in the service's envelope naming the field.

use super::error::{AdvertisingError, Record, Result};
use super::places::data::{self, Country};

/// `countryId`: a country's id or its alpha-2 (or alpha-3) code, any case.
pub fn country(field: &'static str, raw: &str) -> Result<&'static Country> {
    if raw.trim().is_empty() {
        return Err(AdvertisingError::invalid(field, "is required").into());
    }
    data::country(raw).ok_or_else(|| AdvertisingError::NotFound(Record::Country).into())
}

/// `email` (`core::email`), lowercased: one account per address however it is typed.
pub fn email(raw: &str) -> Result<String> {
    crate::core::email::EmailAddress::parse(raw)
        .map(|e| e.lowercased())
        .map_err(|_| AdvertisingError::invalid("email", "must be a valid email address").into())
}

/// An https URL field (`avatarUrl`, `website`, a video): a host, at most 2048 characters.
pub fn https_url(field: &'static str, raw: &str) -> Result<String> {
    let raw = raw.trim();
    let ok = raw.len() <= 2048
        && url::Url::parse(raw).is_ok_and(|u| u.scheme() == "https" && u.host_str().is_some());
    if !ok {
        return Err(AdvertisingError::invalid(field, "must be an https URL").into());
    }
    Ok(raw.to_owned())
}
