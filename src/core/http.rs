//! Framework-level failures (malformed JSON, wrong content type, oversized body, a wrong
//! method's 405 with its `Allow`) as [`ApiError`]s that each service renders in its own
//! envelope, the matched route, [`Resource`] for pages outside the API document, JSON
//! responses, security headers and the API docs mount. Unknown routes and
//! which methods a documented path takes: `core::routes`.

use super::error::{ApiError, Kind};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{AppService, HttpServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError, UrlencodedError};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::{ErrorHandlerResponse, ErrorHandlers, Next};
use actix_web::HttpMessage;
use actix_web::{
    guard, web, FromRequest, Handler, HttpRequest, HttpResponse, HttpResponseBuilder, Responder,
};
use serde::Serialize;
use std::rc::Rc;
use utoipa::openapi::OpenApi;

/// Largest JSON body any service accepts (bulk sends of 1000 recipients fit easily).
pub const MAX_JSON_BYTES: usize = 2 * 1024 * 1024;

fn json_error(err: JsonPayloadError, _req: &HttpRequest) -> actix_web::Error {
    match &err {
        JsonPayloadError::ContentType => ApiError::new(
            Kind::UnsupportedMediaType,
            "Content-Type must be application/json",
        ),
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            ApiError::new(Kind::PayloadTooLarge, "request body is too large")
        }
        JsonPayloadError::Deserialize(e) => ApiError::bad_request(describe_serde(e)),
        other => ApiError::bad_request(format!("malformed request body: {other}")),
    }
    .into()
}

fn describe_serde(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match e.classify() {
        Category::Data => format!("invalid request body: {e}"),
        _ => "malformed JSON in request body".to_owned(),
    }
}

fn query_error(err: QueryPayloadError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::bad_request(format!("invalid query string: {err}")).into()
}

fn path_error(err: PathError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::bad_request(format!("invalid path parameter: {err}")).into()
}

fn form_error(err: UrlencodedError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::bad_request(format!("invalid form body: {err}")).into()
}

/// Registers extractor configs so that bad input becomes an [`ApiError`].
pub fn extractor_config(cfg: &mut web::ServiceConfig) {
    cfg.app_data(
        web::JsonConfig::default()
            .limit(MAX_JSON_BYTES)
            .error_handler(json_error),
    )
    .app_data(web::QueryConfig::default().error_handler(query_error))
    .app_data(web::PathConfig::default().error_handler(path_error))
    .app_data(
        web::FormConfig::default()
            .limit(256 * 1024)
            .error_handler(form_error),
    );
}

/// Turns the body-less 405 that plain actix routing produces (routes outside the declarations) into an [`ApiError`], keeping its `Allow`.
pub fn error_handlers<B: 'static>() -> ErrorHandlers<B> {
    ErrorHandlers::new().handler(StatusCode::METHOD_NOT_ALLOWED, |res: ServiceResponse<B>| {
        if res.response().error().is_some() {
            return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
        }
        let allow = res.headers().get(header::ALLOW).cloned();
        let (req, _) = res.into_parts();
        let message = format!("method {} is not allowed here", req.method());
        let mut body = HttpResponse::from_error(ApiError::new(Kind::MethodNotAllowed, message));
        if let Some(allow) = allow {
            body.headers_mut().insert(header::ALLOW, allow);
        }
        let res = ServiceResponse::new(req, body).map_into_right_body::<B>();
        Ok(ErrorHandlerResponse::Response(res))
    })
}

/// The route pattern the router resolves for this request (`/kyc/verify/{token}`), matched
/// on the path as the router decodes it, so `/auth/%73ignin` is `/auth/signin`. Works
/// before routing too (in middleware). None when no route matches. Matched once per request:
/// the span, the rate limiter and the method check all ask.
pub fn matched_route(req: &HttpRequest) -> Option<Rc<str>> {
    if let Some(MatchedRoute(known)) = req.extensions().get::<MatchedRoute>() {
        return known.clone();
    }
    let found: Option<Rc<str>> = req
        .resource_map()
        .match_pattern(req.match_info().as_str())
        .map(Rc::from);
    req.extensions_mut().insert(MatchedRoute(found.clone()));
    found
}

/// The route pattern of the request, once matched.
struct MatchedRoute(Option<Rc<str>>);

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
            .default_service(web::to(move |req: HttpRequest| {
                let allow = allow.clone();
                async move { method_not_allowed(&req, &allow) }
            }))
            .register(config)
    }
}

/// A 405 as an [`ApiError`] (rendered in the service's envelope) with its `Allow`.
pub fn method_not_allowed(req: &HttpRequest, allow: &str) -> HttpResponse {
    let message = format!("method {} is not allowed here", req.method());
    let mut res = HttpResponse::from_error(ApiError::new(Kind::MethodNotAllowed, message));
    if let Ok(allow) = header::HeaderValue::from_str(allow) {
        res.headers_mut().insert(header::ALLOW, allow);
    }
    res
}

/// The end of a middleware that may refuse: answers `refused` (kept on the response, so the
/// service's envelope renders it) or passes the request on.
pub async fn pass_unless<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
    refused: Option<ApiError>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    match refused {
        Some(e) => Ok(req.error_response(e).map_into_right_body()),
        None => next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body),
    }
}

/// `builder.json(value)` with the body written into a buffer sized for a typical answer
/// up front, not grown from empty through several copies (for the hottest reads).
pub fn json<T: Serialize>(mut builder: HttpResponseBuilder, value: &T) -> HttpResponse {
    let mut body = Vec::with_capacity(512);
    match serde_json::to_writer(&mut body, value) {
        Ok(()) => builder
            .insert_header((
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ))
            .body(body),
        Err(e) => HttpResponse::from_error(actix_web::error::JsonPayloadError::Serialize(e)),
    }
}

/// Every response of every service: no MIME sniffing, never framed. A handler that sets its
/// own Content-Security-Policy (the HTML pages) keeps it; it must say frame-ancestors too.
/// Written by `telemetry::around`.
pub fn security_headers(h: &mut header::HeaderMap) {
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
}

/// `modifiers(&BearerScheme)` in a service's `#[openapi]`: the `bearer` security scheme its
/// operations name with `security(("bearer" = []))`.
pub struct BearerScheme;

impl utoipa::Modify for BearerScheme {
    fn modify(&self, api: &mut OpenApi) {
        use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
        api.components
            .get_or_insert_with(Default::default)
            .add_security_scheme(
                "bearer",
                SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
            );
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
