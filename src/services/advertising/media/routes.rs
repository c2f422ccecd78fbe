//! `/media/videos/{token}`: a personalised video by its signed link, without a bearer token,
//! in whole or by HTTP range (206), as players and download managers ask; and
//! `/media/staff/{token}`: any stored image or video by a staff link (the admin views hand
//! them out), served the same way.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::state::AdvertisingState;
use super::super::subscriptions::store as subscriptions;
use super::links::LinkError;
use crate::core::error::{ApiError, Kind};
use crate::providers::storage::{ByteRange, StorageError, StorageKey};
use actix_web::http::header;
use actix_web::{get, web, HttpRequest, HttpResponse};
use futures_util::TryStreamExt;

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
    let id = st.media.links.open(&token, st.core.now()).map_err(|e| {
        refused(
            e,
            Record::Video,
            "this video link has expired; ask for a new one",
        )
    })?;
    let key = subscriptions::ready_video(&st.core.db, id)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::Video))?;
    let key = StorageKey::parse(&key).map_err(ApiError::internal)?;
    serve(&req, &st, &key, "private, max-age=3600", Record::Video).await
}

/// A stored object a staff link opens (`imageUrl`, `videoUrl`, `thumbnailUrl` of the admin
/// views), whole or by range. Links expire after `staff_link_ttl_secs`; each opens one object.
#[utoipa::path(tag = "media", params(("token" = String, Path, description = "from an admin view's imageUrl, videoUrl or thumbnailUrl")),
    responses((status = 200, description = "the object", content_type = "application/octet-stream"),
              (status = 206, description = "the requested range"),
              (status = 416, description = "the range starts past the end"), Errors))]
#[get("/media/staff/{token}")]
pub async fn staff_file(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    token: web::Path<String>,
) -> Result<HttpResponse> {
    let key = st
        .media
        .staff_links
        .open_object(&token, st.core.now())
        .map_err(|e| {
            refused(
                e,
                Record::Media,
                "this link has expired; open the record again",
            )
        })?;
    // Evidence is not kept by browsers or proxies.
    serve(&req, &st, &key, "private, no-store", Record::Media).await
}

/// A link that does not open: not ours (`unknown`, 404) or past its expiry (410 saying `expired`).
fn refused(e: LinkError, unknown: Record, expired: &'static str) -> ApiError {
    match e {
        LinkError::Invalid => AdvertisingError::NotFound(unknown).into(),
        LinkError::Expired => ApiError::new(Kind::Gone, expired).code("link_expired"),
    }
}

/// `key` from storage, whole or by the request's range; a missing object is `missing`.
async fn serve(
    req: &HttpRequest,
    st: &AdvertisingState,
    key: &StorageKey,
    cache: &'static str,
    missing: Record,
) -> Result<HttpResponse> {
    let range = req
        .headers()
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(ByteRange::from_header);
    let read = match st.media.storage.read_range(key, range).await {
        Ok(read) => read,
        Err(StorageError::RangeNotSatisfiable { total }) => {
            return Ok(HttpResponse::RangeNotSatisfiable()
                .insert_header((header::CONTENT_RANGE, format!("bytes */{total}")))
                .insert_header((header::ACCEPT_RANGES, "bytes"))
                .finish());
        }
        Err(StorageError::NotFound(_)) => return Err(AdvertisingError::NotFound(missing).into()),
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
        .insert_header((header::CACHE_CONTROL, cache))
        .no_chunking(read.len());
    Ok(res.streaming(
        read.body
            .map_err(actix_web::error::ErrorInternalServerError),
    ))
}
