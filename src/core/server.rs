//! One service's listener: its routes, the OpenAPI document collected from them, and what
//! every service shares — request id and span, rate-limit headers, security headers, CORS, and
//! framework errors (404, 405 with `Allow`) in the service's own envelope.

use super::client::TrustedProxies;
use super::error::{self, Envelope};
use super::http::{error_handlers, extractor_config, ApiDocument};
use super::rate_limit;
use super::routes::{claim_declared_paths, fallback, RouteMethods};
use super::{cors, probes, telemetry, CoreContext};
use actix_web::dev::Server;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use std::net::{SocketAddr, TcpListener};
use std::rc::Rc;
use utoipa::openapi::OpenApi;
use utoipa_actix_web::service_config::ServiceConfig;
use utoipa_actix_web::AppExt;

/// A service's running listener.
pub struct Listening {
    pub name: &'static str,
    pub addr: SocketAddr,
    pub server: Server,
}

#[derive(Debug, thiserror::Error)]
pub enum MountError {
    #[error("listener: {0}")]
    Io(#[from] std::io::Error),
    /// The service's `bind` could not be listened on (the port taken, say).
    #[error("{}", super::start_failure::listen(service, bind, source))]
    Bind {
        service: &'static str,
        bind: String,
        source: std::io::Error,
    },
    /// A client or sender the service needs could not be built.
    #[error("http client: {0}")]
    Client(String),
    /// A database of the service's own (a sandbox) could not be opened or migrated.
    #[error("database: {0}")]
    Database(#[from] sea_orm::DbErr),
}

impl MountError {
    pub fn client(e: impl std::fmt::Display) -> Self {
        Self::Client(e.to_string())
    }
}

/// Starts service `name` on `bind`. `routes` declares its endpoints (handlers with a route
/// macro and `#[utoipa::path]`, registered with `.service(handler)`), and the document they
/// are collected into — `doc` (info, tags, components) plus their paths — is what
/// `core::http::api_docs` serves and what the 405's `Allow` is read from.
pub fn serve<E, F>(
    name: &'static str,
    bind: &str,
    ctx: &CoreContext,
    doc: OpenApi,
    routes: F,
) -> Result<Listening, MountError>
where
    E: Envelope,
    F: Fn(&mut ServiceConfig) + Clone + Send + 'static,
{
    serve_marked::<E, F>(name, bind, ctx, doc, routes, &[])
}

/// [`serve`], with `marks` (name, value) set on every response of the listener — success,
/// error, 404 and 405 alike (e.g. a sandbox's `X-Test-Mode: true`).
pub fn serve_marked<E, F>(
    name: &'static str,
    bind: &str,
    ctx: &CoreContext,
    doc: OpenApi,
    routes: F,
    marks: &[(&'static str, &'static str)],
) -> Result<Listening, MountError>
where
    E: Envelope,
    F: Fn(&mut ServiceConfig) + Clone + Send + 'static,
{
    let marks = marks.to_vec();
    let listener = TcpListener::bind(bind).map_err(|source| MountError::Bind {
        service: name,
        bind: bind.to_owned(),
        source,
    })?;
    let addr = listener.local_addr()?;
    let clock = web::Data::new(ctx.clock.clone());
    // Checked by CoreSettings::validate; an invalid list here trusts no proxy.
    let proxies = web::Data::new(
        TrustedProxies::parse(&ctx.settings.server.trusted_proxies).unwrap_or_default(),
    );
    let core = ctx.clone();
    let cors_origins = ctx.settings.server.cors_allowed_origins.clone();
    let cors_max_age = ctx.settings.server.cors_max_age_secs;
    let node = ctx.cluster.node_id.clone();
    let workers = ctx.settings.server.workers();
    let server = HttpServer::new(move || {
        let node = node.clone();
        // Names are written as headers are shown (`X-Test-Mode`); a bad one is a bug here.
        let marks: Rc<[(HeaderName, HeaderValue)]> = marks
            .iter()
            .filter_map(|&(k, v)| {
                Some((
                    HeaderName::from_bytes(k.as_bytes()).ok()?,
                    HeaderValue::from_static(v),
                ))
            })
            .collect();
        let (app, doc) = App::new()
            .app_data(clock.clone())
            .app_data(proxies.clone())
            .configure(extractor_config)
            // Before the service's routes: a service's catch-all scope would take them.
            .configure(|cfg| probes::configure(cfg, &core))
            .into_utoipa_app()
            .openapi(doc.clone())
            .configure(routes.clone())
            .split_for_parts();
        app.app_data(web::Data::new(RouteMethods::from(&doc)))
            .app_data(web::Data::new(ApiDocument(doc)))
            .default_service(web::to(fallback))
            .wrap(from_fn(claim_declared_paths))
            .wrap(error_handlers())
            .wrap(from_fn(rate_limit::middleware))
            // Preflights are answered here, before the limiter counts them or routing
            // answers 405.
            .wrap(cors::middleware(&cors_origins, cors_max_age))
            .wrap(from_fn(cors::refusals))
            // Every ApiError below (handlers, extractors, limits, 404/405) is answered in E.
            .wrap(from_fn(error::render::<E>))
            // Outermost, so every response gets its id, limit and security headers and the
            // marks.
            .wrap(from_fn(move |req, next| {
                telemetry::around(name, node.clone(), marks.clone(), req, next)
            }))
    })
    .listen(listener)?
    .workers(workers)
    .shutdown_timeout(ctx.settings.server.shutdown_timeout_secs)
    .disable_signals()
    .run();
    Ok(Listening { name, addr, server })
}
