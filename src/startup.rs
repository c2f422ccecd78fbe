//! Builds the process: settings → database (migrated) → shared context → one HTTP listener
//! per enabled service. Tests build it with port 0 and a manual clock.

use crate::core::client::TrustedProxies;
use crate::core::clock::{SharedClock, SystemClock};
use crate::core::config::{ConfigError, Settings};
use crate::core::http::{error_handlers, extractor_config, not_found, security_headers, Envelope};
use crate::core::rate_limit::MemoryStore;
use crate::core::{db, jobs::Jobs, jwt::JwtKeys, telemetry, CoreContext};
use crate::providers::{outbox::Outbox, sms};
use crate::services;
use actix_web::dev::{Server, ServerHandle};
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;
use switchboard_migration::{Migrator, MigratorTrait};

/// Replacements for process-wide dependencies, used by tests.
#[derive(Default, Clone)]
pub struct Overrides {
    pub clock: Option<SharedClock>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("database: {0}")]
    Database(#[from] sea_orm::DbErr),
    #[error("listener: {0}")]
    Io(#[from] std::io::Error),
    #[error("http client: {0}")]
    Http(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
}

pub struct Application {
    ctx: CoreContext,
    servers: Vec<(&'static str, SocketAddr, Server)>,
}

/// Connects and migrates the database named in settings.
pub async fn migrate(settings: &Settings) -> Result<sea_orm::DatabaseConnection, StartupError> {
    let conn = db::connect(&settings.database.url, settings.database.max_connections).await?;
    Migrator::up(&conn, None).await?;
    Ok(conn)
}

impl Application {
    pub async fn build(settings: Settings) -> Result<Self, StartupError> {
        Self::build_with(settings, Overrides::default()).await
    }

    pub async fn build_with(
        settings: Settings,
        overrides: Overrides,
    ) -> Result<Self, StartupError> {
        settings.check()?;
        let conn = migrate(&settings).await?;
        let clock = overrides.clock.unwrap_or_else(|| Arc::new(SystemClock));
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| StartupError::Http(e.to_string()))?;
        let outbox = Arc::new(Outbox::new(&settings.outbox.path));
        let sms = sms::from_settings(
            &settings.providers.sms,
            outbox.clone(),
            clock.clone(),
            http.clone(),
        );
        let ctx = CoreContext {
            jwt: JwtKeys::new(&settings.auth.jwt_secret),
            jobs: Jobs::new(conn.clone(), clock.clone(), &settings.jobs),
            settings: Arc::new(settings),
            db: conn,
            clock,
            limiter: Arc::new(MemoryStore::default()),
            outbox,
            sms,
            http,
        };

        let mut servers = Vec::new();
        let s = &ctx.settings.services;
        if s.identity.enabled {
            servers.push(services::identity::mount(&ctx, &s.identity.bind)?);
        }
        if s.interview.enabled {
            servers.push(services::interview::mount(&ctx, &s.interview.bind)?);
        }
        if s.messaging.enabled {
            servers.push(services::messaging::mount(&ctx, &s.messaging.bind)?);
        }
        for (name, listener) in [
            ("marketplace", &s.marketplace),
            ("advertising", &s.advertising),
        ] {
            if listener.enabled {
                tracing::warn!(
                    service = name,
                    "enabled in config but not built yet; skipped"
                );
            }
        }
        ctx.jobs.start().await?;
        Ok(Self { ctx, servers })
    }

    pub fn context(&self) -> &CoreContext {
        &self.ctx
    }

    /// The bound address of a running service (port 0 in config picks a free one).
    pub fn address(&self, service: &str) -> Option<SocketAddr> {
        self.servers
            .iter()
            .find(|(n, _, _)| *n == service)
            .map(|(_, a, _)| *a)
    }

    pub fn addresses(&self) -> BTreeMap<&'static str, SocketAddr> {
        self.servers.iter().map(|(n, a, _)| (*n, *a)).collect()
    }

    pub fn handles(&self) -> Vec<ServerHandle> {
        self.servers.iter().map(|(_, _, s)| s.handle()).collect()
    }

    /// Runs every listener until all stop. SIGINT/SIGTERM stop them gracefully.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let handles = self.handles();
        let jobs = self.ctx.jobs.clone();
        let grace = Duration::from_secs(self.ctx.settings.server.shutdown_timeout_secs);
        for (name, addr, _) in &self.servers {
            tracing::info!(service = name, %addr, "listening");
        }
        tokio::spawn(async move {
            shutdown_signal().await;
            tracing::info!("shutdown signal received; draining requests");
            for h in handles {
                h.stop(true).await;
            }
        });
        let runs = self.servers.into_iter().map(|(_, _, s)| s);
        let results = futures_util::future::join_all(runs).await;
        // Background jobs end with the listeners; running ones get the shutdown timeout.
        jobs.stop(grace).await;
        for r in results {
            r?;
        }
        Ok(())
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {},
                    _ = term.recv() => {},
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Starts one service's listener with the middleware every service shares: request id and
/// span, rate-limit headers, security headers, and framework errors in the service's own envelope.
pub fn serve<E, F>(
    name: &'static str,
    bind: &str,
    ctx: &CoreContext,
    configure: F,
) -> Result<(&'static str, SocketAddr, Server), StartupError>
where
    E: Envelope,
    F: Fn(&mut web::ServiceConfig) + Clone + Send + 'static,
{
    let listener = TcpListener::bind(bind)?;
    let addr = listener.local_addr()?;
    let clock = web::Data::new(ctx.clock.clone());
    // Checked by Settings::check; an invalid list here trusts no proxy.
    let proxies = web::Data::new(
        TrustedProxies::parse(&ctx.settings.server.trusted_proxies).unwrap_or_default(),
    );
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(clock.clone())
            .app_data(proxies.clone())
            .configure(extractor_config::<E>)
            .configure(configure.clone())
            .default_service(web::to(not_found::<E>))
            .wrap(error_handlers::<E, _>())
            .wrap(from_fn(security_headers))
            .wrap(from_fn(telemetry::rate_limit_headers))
            .wrap(from_fn(move |req, next| {
                telemetry::request_span(name, req, next)
            }))
    })
    .listen(listener)?
    .workers(workers)
    .shutdown_timeout(ctx.settings.server.shutdown_timeout_secs)
    .disable_signals()
    .run();
    Ok((name, addr, server))
}
