//! Parsed inputs every feature of the marketplace shares (phones, required fields, names,
//! free text, websites, ids in bodies): each answers a value that obeys its rule or a
//! `validation_error` naming the field.

use crate::core::phone::PhoneNumber;
use crate::services::marketplace::error::MarketplaceError;
use uuid::Uuid;

const MAX_NAME_CHARS: usize = 100;

pub fn phone(raw: &str) -> Result<PhoneNumber, MarketplaceError> {
    PhoneNumber::parse(raw).map_err(|e| MarketplaceError::invalid("phone", raw, e.to_string()))
}

/// A business phone: E.164, reported under `businessPhone`.
pub fn business_phone(raw: &str) -> Result<String, MarketplaceError> {
    PhoneNumber::parse(raw)
        .map(|p| p.as_str().to_owned())
        .map_err(|_| {
            MarketplaceError::invalid(
                "businessPhone",
                raw,
                "businessPhone must be in international format",
            )
        })
}

/// A required field: absent and blank both fail naming the field.
pub fn required<'a>(
    field: &'static str,
    v: &'a Option<String>,
) -> Result<&'a str, MarketplaceError> {
    match v.as_deref() {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => Err(MarketplaceError::Validation {
            field,
            value: v.clone(),
            message: format!("{field} is required"),
        }),
    }
}

/// A display name: 1 to 100 printable characters after trimming.
pub fn name(raw: &str) -> Result<String, MarketplaceError> {
    let v = raw.trim();
    let n = v.chars().count();
    if n == 0 || n > MAX_NAME_CHARS || v.chars().any(char::is_control) {
        return Err(MarketplaceError::invalid(
            "name",
            raw,
            format!("name must be 1 to {MAX_NAME_CHARS} printable characters"),
        ));
    }
    Ok(v.to_owned())
}

/// A free-text field: trimmed, 1 to `max` characters, no control characters but line breaks.
pub fn text(field: &'static str, raw: &str, max: usize) -> Result<String, MarketplaceError> {
    let v = raw.trim();
    let n = v.chars().count();
    let printable = v.chars().all(|c| !c.is_control() || c == '\n');
    if n == 0 || n > max || !printable {
        return Err(MarketplaceError::invalid(
            field,
            raw,
            format!("{field} must be 1 to {max} printable characters"),
        ));
    }
    Ok(v.to_owned())
}

/// A website: an absolute http(s) URL with a host, at most 2048 characters.
pub fn website(raw: &str) -> Result<String, MarketplaceError> {
    let v = raw.trim();
    let ok = v.len() <= 2048
        && url::Url::parse(v)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
    if ok {
        Ok(v.to_owned())
    } else {
        Err(MarketplaceError::invalid(
            "website",
            raw,
            "website must be an http or https URL",
        ))
    }
}

/// An id field of a body: required and well formed.
pub fn body_id(field: &'static str, raw: &Option<String>) -> Result<Uuid, MarketplaceError> {
    let v = required(field, raw)?;
    Uuid::parse_str(v.trim())
        .map_err(|_| MarketplaceError::invalid(field, v, format!("{field} is not a valid id")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_and_websites() {
        assert_eq!(text("location", " Berlin ", 10).unwrap(), "Berlin");
        assert!(text("location", "", 10).is_err());
        assert!(text("location", "x\u{7}", 10).is_err());
        assert!(text("location", &"x".repeat(11), 10).is_err());
        assert!(website("https://cars.example.com/a").is_ok());
        for bad in ["ftp://x.example", "cars.example.com", "https://"] {
            assert!(website(bad).is_err(), "{bad}");
        }
    }
}
