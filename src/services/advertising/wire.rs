//! The shapes every endpoint shares: success is `{data: …}`, a list is
//! `{data: {items, page, limit, total}}`, and money is integer cents beside a two-place
//! dollar string (`…Cents`, `…Usd`).

use super::error::{AdvertisingError, Record, Result};
use crate::core::page::{Bounds, Page};
use actix_web::HttpResponse;
use serde::{Deserialize, Serialize};
use switchboard_entities::Words;
use utoipa::ToSchema;

/// Page sizes of every list: 20 by default, at most 100.
pub const PAGES: Bounds = Bounds::new(20, 100);

/// `{data: …}`.
#[derive(Serialize, ToSchema)]
pub struct Data<T> {
    pub data: T,
}

/// 200 with `{data: value}`.
pub fn ok<T: Serialize>(value: T) -> HttpResponse {
    crate::core::http::json(HttpResponse::Ok(), &Data { data: value })
}

/// One page of a list.
#[derive(Serialize, ToSchema)]
pub struct List<T> {
    pub items: Vec<T>,
    pub page: u64,
    pub limit: u64,
    pub total: u64,
}

impl<T> From<Page<T>> for List<T> {
    fn from(p: Page<T>) -> Self {
        Self {
            page: p.number(),
            limit: p.window.limit,
            total: p.total,
            items: p.items,
        }
    }
}

/// The slice `page` (from 1) of `limit` rows asks for.
pub fn window(page: Option<u64>, limit: Option<u64>) -> Result<crate::core::page::Window> {
    crate::core::page::PageQuery {
        limit,
        offset: None,
        page,
    }
    .window(PAGES)
}

/// `page`, `limit` and `status`: a poster's list of their own records.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatusPage {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// One of the record's statuses.
    pub status: Option<String>,
}

impl StatusPage {
    pub fn window(&self) -> Result<crate::core::page::Window> {
        window(self.page, self.limit)
    }

    /// The status asked for, which must be one of `allowed`.
    pub fn status(&self, allowed: &[&str]) -> Result<Option<&str>> {
        one_of("status", self.status.as_deref(), allowed)
    }

    /// The status asked for, as one of `T`'s values.
    pub fn status_of<T: Words>(&self) -> Result<Option<T>> {
        word("status", self.status.as_deref())
    }
}

/// The newest-first page of `select` (rows with `created_at` and a unique `id`).
pub async fn newest_first<E>(
    db: &impl sea_orm::ConnectionTrait,
    select: sea_orm::Select<E>,
    created_at: E::Column,
    id: E::Column,
    window: crate::core::page::Window,
) -> Result<Page<E::Model>>
where
    E: sea_orm::EntityTrait,
    E::Model: sea_orm::FromQueryResult + Sized + Send + Sync,
{
    use sea_orm::QueryOrder;
    crate::core::page::fetch(
        select.order_by_desc(created_at).order_by_desc(id),
        db,
        window,
    )
    .await
}

/// An optional query value that must be one of `allowed` (absent or empty: none).
pub fn one_of<'a>(
    field: &'static str,
    value: Option<&'a str>,
    allowed: &[&str],
) -> Result<Option<&'a str>> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) if allowed.contains(&v) => Ok(Some(v)),
        Some(_) => Err(AdvertisingError::invalid(
            field,
            format!("must be one of {}", allowed.join(", ")),
        )
        .into()),
    }
}

/// An optional query value that must be the word of one of `T`'s values (absent or empty:
/// none); the same error as `one_of`.
pub fn word<T: Words>(field: &'static str, value: Option<&str>) -> Result<Option<T>> {
    Ok(one_of(field, value, T::WORDS)?.and_then(T::parse))
}

/// Cents as dollars with two places (`-12.05`).
pub fn usd(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// An amount of money in integer cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cents(pub i64);

/// Dollars a client sent (`12.5`, `"12.50"`): more than zero, at most two places, parsed
/// from the number's text so no float rounding creeps in.
pub fn parse_usd(field: &'static str, raw: &serde_json::Value) -> Result<Cents> {
    let text = match raw {
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.trim().to_owned(),
        serde_json::Value::Null => {
            return Err(AdvertisingError::invalid(field, "is required").into())
        }
        _ => return Err(AdvertisingError::invalid(field, "must be a number of dollars").into()),
    };
    let bad = || {
        AdvertisingError::invalid(
            field,
            "must be dollars above 0 with at most two decimal places",
        )
    };
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (!frac.is_empty() && !digits(frac)) || frac.len() > 2 || whole.len() > 10 {
        return Err(bad().into());
    }
    let whole: i64 = whole.parse().map_err(|_| bad())?;
    let frac: i64 = format!("{frac:0<2}").parse().map_err(|_| bad())?;
    let cents = whole * 100 + frac;
    if cents <= 0 {
        return Err(bad().into());
    }
    Ok(Cents(cents))
}

/// A record's id from a path: anything but a UUID is a record that does not exist.
pub fn parse_id(raw: &str, record: Record) -> Result<uuid::Uuid> {
    uuid::Uuid::parse_str(raw.trim()).map_err(|_| AdvertisingError::NotFound(record).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dollars_parse_exactly_and_print_with_two_places() {
        assert_eq!(parse_usd("amount", &json!(12.5)).unwrap(), Cents(1250));
        assert_eq!(parse_usd("amount", &json!("0.07")).unwrap(), Cents(7));
        assert_eq!(parse_usd("amount", &json!(3)).unwrap(), Cents(300));
        assert_eq!(parse_usd("amount", &json!(0.29)).unwrap(), Cents(29));
        for bad in [
            json!(0),
            json!(-1),
            json!(1.005),
            json!("1e3"),
            json!(true),
            json!(""),
        ] {
            assert!(parse_usd("amount", &bad).is_err(), "{bad}");
        }
        assert_eq!(usd(1250), "12.50");
        assert_eq!(usd(7), "0.07");
        assert_eq!(usd(-305), "-3.05");
    }
}
