//! A campaign's fields as sent, in a JSON body (the video an https URL) or a multipart form
//! (the video a file part of at most `max_video_bytes`; the other fields text parts,
//! `demographics` a JSON string). Both become the same [`Fields`]; unknown keys and wrong
//! types are 400 naming the field.

use super::super::error::{AdvertisingError, Result};
use super::super::state::AdvertisingState;
use super::super::wire::{parse_usd, Cents};
use crate::core::error::{ApiError, Kind};
use actix_multipart::Multipart;
use actix_web::{web, HttpRequest};
use futures_util::{StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::io::AsyncWriteExt;

/// Largest JSON body (the video comes as a URL there).
const MAX_JSON: usize = 64 * 1024;
/// Largest text part of a form.
const MAX_TEXT_PART: usize = 8 * 1024;
const KEYS: [&str; 8] = [
    "title",
    "description",
    "video",
    "budgetUsd",
    "payoutUsd",
    "countryCode",
    "categoryId",
    "demographics",
];
const GENDERS: [&str; 3] = ["male", "female", "other"];

/// The audience asked for: stored and shown as given (after checks).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Demographics {
    /// 13 to 100.
    pub age_min: u8,
    /// `ageMin` to 100.
    pub age_max: u8,
    /// Any of `male`, `female`, `other`; empty for everyone.
    pub genders: Vec<String>,
}

/// Where the video comes from.
pub enum Video {
    /// An https URL, fetched by the job.
    Url(String),
    /// An uploaded file, not yet stored.
    Upload(tempfile::TempPath),
}

/// What was sent; every field optional here (creation requires some, an edit none).
#[derive(Default)]
pub struct Fields {
    pub title: Option<String>,
    /// `Some(None)`: cleared.
    pub description: Option<Option<String>>,
    pub video: Option<Video>,
    pub budget: Option<Cents>,
    pub payout: Option<Cents>,
    pub country: Option<String>,
    pub category: Option<Option<String>>,
    pub demographics: Option<Demographics>,
}

fn invalid(field: &'static str, message: impl Into<String>) -> ApiError {
    AdvertisingError::invalid(field, message).into()
}

fn field_name(key: &str) -> Result<&'static str> {
    KEYS.iter().find(|k| **k == key).copied().ok_or_else(|| {
        ApiError::bad_request(format!("unknown field `{key}`")).detail("field", key.to_owned())
    })
}

fn string(field: &'static str, v: &Value) -> Result<String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| invalid(field, "must be a string"))
}

fn demographics(v: &Value) -> Result<Demographics> {
    let parsed = match v {
        // A form sends it as JSON text.
        Value::String(s) => serde_json::from_str::<Value>(s)
            .map_err(|_| invalid("demographics", "must be a JSON object"))?,
        other => other.clone(),
    };
    let d: Demographics = serde_json::from_value(parsed).map_err(|e| {
        invalid(
            "demographics",
            format!("must be {{ageMin, ageMax, genders}}: {e}"),
        )
    })?;
    if d.age_min < 13 || d.age_max > 100 || d.age_min > d.age_max {
        return Err(invalid(
            "demographics",
            "ageMin and ageMax must be 13 to 100, ageMin at most ageMax",
        ));
    }
    if d.genders.iter().any(|g| !GENDERS.contains(&g.as_str())) {
        return Err(invalid(
            "demographics",
            format!("genders must be any of {}", GENDERS.join(", ")),
        ));
    }
    Ok(d)
}

