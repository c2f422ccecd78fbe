//! `/media/videos/{token}`: a personalised video by its signed link, without a bearer token,
//! in whole or by HTTP range (206), as players and download managers ask.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::state::AdvertisingState;
use super::links::LinkError;
use crate::core::error::{ApiError, Kind};
use crate::providers::storage::{ByteRange, StorageError, StorageKey};
use actix_web::http::header;
use actix_web::{get, web, HttpRequest, HttpResponse};
use futures_util::TryStreamExt;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::advertising::subscription;

/// The video a signed link opens. `Range: bytes=a-b` answers 206 with `Content-Range`; a
/// range past the end answers 416.
#[utoipa::path(tag = "media", params(("token" = String, Path, description = "from GET /subscriptions/{id}/video")),
    responses((status = 200, description = "the whole video", content_type = "video/mp4"),
              (status = 206, description = "the requested range", content_type = "video/mp4"),
              (status = 416, description = "the range starts past the end"), Errors))]
#[get("/media/videos/{token}")]
pub async fn video_file(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    token: web::Path<String>,
) -> Result<HttpResponse> {
    let id = st
        .media
        .links
        .open(&token, st.core.now())
        .map_err(|e| match e {
            LinkError::Invalid => ApiError::from(AdvertisingError::NotFound(Record::Video)),
            LinkError::Expired => {
                ApiError::new(Kind::Gone, "this video link has expired; ask for a new one")
                    .code("link_expired")
            }
        })?;
    let key = subscription::Entity::find_by_id(id)
        .filter(subscription::Column::Status.eq("ready"))
        .one(&st.core.db)
        .await?
        .and_then(|s| s.video_key)
        .ok_or(AdvertisingError::NotFound(Record::Video))?;
    let key = StorageKey::parse(&key).map_err(ApiError::internal)?;
    let range = req
        .headers()
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(ByteRange::from_header);
    let read = match st.media.storage.read_range(&key, range).await {
        Ok(read) => read,
        Err(StorageError::RangeNotSatisfiable { total }) => {
            return Ok(HttpResponse::RangeNotSatisfiable()
                .insert_header((header::CONTENT_RANGE, format!("bytes */{total}")))
                .insert_header((header::ACCEPT_RANGES, "bytes"))
                .finish());
        }
        Err(StorageError::NotFound(_)) => {
            return Err(AdvertisingError::NotFound(Record::Video).into())
        }
        Err(e) => return Err(ApiError::internal(e)),
    };
    let mut res = if range.is_some() {
        let mut r = HttpResponse::PartialContent();
        r.insert_header((header::CONTENT_RANGE, read.content_range()));
        r
    } else {
        HttpResponse::Ok()
    };
    res.insert_header((header::CONTENT_TYPE, key.content_type()))
        .insert_header((header::ACCEPT_RANGES, "bytes"))
        .insert_header((header::CACHE_CONTROL, "private, max-age=3600"))
        .no_chunking(read.len());
    Ok(res.streaming(
        read.body
            .map_err(actix_web::error::ErrorInternalServerError),
    ))
}
