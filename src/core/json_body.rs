//! `Json<T>`: a JSON request body whose type errors name the field at fault
//! (`recipients[3].to: invalid type: integer `5`, expected a string`), where
//! actix's own extractor only gives a line and column.
//!
//! Content type, size limit and JSON syntax are still checked by actix's extractor
//! (configured by `extractor_config`); only the typed step runs here, through
//! `serde_path_to_error`. Every failure is an [`ApiError`] the service's envelope renders.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::error::ApiError;

/// A deserialised JSON request body (use like `web::Json`).
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Json<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let raw = web::Json::<Box<RawValue>>::from_request(req, payload);
        Box::pin(async move {
            let raw = raw.await?.into_inner();
            // Every body is an object; serde would read a struct from an array by position.
            if raw.get().trim_start().starts_with('[') {
                return Err(ApiError::bad_request(
                    "invalid request body: expected a JSON object, found an array",
                )
                .into());
            }
            let mut de = serde_json::Deserializer::from_str(raw.get());
            serde_path_to_error::deserialize(&mut de)
                .map(Json)
                .map_err(|e| refusal(&e).into())
        })
    }
}

/// The refusal of a body of the wrong type, naming the field at fault in `details.field`
/// too (as a validation error does) when it is not the whole body.
fn refusal(e: &serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    let refused = ApiError::bad_request(describe(e));
    match e.path().to_string() {
        path if path == "." => refused,
        path => refused.detail("field", path),
    }
}

fn describe(e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = e.path().to_string();
    // serde_json appends " at line L column C"; the field path says more.
    let inner = e.inner().to_string();
    let inner = inner
        .rsplit_once(" at line ")
        .map_or(inner.as_str(), |(head, _)| head);
    if path == "." {
        format!("invalid request body: {inner}")
    } else {
        format!("invalid request body: {path}: {inner}")
    }
}
