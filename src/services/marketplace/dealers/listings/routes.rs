//! A dealer's listings: the public list (`GET /dealers/{id}/cars`), the dealer's statistics
//! (`GET /dealers/stats`) and the export of their listings as CSV or JSON
//! (`GET /dealers/export/cars`), streamed as it is read.

use crate::core::auth::{Bearer, DealerRole};
use crate::services::marketplace::auth::user_id;
use crate::services::marketplace::cars::domain::STATUS;
use crate::services::marketplace::cars::dto::Car;
use crate::services::marketplace::cars::store as cars;
use crate::services::marketplace::dealers::dto::Audience;
use crate::services::marketplace::dealers::listings::csv::record;
use crate::services::marketplace::dealers::listings::store::{self, DealerStats, ExportFilter};
use crate::services::marketplace::dealers::profiles::store as profiles;
use crate::services::marketplace::dealers::store::dealer_id;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::{list, ok, List, PageParams, Success};
use actix_web::http::header::{ContentDisposition, DispositionParam, DispositionType};
use actix_web::web::Bytes;
use actix_web::{get, web, HttpResponse};
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use futures_util::{StreamExt, TryStreamExt};
use serde::Deserialize;
use switchboard_entities::marketplace::car;
use utoipa::IntoParams;

#[utoipa::path(tag = "dealers",
    params(("id" = String, Path, description = "The dealer's id"), PageParams),
    responses((status = 200, body = List<Car>), Errors))]
#[get("/dealers/{id}/cars")]
pub async fn dealer_cars(
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let dealer = dealer_id(&id)?;
    let window = paging.window()?;
    // Only an approved dealer has a page; their cars for sale are the active ones.
    profiles::dealer(&st.core.db, dealer, Audience::Public).await?;
    let page = cars::mine(&st, dealer, Some(car::CarStatus::Active), window).await?;
    Ok(HttpResponse::Ok().json(list(page.map(Car::from))))
}

#[utoipa::path(tag = "dealers", security(("bearer" = [])),
    responses((status = 200, body = Success<DealerStats>), Errors))]
#[get("/dealers/stats")]
pub async fn stats(
    auth: Bearer<DealerRole>,
    st: web::Data<MarketplaceState>,
) -> Result<HttpResponse> {
    let stats = store::stats(&st, user_id(&auth)?).await?;
    Ok(HttpResponse::Ok().json(ok(stats)))
}

/// `GET /dealers/export/cars` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ExportParams {
    /// csv (default) or json.
    pub format: Option<String>,
    /// First creation day included (YYYY-MM-DD, UTC).
    pub date_from: Option<String>,
    /// Last creation day included (YYYY-MM-DD, UTC).
    pub date_to: Option<String>,
    /// active, sold or reserved; all when absent.
    pub status: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    Json,
}

fn day(field: &'static str, raw: &str) -> Result<NaiveDate, MarketplaceError> {
    NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        .map_err(|_| MarketplaceError::invalid(field, raw, format!("{field} must be YYYY-MM-DD")))
}

fn midnight(d: NaiveDate) -> DateTime<Utc> {
    d.and_time(chrono::NaiveTime::MIN).and_utc()
}

impl ExportParams {
    fn parse(&self, dealer: uuid::Uuid) -> Result<(Format, ExportFilter), MarketplaceError> {
        let format = match self.format.as_deref() {
            None | Some("csv") => Format::Csv,
            Some("json") => Format::Json,
            Some(other) => {
                return Err(MarketplaceError::invalid(
                    "format",
                    other,
                    "format must be csv or json",
                ))
            }
        };
        let from = self
            .date_from
            .as_deref()
            .map(|d| day("dateFrom", d))
            .transpose()?;
        let to = self
            .date_to
            .as_deref()
            .map(|d| day("dateTo", d))
            .transpose()?;
        if let (Some(f), Some(t), Some(raw)) = (from, to, self.date_from.as_deref()) {
            if f > t {
                return Err(MarketplaceError::invalid(
                    "dateFrom",
                    raw,
                    "dateFrom must not be after dateTo",
                ));
            }
        }
        let status = self
            .status
            .as_deref()
            .map(|s| STATUS.state(s))
            .transpose()?;
        let filter = ExportFilter {
            dealer,
            from: from.map(midnight),
            // dateTo is a whole day: the export runs to the next midnight.
            until: to.and_then(|t| t.succ_opt()).map(midnight),
            status,
        };
        Ok((format, filter))
    }
}

