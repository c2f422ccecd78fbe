//! Wire shapes every feature of the marketplace shares: the `{success, data}` bodies, the
//! error body, pages and their parameters, and a field sent as a number or as text.

use crate::core::error::ApiError;
use crate::core::page::{Bounds, Page, PageNumbers, PageQuery, Window};
use crate::services::marketplace::error::MarketplaceError;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// `{success: true, message?, data}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Success<T: ToSchema> {
    pub success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub data: T,
}

pub fn ok<T: ToSchema>(data: T) -> Success<T> {
    Success {
        success: true,
        message: None,
        data,
    }
}

pub fn ok_with<T: ToSchema>(message: impl Into<String>, data: T) -> Success<T> {
    Success {
        success: true,
        message: Some(message.into()),
        data,
    }
}

/// An empty `data` object.
#[derive(Debug, Serialize, ToSchema)]
pub struct Empty {}

/// `{success: true, data: [...], pagination}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct List<T: ToSchema> {
    pub success: bool,
    pub data: Vec<T>,
    pub pagination: PageNumbers,
}

pub fn list<T: ToSchema>(page: Page<T>) -> List<T> {
    List {
        success: true,
        pagination: page.page_numbers(),
        data: page.items,
    }
}

/// The spec's page parameters: `page` from 1 (default 1), `limit` (default 10, at most 100).
/// Taken as sent (a query carries text) and read in [`PageParams::window`], so `page=abc`
/// is refused naming `page`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1_000_000)]
    pub page: Option<Scalar>,
    #[param(value_type = Option<u64>, minimum = 1, maximum = 100)]
    pub limit: Option<Scalar>,
}

/// A count parameter (page, limit) as sent, read as a whole number that names its field.
pub fn count(field: &'static str, raw: Option<&Scalar>) -> Result<Option<u64>, MarketplaceError> {
    raw.map(|v| {
        let n = v.integer(field)?;
        u64::try_from(n).map_err(|_| {
            MarketplaceError::invalid(field, &n.to_string(), format!("{field} must be at least 1"))
        })
    })
    .transpose()
}

impl PageParams {
    /// Numbers a body sent as numbers.
    pub fn of(page: Option<u64>, limit: Option<u64>) -> Self {
        Self {
            page: page.map(Scalar::from),
            limit: limit.map(Scalar::from),
        }
    }

    pub fn window(&self) -> Result<Window, ApiError> {
        PageQuery {
            limit: count("limit", self.limit.as_ref())?,
            offset: None,
            page: Some(count("page", self.page.as_ref())?.unwrap_or(1)),
        }
        .window(Bounds::new(10, 100))
    }
}

/// A JSON field sent as a number or as text (query strings carry only text).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Scalar {
    Number(f64),
    Text(String),
}

impl From<u64> for Scalar {
    fn from(n: u64) -> Self {
        Self::Number(n as f64)
    }
}

impl Scalar {
    /// The value as sent, for error details.
    pub fn raw(&self) -> String {
        match self {
            Self::Number(n) => n.to_string(),
            Self::Text(t) => t.clone(),
        }
    }

    pub fn number(&self, field: &'static str) -> Result<f64, MarketplaceError> {
        let n = match self {
            Self::Number(n) => Some(*n),
            Self::Text(t) => t.trim().parse::<f64>().ok(),
        };
        n.filter(|n| n.is_finite()).ok_or_else(|| {
            MarketplaceError::invalid(field, &self.raw(), format!("{field} must be a number"))
        })
    }

    pub fn integer(&self, field: &'static str) -> Result<i64, MarketplaceError> {
        let n = self.number(field)?;
        if n.fract() != 0.0 || n.abs() > 9.0e15 {
            return Err(MarketplaceError::invalid(
                field,
                &self.raw(),
                format!("{field} must be a whole number"),
            ));
        }
        Ok(n as i64)
    }
}
