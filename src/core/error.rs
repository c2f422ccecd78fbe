//! The one error type of the HTTP layer, rendered by each service into its own envelope.
//!
//! Services describe failures in their own terms (a domain enum with the spec's codes) and
//! convert them into [`ApiError`]; everything else — database errors, bad bodies, unknown
//! routes, wrong methods, rate limits — becomes an `ApiError` here, once. A middleware that
//! every service's listener installs ([`render`]) turns it into the service's [`Envelope`],
//! so a handler, an extractor and a middleware all answer in the same shape. The cause of an
//! internal error goes to the log, never to the client.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{header, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{Content, RefOr, Schema};
use utoipa::{IntoResponses, PartialSchema, ToSchema};

/// What went wrong, as far as the status code is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    BadRequest,
    Unauthorized,
    PaymentRequired,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    NotAcceptable,
    Conflict,
    Gone,
    PayloadTooLarge,
    UnsupportedMediaType,
    Unprocessable,
    TooManyRequests,
    Internal,
    Unavailable,
}

impl Kind {
    pub fn status(self) -> StatusCode {
        match self {
            Self::BadRequest => StatusCode::BAD_REQUEST,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::PaymentRequired => StatusCode::PAYMENT_REQUIRED,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            Self::Conflict => StatusCode::CONFLICT,
            Self::Gone => StatusCode::GONE,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Unprocessable => StatusCode::UNPROCESSABLE_ENTITY,
            Self::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Most characters of a client's own value an error answer repeats: enough to recognise it,
/// never a megabyte query back.
pub const ECHO_MAX_CHARS: usize = 100;

/// Longest message an error answer carries, whatever it quotes.
const MESSAGE_MAX_CHARS: usize = 400;

/// `text` cut to `max` characters, the last one `…` when something was cut.
fn clip(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some(_) => {
            let kept: String = text.chars().take(max - 1).collect();
            Cow::Owned(kept + "…")
        }
    }
}

/// A client's value as an error may repeat it: at most [`ECHO_MAX_CHARS`] characters.
pub fn echo(value: &str) -> Cow<'_, str> {
    clip(value, ECHO_MAX_CHARS)
}

/// Every string in a detail, echoed at most [`ECHO_MAX_CHARS`] long.
fn echoed(v: Value) -> Value {
    match v {
        Value::String(s) => match echo(&s) {
            Cow::Borrowed(_) => Value::String(s),
            Cow::Owned(cut) => Value::String(cut),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(echoed).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, echoed(v))).collect()),
        other => other,
    }
}

/// A message with what it quotes (between `"` or backticks, as serde's errors quote the
/// value they refused) echoed at most [`ECHO_MAX_CHARS`] long, and the whole bounded.
fn bounded_message(message: Cow<'static, str>) -> Cow<'static, str> {
    if message.chars().nth(ECHO_MAX_CHARS).is_none() {
        return message;
    }
    let mut out = String::new();
    let mut rest: &str = &message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = &rest[open..=open];
        out.push_str(&rest[..=open]);
        let inner = &rest[open + 1..];
        let (quoted, after) = match inner.find(quote) {
            Some(close) => (&inner[..close], &inner[close..]),
            None => (inner, ""),
        };
        out.push_str(&echo(quoted));
        // The closing quote starts the rest, past the quoted text.
        match after.strip_prefix(quote) {
            Some(tail) => {
                out.push_str(quote);
                rest = tail;
            }
            None => rest = after,
        }
    }
    out.push_str(rest);
    Cow::Owned(clip(&out, MESSAGE_MAX_CHARS).into_owned())
}

/// A failure answered to a client: a kind (the status), the service's code when it named
/// one (else the envelope's code for the kind), a message, optional details and Retry-After.
#[derive(Debug)]
pub struct ApiError {
    kind: Kind,
    code: Option<&'static str>,
    message: Cow<'static, str>,
    details: Map<String, Value>,
    retry_after: Option<i64>,
    cause: Option<Cause>,
}