const CSV_HEADER: [&str; 18] = [
    "id",
    "make",
    "model",
    "year",
    "price",
    "mileage",
    "fuelType",
    "transmission",
    "bodyType",
    "color",
    "condition",
    "status",
    "features",
    "viewCount",
    "inquiryCount",
    "description",
    "createdAt",
    "soldAt",
];

fn csv_row(c: &car::Model) -> String {
    let features: Vec<String> = serde_json::from_value(c.features.clone()).unwrap_or_default();
    record([
        c.id.to_string(),
        c.make.clone(),
        c.model.clone(),
        c.year.to_string(),
        c.price.to_string(),
        c.mileage.to_string(),
        c.fuel_type.clone(),
        c.transmission.clone(),
        c.body_type.clone(),
        c.color.clone(),
        c.condition.clone(),
        c.status.to_string(),
        features.join("; "),
        c.view_count.to_string(),
        c.inquiry_count.to_string(),
        c.description.clone(),
        timestamp(c.created_at),
        c.sold_at.map(timestamp).unwrap_or_default(),
    ])
}

/// A time as the JSON answers write it (`2026-11-26T16:00:00Z`, fractions only when there
/// are some), so a CSV and a JSON export of one listing agree.
fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// One page of the export as bytes; JSON pages after the first continue the array.
fn render(format: Format, index: usize, page: Vec<car::Model>) -> Bytes {
    match format {
        Format::Csv => Bytes::from(page.iter().map(csv_row).collect::<String>()),
        Format::Json => {
            let items: Vec<String> = page
                .into_iter()
                .map(|c| serde_json::to_string(&Car::from(c)).unwrap_or_default())
                .collect();
            let lead = if index == 0 { "" } else { "," };
            Bytes::from(format!("{lead}{}", items.join(",")))
        }
    }
}

#[utoipa::path(tag = "dealers", security(("bearer" = [])), params(ExportParams),
    responses((status = 200, description = "text/csv (RFC 4180) or a JSON array of Car, as an attachment"),
              Errors))]
#[get("/dealers/export/cars")]
pub async fn export(
    auth: Bearer<DealerRole>,
    st: web::Data<MarketplaceState>,
    q: web::Query<ExportParams>,
) -> Result<HttpResponse> {
    let (format, filter) = q.parse(user_id(&auth)?)?;
    let (head, tail, content_type, ext) = match format {
        Format::Csv => (
            record(CSV_HEADER),
            String::new(),
            "text/csv; charset=utf-8",
            "csv",
        ),
        Format::Json => ("[".to_owned(), "]".to_owned(), "application/json", "json"),
    };
    let body = store::export_pages(st.core.db.clone(), filter)
        .enumerate()
        .map(move |(i, page)| page.map(|p| render(format, i, p)))
        .inspect_err(|e| tracing::warn!(error = %e, "dealer export stopped by a database error"));
    let body = futures_util::stream::once(async move { Ok(Bytes::from(head)) })
        .chain(body)
        .chain(futures_util::stream::once(
            async move { Ok(Bytes::from(tail)) },
        ));
    let filename = format!("cars-{}.{ext}", st.core.now().format("%Y%m%d"));
    Ok(HttpResponse::Ok()
        .content_type(content_type)
        .insert_header(ContentDisposition {
            disposition: DispositionType::Attachment,
            parameters: vec![DispositionParam::Filename(filename)],
        })
        .streaming(body))
}
