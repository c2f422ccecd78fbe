//! What a service's declared routes tell the framework besides routing: the methods each
//! documented path takes, for the 405 and its `Allow` (RFC 9110). Each handler is its own
//! resource guarded by its method (the route macros), so no resource refuses a wrong method
//! for its whole path: the request falls through to the service's [`fallback`], or — where a
//! later templated route matches the same path — would reach that route's handler, which
//! [`claim_declared_paths`] prevents.

use super::error::ApiError;
use super::http::{matched_route, method_not_allowed};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ResourceDef, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, HttpResponse};
use utoipa::openapi::{OpenApi, PathItem};

/// The order `Allow` lists methods in: reads, then writes.
const ALLOW_ORDER: [Method; 8] = [
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::OPTIONS,
    Method::TRACE,
];

/// Each documented route pattern with its methods, read from the OpenAPI document the
/// service's routes were collected into: the same declarations that route requests.
pub struct RouteMethods(Vec<Declared>);

struct Declared {
    pattern: String,
    def: ResourceDef,
    methods: Vec<Method>,
}

impl From<&OpenApi> for RouteMethods {
    fn from(doc: &OpenApi) -> Self {
        let methods = |item: &PathItem| {
            let operations = [
                &item.get,
                &item.head,
                &item.post,
                &item.put,
                &item.patch,
                &item.delete,
                &item.options,
                &item.trace,
            ];
            ALLOW_ORDER
                .iter()
                .zip(operations)
                .filter(|(_, operation)| operation.is_some())
                .map(|(method, _)| method.clone())
                .collect()
        };
        Self(
            doc.paths
                .paths
                .iter()
                .map(|(pattern, item)| Declared {
                    pattern: pattern.clone(),
                    def: ResourceDef::new(pattern.as_str()),
                    methods: methods(item),
                })
                .collect(),
        )
    }
}

impl RouteMethods {
    /// `Allow` of the route owning the request's path — the first route the router tries for
    /// it — when that route does not take the request's method.
    fn refused(&self, req: &HttpRequest) -> Option<String> {
        let owner = matched_route(req)?;
        let declared = self.0.iter().find(|d| *d.pattern == *owner)?;
        let methods = &declared.methods;
        (!methods.contains(req.method())).then(|| {
            let names: Vec<&str> = methods.iter().map(Method::as_str).collect();
            names.join(", ")
        })
    }

    /// [`Self::refused`], when another declared route matching the path takes the method.
    fn misrouted(&self, req: &HttpRequest) -> Option<String> {
        let allow = self.refused(req)?;
        let path = req.match_info().as_str();
        self.0
            .iter()
            .any(|d| d.def.is_match(path) && d.methods.contains(req.method()))
            .then_some(allow)
    }
}

fn declared(req: &HttpRequest) -> Option<web::Data<RouteMethods>> {
    req.app_data::<web::Data<RouteMethods>>().cloned()
}

/// Where a request no route took ends: a 405 when the path's route does not take the method
/// (its guard let the request through to here), else a 404.
pub async fn fallback(req: HttpRequest) -> HttpResponse {
    match declared(&req).and_then(|routes| routes.refused(&req)) {
        Some(allow) => method_not_allowed(&req, &allow),
        None => HttpResponse::from_error(ApiError::not_found(format!(
            "no route for {} {}",
            req.method(),
            req.path()
        ))),
    }
}

/// Before routing: a declared path asked with a method its route does not take, but a later
/// templated route does (`GET /api/v1/messages/send` next to `GET /api/v1/messages/{id}`),
/// would reach that route's handler, so it is answered 405 here. Every other wrong method
/// reaches [`fallback`], inside the service's own scopes.
pub async fn claim_declared_paths(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    match declared(req.request()).and_then(|routes| routes.misrouted(req.request())) {
        Some(allow) => {
            let res = method_not_allowed(req.request(), &allow);
            Ok(req.into_response(res).map_into_right_body())
        }
        None => next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body),
    }
}
