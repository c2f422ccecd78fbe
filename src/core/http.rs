//! Framework-level failures (malformed JSON, wrong content type, oversized body, wrong
//! method) rendered in each service's own error envelope, the matched route, the health body
//! and the API docs mount. Unknown routes and which methods a path takes: `core::routes`.

use actix_web::body::MessageBody;
use actix_web::dev::{AppService, HttpServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError, UrlencodedError};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::{ErrorHandlerResponse, ErrorHandlers, Next};
use actix_web::{guard, web, FromRequest, Handler, HttpRequest, HttpResponse, Responder};
use serde::Serialize;
use utoipa::openapi::OpenApi;
use utoipa::ToSchema;

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

/// Rewrites the body-less 405 that routing produces into the envelope, keeping its `Allow`.
pub fn error_handlers<E: Envelope, B: 'static>() -> ErrorHandlers<B> {
    ErrorHandlers::new().handler(StatusCode::METHOD_NOT_ALLOWED, |res: ServiceResponse<B>| {
        let allow = res.headers().get(header::ALLOW).cloned();
        let (req, _) = res.into_parts();
        let message = format!("method {} is not allowed here", req.method());
        let mut body = E::render(FrameworkError::MethodNotAllowed, message);
        if let Some(allow) = allow {
            body.headers_mut().insert(header::ALLOW, allow);
        }
        let res = ServiceResponse::new(req, body).map_into_right_body::<B>();
        Ok(ErrorHandlerResponse::Response(res))
    })
}

/// The route pattern the router resolves for this request (`/kyc/verify/{token}`), matched
/// on the path as the router decodes it, so `/auth/%73ignin` is `/auth/signin`. Works
/// before routing too (in middleware). None when no route matches.
pub fn matched_route(req: &HttpRequest) -> Option<String> {
    req.resource_map().match_pattern(req.match_info().as_str())
}

/// `web::resource` that remembers its methods, for routes outside the OpenAPI document (the
/// HTML pages): a wrong method gets a 405 whose `Allow` comes from the same declaration.
pub struct Resource {
    inner: actix_web::Resource,
    allow: Vec<Method>,
}

pub fn resource(path: &str) -> Resource {
    Resource {
        inner: web::resource(path),
        allow: Vec::new(),
    }
}

impl Resource {
    pub fn route<F, Args>(mut self, method: Method, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.inner = self
            .inner
            .route(web::route().method(method.clone()).to(handler));
        self.allow.push(method);
        self
    }

    pub fn get<F, Args>(self, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.route(Method::GET, handler)
    }
}

impl HttpServiceFactory for Resource {
    fn register(self, config: &mut AppService) {
        let allow = self
            .allow
            .iter()
            .map(Method::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        self.inner
            .default_service(web::to(move || {
                let allow = allow.clone();
                async move {
                    HttpResponse::MethodNotAllowed()
                        .insert_header((header::ALLOW, allow))
                        .finish()
                }
            }))
            .register(config)
    }
}

/// Every response of every service: no MIME sniffing, never framed. A handler that sets its
/// own Content-Security-Policy (the HTML pages) keeps it; it must say frame-ancestors too.
pub async fn security_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let h = res.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("frame-ancestors 'none'"),
        );
    }
    Ok(res)
}

/// The one health body of every service. `version` is the service's interface version
/// (what clients code against); `build` the server build.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `healthy`, or `unhealthy` (with status 503) when a check failed.
    pub status: &'static str,
    pub service: &'static str,
    pub version: &'static str,
    pub build: String,
    pub timestamp: chrono::DateTime<chrono::Utc>,
}

impl Health {
    pub fn new(service: &'static str, version: &'static str, ctx: &super::CoreContext) -> Self {
        Self {
            status: "healthy",
            service,
            version,
            build: ctx.settings.server.version.clone(),
            timestamp: ctx.now(),
        }
    }

    /// Marks the body unhealthy unless `up`.
    pub fn checked(mut self, up: bool) -> Self {
        if !up {
            self.status = "unhealthy";
        }
        self
    }

    pub fn response(self) -> HttpResponse {
        if self.status == "healthy" {
            HttpResponse::Ok().json(self)
        } else {
            HttpResponse::ServiceUnavailable().json(self)
        }
    }
}

/// The OpenAPI document collected from a service's routes (app data of its listener).
pub struct ApiDocument(pub OpenApi);

const API_DOCUMENT: &str = "/api-docs/openapi.json";

/// Serves the service's OpenAPI document ([`ApiDocument`]) at `/api-docs/openapi.json` and
/// Swagger UI at `/api-docs/` (assets compiled in, so it works offline); `/api-docs`
/// redirects there.
pub fn api_docs(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/api-docs",
        web::get().to(|| async {
            HttpResponse::MovedPermanently()
                .insert_header(("Location", "/api-docs/"))
                .finish()
        }),
    )
    .service(
        web::resource(API_DOCUMENT)
            .guard(guard::Get())
            .to(|doc: web::Data<ApiDocument>| async move { HttpResponse::Ok().json(&doc.0) }),
    )
    .service(
        utoipa_swagger_ui::SwaggerUi::new("/api-docs/{_:.*}")
            .config(utoipa_swagger_ui::Config::new([API_DOCUMENT]).validator_url("none")),
    );
}
