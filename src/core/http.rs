//! Framework-level failures (malformed JSON, unknown route, wrong method, oversized body)
//! rendered in each service's own error envelope.

use actix_web::dev::ServiceResponse;
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError, UrlencodedError};
use actix_web::http::StatusCode;
use actix_web::middleware::{ErrorHandlerResponse, ErrorHandlers};
use actix_web::{web, HttpRequest, HttpResponse};

/// What went wrong before a handler ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameworkError {
    BadRequest,
    NotFound,
    MethodNotAllowed,
    PayloadTooLarge,
    UnsupportedMediaType,
}

impl FrameworkError {
    pub fn status(self) -> StatusCode {
        match self {
            Self::BadRequest => StatusCode::BAD_REQUEST,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        }
    }
}

/// A service's error envelope.
pub trait Envelope: 'static {
    fn render(kind: FrameworkError, message: String) -> HttpResponse;
}

/// Largest JSON body any service accepts (bulk sends of 1000 recipients fit easily).
pub const MAX_JSON_BYTES: usize = 2 * 1024 * 1024;

fn json_error<E: Envelope>(err: JsonPayloadError, _req: &HttpRequest) -> actix_web::Error {
    let (kind, message) = match &err {
        JsonPayloadError::ContentType => (
            FrameworkError::UnsupportedMediaType,
            "Content-Type must be application/json".to_owned(),
        ),
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => (
            FrameworkError::PayloadTooLarge,
            "request body is too large".to_owned(),
        ),
        JsonPayloadError::Deserialize(e) => (FrameworkError::BadRequest, describe_serde(e)),
        other => (
            FrameworkError::BadRequest,
            format!("malformed request body: {other}"),
        ),
    };
    actix_web::error::InternalError::from_response(err, E::render(kind, message)).into()
}

fn describe_serde(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match e.classify() {
        Category::Data => format!("invalid request body: {e}"),
        _ => "malformed JSON in request body".to_owned(),
    }
}

fn query_error<E: Envelope>(err: QueryPayloadError, _req: &HttpRequest) -> actix_web::Error {
    let message = format!("invalid query string: {err}");
    actix_web::error::InternalError::from_response(
        err,
        E::render(FrameworkError::BadRequest, message),
    )
    .into()
}

fn path_error<E: Envelope>(err: PathError, _req: &HttpRequest) -> actix_web::Error {
    let message = format!("invalid path parameter: {err}");
    actix_web::error::InternalError::from_response(
        err,
        E::render(FrameworkError::BadRequest, message),
    )
    .into()
}

fn form_error<E: Envelope>(err: UrlencodedError, _req: &HttpRequest) -> actix_web::Error {
    let message = format!("invalid form body: {err}");
    actix_web::error::InternalError::from_response(
        err,
        E::render(FrameworkError::BadRequest, message),
    )
    .into()
}

/// Registers extractor configs so that bad input is answered in the service's envelope.
pub fn extractor_config<E: Envelope>(cfg: &mut web::ServiceConfig) {
    cfg.app_data(
        web::JsonConfig::default()
            .limit(MAX_JSON_BYTES)
            .error_handler(json_error::<E>),
    )
    .app_data(super::json_body::BodyErrors::of::<E>())
    .app_data(web::QueryConfig::default().error_handler(query_error::<E>))
    .app_data(web::PathConfig::default().error_handler(path_error::<E>))
    .app_data(
        web::FormConfig::default()
            .limit(256 * 1024)
            .error_handler(form_error::<E>),
    );
}

pub async fn not_found<E: Envelope>(req: HttpRequest) -> HttpResponse {
    E::render(
        FrameworkError::NotFound,
        format!("no route for {} {}", req.method(), req.path()),
    )
}

/// Rewrites the body-less 405 that routing produces into the envelope.
pub fn error_handlers<E: Envelope, B: 'static>() -> ErrorHandlers<B> {
    ErrorHandlers::new().handler(StatusCode::METHOD_NOT_ALLOWED, |res: ServiceResponse<B>| {
        let (req, _) = res.into_parts();
        let message = format!("method {} is not allowed here", req.method());
        let res = ServiceResponse::new(req, E::render(FrameworkError::MethodNotAllowed, message))
            .map_into_right_body::<B>();
        Ok(ErrorHandlerResponse::Response(res))
    })
}

/// Serves a service's OpenAPI document at `/api-docs/openapi.json` and Swagger UI at
/// `/api-docs/` (assets compiled in, so it works offline); `/api-docs` redirects there.
pub fn api_docs(cfg: &mut web::ServiceConfig, doc: utoipa::openapi::OpenApi) {
    cfg.route(
        "/api-docs",
        web::get().to(|| async {
            HttpResponse::MovedPermanently()
                .insert_header(("Location", "/api-docs/"))
                .finish()
        }),
    )
    .service(
        utoipa_swagger_ui::SwaggerUi::new("/api-docs/{_:.*}")
            .url("/api-docs/openapi.json", doc)
            .config(utoipa_swagger_ui::Config::default().validator_url("none")),
    );
}
