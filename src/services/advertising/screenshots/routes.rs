//! /screenshots: a poster's proof that they posted their video, checked in the background.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::sessions::{self, PosterBearer};
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data, List, StatusPage};
use super::dto::*;
use super::store::{self, Upload};
use crate::core::error::ApiError;
use crate::providers::screenshot::{self, ScreenshotError, ScreenshotFormat};
use crate::providers::storage::StorageKey;
use actix_multipart::Multipart;
use actix_web::{get, post, web, HttpResponse};
use bytes::{Bytes, BytesMut};
use futures_util::TryStreamExt;
use switchboard_entities::advertising::screenshot::Entity as Shots;
use uuid::Uuid;

/// The parts an upload's picture may come in.
const FILE_PARTS: [&str; 3] = ["screenshot", "image", "file"];

/// The form as read: the subscription and the picture's bytes.
struct Form {
    subscription_id: Option<String>,
    file: Option<Bytes>,
}

fn bad_form(e: impl std::fmt::Display) -> ApiError {
    AdvertisingError::invalid("screenshot", format!("unreadable multipart form: {e}")).into()
}

/// Reads the form, refusing a picture over `max` bytes (413) as soon as it passes it.
async fn read_form(mut form: Multipart, max: usize) -> Result<Form> {
    let mut out = Form {
        subscription_id: None,
        file: None,
    };
    while let Some(mut field) = form.try_next().await.map_err(bad_form)? {
        let name = field.name().unwrap_or_default().to_owned();
        let is_file = FILE_PARTS.contains(&name.as_str());
        // Text fields are small; anything else is read only as far as the picture's limit.
        let cap = if is_file { max } else { 1024 };
        let mut buf = BytesMut::new();
        while let Some(chunk) = field.try_next().await.map_err(bad_form)? {
            if buf.len() + chunk.len() > cap {
                if is_file {
                    return Err(AdvertisingError::TooLarge(format!(
                        "a screenshot may be at most {max} bytes"
                    ))
                    .into());
                }
                return Err(AdvertisingError::invalid("subscriptionId", "is too long").into());
            }
            buf.extend_from_slice(&chunk);
        }
        if is_file && out.file.is_none() {
            out.file = Some(buf.freeze());
        } else if name == "subscriptionId" {
            out.subscription_id = Some(String::from_utf8_lossy(&buf).trim().to_owned());
        }
    }
    Ok(out)
}

/// Submits a screenshot of a ready subscription (multipart: `subscriptionId` and the file
/// in `screenshot`). The ad's payout is reserved now and earned when it is approved.
#[utoipa::path(tag = "screenshots",
    request_body(content = ScreenshotUpload, content_type = "multipart/form-data"),
    responses((status = 200, body = Data<ScreenshotView>), Errors), security(("bearer" = [])))]
#[post("/screenshots")]
pub async fn submit_screenshot(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    form: Multipart,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let form = read_form(form, st.cfg.max_screenshot_bytes).await?;
    let sub = form
        .subscription_id
        .filter(|s| !s.is_empty())
        .ok_or_else(|| AdvertisingError::invalid("subscriptionId", "is required"))?;
    let sub =
        Uuid::parse_str(&sub).map_err(|_| AdvertisingError::NotFound(Record::Subscription))?;
    let bytes = form.file.filter(|b| !b.is_empty()).ok_or_else(|| {
        AdvertisingError::invalid("screenshot", "a file part named screenshot is required")
    })?;
    let format = ScreenshotFormat::sniff(&bytes).ok_or_else(|| {
        AdvertisingError::invalid("screenshot", "must be a PNG, JPEG or WebP picture")
    })?;
    let checked = bytes.clone();
    let info = web::block(move || screenshot::inspect(&checked))
        .await?
        .map_err(|e| match e {
            ScreenshotError::Implausible { width, height } => AdvertisingError::invalid(
                "screenshot",
                format!("a {width}×{height} picture is not a phone screenshot (each side 200 to 10000 pixels)"),
            ),
            other => AdvertisingError::invalid("screenshot", other.to_string()),
        })?;
    let id = Uuid::new_v4();
    let key = StorageKey::parse(&format!(
        "screenshots/{}.{}",
        id.simple(),
        format.extension()
    ))
    .map_err(ApiError::internal)?;
    st.media
        .storage
        .put(&key, bytes)
        .await
        .map_err(ApiError::internal)?;
    let upload = Upload {
        id,
        image_key: key.as_str().to_owned(),
        content_type: format.mime(),
        width: info.width,
        height: info.height,
        hash: info.hash,
    };
    match store::submit(&st, poster.id, sub, upload).await {
        Ok(shot) => Ok(ok(ScreenshotView::from(&shot))),
        Err(e) => {
            // Refused: the picture is not kept.
            if let Err(del) = st.media.storage.delete(&key).await {
                tracing::warn!(error = %del, key = %key, "refused screenshot left in storage");
            }
            Err(e)
        }
    }
}

#[utoipa::path(tag = "screenshots", params(StatusPage),
    responses((status = 200, body = Data<List<ScreenshotView>>), Errors), security(("bearer" = [])))]
#[get("/screenshots")]
pub async fn list_screenshots(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    q: web::Query<StatusPage>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let window = q.window()?;
    let wanted = q.status_of::<store::ScreenshotStatus>()?;
    let page = super::super::owned::list::<Shots>(&st, poster.id, wanted, window).await?;
    Ok(ok(List::from(page.map(|s| ScreenshotView::from(&s)))))
}

#[utoipa::path(tag = "screenshots", params(("id" = String, Path)),
    responses((status = 200, body = Data<ScreenshotView>), Errors), security(("bearer" = [])))]
#[get("/screenshots/{id}")]
pub async fn one_screenshot(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    Ok(ok(ScreenshotView::from(
        &super::super::owned::get::<Shots>(&st, poster.id, &id).await?,
    )))
}

#[utoipa::path(tag = "screenshots", params(("id" = String, Path)),
    responses((status = 200, body = Data<ScreenshotStatus>), Errors), security(("bearer" = [])))]
#[get("/screenshots/{id}/status")]
pub async fn screenshot_status(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let s = super::super::owned::get::<Shots>(&st, poster.id, &id).await?;
    Ok(ok(ScreenshotStatus {
        id: s.id.to_string(),
        status: s.status.as_str().to_owned(),
        reason: s.reason,
        reason_code: s.reason_code,
        decided_at: s.decided_at,
    }))
}