impl ApiError {
    /// `message` may quote the client's value; it is bounded ([`ECHO_MAX_CHARS`]).
    pub fn new(kind: Kind, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            kind,
            code: None,
            message: bounded_message(message.into()),
            details: Map::new(),
            retry_after: None,
            cause: None,
        }
    }

    pub fn bad_request(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Kind::BadRequest, message)
    }

    pub fn unauthorized(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Kind::Unauthorized, message)
    }

    pub fn forbidden(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Kind::Forbidden, message)
    }

    pub fn not_found(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Kind::NotFound, message)
    }

    /// A refused request under a rate limit; the envelope names the code, the header says
    /// when to come back.
    pub fn rate_limited(retry_after_secs: i64) -> Self {
        let secs = retry_after_secs.max(1);
        Self::new(Kind::TooManyRequests, "too many requests; try again later")
            .retry_after(secs)
            .detail("retry_after", secs)
    }

    /// A failure of ours: the client sees a generic message, the log sees `cause`.
    pub fn internal(cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        let mut e = Self::new(Kind::Internal, "internal error");
        e.cause = Some(Box::new(cause));
        e
    }

    /// The service's own code for this failure (`INVALID_PHONE`, `insufficient_credits`).
    pub fn code(mut self, code: &'static str) -> Self {
        self.code = Some(code);
        self
    }

    /// Adds one field to the details object; a text in it (a client's value) is echoed at
    /// most [`ECHO_MAX_CHARS`] long.
    pub fn detail(mut self, key: &str, value: impl serde::Serialize) -> Self {
        self.details.insert(
            key.to_owned(),
            echoed(serde_json::to_value(value).unwrap_or(Value::Null)),
        );
        self
    }

    pub fn retry_after(mut self, secs: i64) -> Self {
        self.retry_after = Some(secs.max(1));
        self
    }

    /// Retry after `until`: whole seconds, rounded up, so retrying then always finds the
    /// wait over.
    pub fn retry_until(
        self,
        until: chrono::DateTime<chrono::Utc>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Self {
        self.retry_after(secs_until(until, now))
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn details(&self) -> &Map<String, Value> {
        &self.details
    }

    pub fn retry_after_secs(&self) -> Option<i64> {
        self.retry_after
    }

    /// The code clients see under envelope `E`.
    pub fn code_in<E: Envelope>(&self) -> &'static str {
        self.code.unwrap_or_else(|| E::code(self.kind))
    }

    /// The body and headers of this error in envelope `E`.
    pub fn render<E: Envelope>(&self) -> HttpResponse {
        let mut res = HttpResponse::build(self.kind.status());
        if let Some(secs) = self.retry_after {
            res.insert_header((header::RETRY_AFTER, secs));
        }
        res.json(E::body(self, self.code_in::<E>()))
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.kind.status()
    }

    /// Called once, where the error becomes a response: the place to log the cause. The
    /// body is the nested envelope until [`render`] swaps in the service's own.
    fn error_response(&self) -> HttpResponse {
        if let Some(cause) = &self.cause {
            tracing::error!(error = %cause, "internal error");
        }
        self.render::<Nested>()
    }
}

impl From<sea_orm::DbErr> for ApiError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::internal(e)
    }
}

impl From<sea_orm::TransactionError<ApiError>> for ApiError {
    fn from(e: sea_orm::TransactionError<ApiError>) -> Self {
        match e {
            sea_orm::TransactionError::Connection(db) => Self::internal(db),
            sea_orm::TransactionError::Transaction(e) => e,
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> Self {
        Self::internal(e)
    }
}

/// A service's error body.
pub trait Envelope: 'static {
    /// The code of a failure the service did not name (framework errors, rate limits …).
    fn code(kind: Kind) -> &'static str;
    /// The JSON body of `err`, whose code is `code`.
    fn body(err: &ApiError, code: &str) -> Value;
    /// The body's schema in the OpenAPI document.
    fn schema() -> RefOr<Schema>;
}

/// The error responses a service documents on its operations: each status it answers with
/// what it means there (the codes), in its envelope's schema.
pub trait ErrorDocs: 'static {
    type Envelope: Envelope;
    const STATUSES: &'static [(Kind, &'static str)];
}

/// `responses(..., Errors)` in an operation's OpenAPI annotation, where a service declares
/// `pub type Errors = ErrorResponses<ItsDocs>`.
pub struct ErrorResponses<D>(std::marker::PhantomData<D>);

impl<D: ErrorDocs> IntoResponses for ErrorResponses<D> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        D::STATUSES
            .iter()
            .map(|(kind, description)| {
                let response = ResponseBuilder::new()
                    .description(*description)
                    .content(
                        "application/json",
                        Content::new(Some(<D::Envelope as Envelope>::schema())),
                    )
                    .build();
                (kind.status().as_u16().to_string(), RefOr::T(response))
            })
            .collect()
    }
}

/// The inner object of [`Nested`].
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
struct NestedError {
    code: String,
    message: String,
    #[schema(value_type = Object)]
    details: Value,
}

/// `{success: false, error: {code, message, details}}`.
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
struct NestedBody {
    success: bool,
    #[schema(inline)]
    error: NestedError,
}

/// `{success:false, error:{code, message, details}}` with upper-case codes: identity and
/// interview.
pub struct Nested;

impl Envelope for Nested {
    fn code(kind: Kind) -> &'static str {
        match kind {
            Kind::BadRequest | Kind::Unprocessable => "INVALID_REQUEST",
            Kind::Unauthorized => "UNAUTHORIZED",
            Kind::PaymentRequired => "PAYMENT_REQUIRED",
            Kind::Forbidden => "FORBIDDEN",
            Kind::NotFound => "NOT_FOUND",
            Kind::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Kind::NotAcceptable => "NOT_ACCEPTABLE",
            Kind::Conflict => "CONFLICT",
            Kind::Gone => "GONE",
            Kind::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            Kind::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            Kind::TooManyRequests => "RATE_LIMITED",
            Kind::Internal => "INTERNAL_ERROR",
            Kind::Unavailable => "SERVICE_UNAVAILABLE",
        }
    }

    fn body(err: &ApiError, code: &str) -> Value {
        json!({
            "success": false,
            "error": { "code": code, "message": err.message(), "details": err.details() },
        })
    }

    fn schema() -> RefOr<Schema> {
        <NestedBody as PartialSchema>::schema()
    }
}