/// Reads one key of the body into `f`.
fn set(f: &mut Fields, key: &str, v: &Value) -> Result<()> {
    let field = field_name(key)?;
    let optional = |v: &Value| -> Result<Option<String>> {
        match v {
            Value::Null => Ok(None),
            v => Ok(Some(string(field, v)?.trim().to_owned()).filter(|s| !s.is_empty())),
        }
    };
    match field {
        "title" => {
            f.title = Some(super::super::advertisers::domain::text(
                "title",
                &string(field, v)?,
                120,
            )?)
        }
        "description" => {
            let d = optional(v)?;
            if d.as_ref().is_some_and(|d| d.chars().count() > 2000) {
                return Err(invalid(field, "must be at most 2000 characters"));
            }
            f.description = Some(d);
        }
        "video" => {
            let url = super::super::fields::https_url("video", &string(field, v)?)?;
            f.video = Some(Video::Url(url));
        }
        "budgetUsd" => f.budget = Some(parse_usd(field, v)?),
        "payoutUsd" => f.payout = Some(parse_usd(field, v)?),
        "countryCode" => {
            f.country = Some(super::super::advertisers::domain::country_code(
                field,
                &string(field, v)?,
            )?)
        }
        "categoryId" => f.category = Some(optional(v)?),
        _ => f.demographics = Some(demographics(v)?),
    }
    Ok(())
}

fn from_object(map: &Map<String, Value>) -> Result<Fields> {
    let mut f = Fields::default();
    for (k, v) in map {
        set(&mut f, k, v)?;
    }
    Ok(f)
}

fn bad_form(e: impl std::fmt::Display) -> ApiError {
    invalid("video", format!("unreadable multipart form: {e}"))
}

/// Reads the form; the video part streams to a temporary file, refused (413) as soon as it
/// passes `max` bytes.
async fn from_form(mut form: Multipart, max: u64) -> Result<Fields> {
    let mut f = Fields::default();
    while let Some(mut part) = form.try_next().await.map_err(bad_form)? {
        let name = part.name().unwrap_or_default().to_owned();
        let is_file = part
            .content_disposition()
            .is_some_and(|cd| cd.get_filename().is_some());
        if name == "video" && is_file {
            let tmp = tempfile::NamedTempFile::new().map_err(ApiError::internal)?;
            let (file, path) = tmp.into_parts();
            let mut out = tokio::fs::File::from_std(file);
            let mut written = 0u64;
            while let Some(chunk) = part.try_next().await.map_err(bad_form)? {
                written += chunk.len() as u64;
                if written > max {
                    return Err(AdvertisingError::TooLarge(format!(
                        "a video may be at most {max} bytes"
                    ))
                    .into());
                }
                out.write_all(&chunk).await.map_err(ApiError::internal)?;
            }
            out.flush().await.map_err(ApiError::internal)?;
            if written == 0 {
                return Err(invalid("video", "the uploaded file is empty"));
            }
            f.video = Some(Video::Upload(path));
            continue;
        }
        let mut buf = Vec::new();
        while let Some(chunk) = part.try_next().await.map_err(bad_form)? {
            if buf.len() + chunk.len() > MAX_TEXT_PART {
                return Err(invalid(field_name(&name)?, "is too long"));
            }
            buf.extend_from_slice(&chunk);
        }
        let field = field_name(&name)?;
        let text = String::from_utf8(buf).map_err(|_| invalid(field, "must be UTF-8 text"))?;
        set(&mut f, &name, &Value::String(text))?;
    }
    Ok(f)
}

/// The campaign's fields from either kind of body.
pub async fn read(
    st: &AdvertisingState,
    req: &HttpRequest,
    mut payload: web::Payload,
) -> Result<Fields> {
    let ct = req
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if ct.starts_with("multipart/form-data") {
        let form = Multipart::new(req.headers(), payload);
        return from_form(form, st.cfg.max_video_bytes).await;
    }
    if !ct.starts_with("application/json") {
        return Err(ApiError::new(
            Kind::UnsupportedMediaType,
            "send application/json (the video as an https URL) or multipart/form-data (the video as a file)",
        )
        .code("unsupported_media_type"));
    }
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::bad_request(e.to_string()))?;
        if body.len() + chunk.len() > MAX_JSON {
            return Err(AdvertisingError::TooLarge(format!(
                "a JSON body may be at most {MAX_JSON} bytes"
            ))
            .into());
        }
        body.extend_from_slice(&chunk);
    }
    let value: Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))?;
    let map = value
        .as_object()
        .ok_or_else(|| ApiError::bad_request("invalid request body: expected a JSON object"))?;
    from_object(map)
}