/// The seconds from `now` to `until`, rounded up (at least 1): retrying after them always
/// finds the wait over.
pub fn secs_until(until: chrono::DateTime<chrono::Utc>, now: chrono::DateTime<chrono::Utc>) -> i64 {
    ((until - now).num_milliseconds() + 999)
        .div_euclid(1000)
        .max(1)
}

/// `body` with the error's `details` (when there are any) and its `retryAfter` seconds at
/// the top level, for the envelopes that carry both (marketplace, advertising).
pub fn with_details_and_retry(err: &ApiError, mut body: Value) -> Value {
    // Retry-After rides at the top level, not in details.
    let details: Map<String, Value> = err
        .details()
        .iter()
        .filter(|(k, _)| k.as_str() != "retry_after")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !details.is_empty() {
        body["details"] = Value::Object(details);
    }
    if let Some(secs) = err.retry_after_secs() {
        body["retryAfter"] = json!(secs);
    }
    body
}

/// The lower-case code of each kind, for the envelopes whose `error` is a snake_case code
/// (messaging, marketplace).
pub fn snake_code(kind: Kind) -> &'static str {
    match kind {
        Kind::BadRequest | Kind::Unprocessable => "validation_error",
        Kind::Unauthorized => "unauthorized",
        Kind::PaymentRequired => "payment_required",
        Kind::Forbidden => "forbidden",
        Kind::NotFound => "not_found",
        Kind::MethodNotAllowed => "method_not_allowed",
        Kind::NotAcceptable => "not_acceptable",
        Kind::Conflict => "conflict",
        Kind::Gone => "gone",
        Kind::PayloadTooLarge => "payload_too_large",
        Kind::UnsupportedMediaType => "unsupported_media_type",
        Kind::TooManyRequests => "rate_limit_exceeded",
        Kind::Internal => "internal_error",
        Kind::Unavailable => "service_unavailable",
    }
}

/// Middleware every listener installs innermost: an [`ApiError`] that became a response
/// anywhere below (handler, extractor, scope middleware) is answered in envelope `E`.
pub async fn render<E: Envelope>(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let res = next.call(req).await?;
    let rendered = res
        .response()
        .error()
        .and_then(|e| e.as_error::<ApiError>())
        .map(ApiError::render::<E>);
    match rendered {
        Some(mut body) => {
            // Headers set on the error response (Allow on a 405) stay.
            for (name, value) in res.headers() {
                if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
                    body.headers_mut().insert(name.clone(), value.clone());
                }
            }
            Ok(res.into_response(body).map_into_right_body())
        }
        None => Ok(res.map_into_left_body()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_code_wins_over_the_kind_and_details_are_an_object() {
        let e = ApiError::bad_request("bad phone")
            .code("INVALID_PHONE")
            .detail("field", "phone");
        assert_eq!(e.code_in::<Nested>(), "INVALID_PHONE");
        let body = Nested::body(&e, e.code_in::<Nested>());
        assert_eq!(body["error"]["details"]["field"], "phone");
        let plain = ApiError::new(Kind::TooManyRequests, "slow down");
        assert_eq!(plain.code_in::<Nested>(), "RATE_LIMITED");
        assert_eq!(snake_code(plain.kind()), "rate_limit_exceeded");
    }

    #[test]
    fn echoed_values_are_bounded() {
        let long = "é".repeat(5000);
        let e = ApiError::bad_request(format!("unknown variant `{long}`, expected `a`"))
            .detail("value", &long)
            .detail("nested", json!({"list": [long.clone()]}));
        let value = e.details()["value"].as_str().unwrap();
        assert_eq!(value.chars().count(), ECHO_MAX_CHARS);
        assert!(value.ends_with('…'));
        assert_eq!(
            e.details()["nested"]["list"][0]
                .as_str()
                .unwrap()
                .chars()
                .count(),
            ECHO_MAX_CHARS
        );
        assert!(e.message().starts_with("unknown variant `éé"));
        assert!(e.message().ends_with("…`, expected `a`"), "{}", e.message());
        assert!(e.message().chars().count() < ECHO_MAX_CHARS + 40);
        let unquoted = ApiError::bad_request("x".repeat(10_000));
        assert_eq!(unquoted.message().chars().count(), MESSAGE_MAX_CHARS);
        let short = "phone must be in international format, e.g. \"+14155550123\"";
        assert_eq!(ApiError::bad_request(short).message(), short);
        assert_eq!(echo("short"), "short");
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let e = ApiError::internal(std::io::Error::other("disk on fire"));
        assert_eq!(e.message(), "internal error");
        assert!(std::error::Error::source(&e).is_some());
        assert_eq!(e.kind().status(), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
