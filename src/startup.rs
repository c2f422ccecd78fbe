//! Builds the process: settings → providers → start-up guard → database (migrated) → shared
//! context → one HTTP listener per enabled service of the registry (`crate::services`).
//! Tests build it with port 0 and a manual clock.

use crate::core::clock::{SharedClock, SystemClock};
use crate::core::cluster::Cluster;
use crate::core::config::ConfigError;
use crate::core::lease::Leases;
use crate::core::node::{Node, NodeError};
use crate::core::server::{Listening, MountError};
use crate::core::tls::ExtraRoots;
use crate::core::{db, jobs::Jobs, jwt::JwtKeys, start_failure, CoreContext};
use crate::providers::Providers;
use crate::settings::Settings;
use actix_web::dev::ServerHandle;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use switchboard_migration::{Migrator, MigratorTrait};

/// Replacements for process-wide dependencies, used by tests.
#[derive(Default, Clone)]
pub struct Overrides {
    pub clock: Option<SharedClock>,
}

/// Why the process did not start; each reads as one sentence naming the setting to change
/// (`core::start_failure`), which is all `main` prints.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("database: {0}")]
    Database(#[from] sea_orm::DbErr),
    /// The database at `url` could not be connected to.
    #[error("{}", start_failure::database(url, source))]
    Connect { url: String, source: sea_orm::DbErr },
    #[error("{}", start_failure::migration(url, source))]
    Migration { url: String, source: sea_orm::DbErr },
    #[error("http client: {0}")]
    Http(#[from] reqwest::Error),
    #[error(transparent)]
    Providers(#[from] crate::providers::BuildError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Mount(#[from] MountError),
    #[error("[cluster] redis_url: {0}")]
    Cluster(#[from] redis::RedisError),
    #[error(transparent)]
    Node(#[from] NodeError),
    /// Redis is configured but did not answer at start.
    #[error("{}", start_failure::redis(.0))]
    RedisDown(redis::RedisError),
}

pub struct Application {
    ctx: CoreContext,
    servers: Vec<Listening>,
}

/// The providers the settings name (nothing is contacted yet): the senders, storage, ffmpeg
/// and the outbound HTTP client with `[tls] extra_ca_file`.
pub fn providers(settings: &Settings, clock: SharedClock) -> Result<Providers, StartupError> {
    let roots = ExtraRoots::load(&settings.tls)?;
    Ok(Providers::build(
        &settings.outbox,
        &settings.providers,
        &settings.ai,
        clock,
        &roots,
    )?)
}

/// Connects and migrates the database named in settings.
pub async fn migrate(settings: &Settings) -> Result<sea_orm::DatabaseConnection, StartupError> {
    crate::core::tls::install_crypto_provider();
    let url = &settings.database.url;
    let conn = db::connect(url, settings.database.max_connections)
        .await
        .map_err(|source| StartupError::Connect {
            url: url.clone(),
            source,
        })?;
    db::with_migration_lock(url, Migrator::up(&conn, None))
        .await
        .map_err(|source| StartupError::Migration {
            url: url.clone(),
            source,
        })?;
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
        // Tests build applications without `main`, so here too.
        crate::core::tls::install_crypto_provider();
        let clock = overrides.clock.unwrap_or_else(|| Arc::new(SystemClock));
        let providers = providers(&settings, clock.clone())?;
        let roots = providers.roots.clone();
        settings.check(&providers)?;
        let conn = migrate(&settings).await?;
        let data_dir = std::path::Path::new(&settings.server.data_dir);
        let node = Arc::new(Node::establish(&settings.cluster.node_id, data_dir, &conn).await?);
        let cluster = Cluster::new(&settings.cluster, node.id.clone(), &roots)?;
        // A configured Redis must answer now: a fleet whose nodes cannot meet would split
        // quietly. Later outages are survived (counting locally meanwhile).
        cluster.reachable().await.map_err(StartupError::RedisDown)?;
        let leases = Leases::of_cluster(&cluster, &settings.cluster, &conn, &clock).await?;
        let ctx = CoreContext {
            jobs: Jobs::new(conn.clone(), clock.clone(), &settings.jobs, node.id.clone()),
            node,
            jwt: JwtKeys::new(&settings.auth.jwt_secret),
            settings: Arc::new(settings.core()),
            db: conn,
            clock,
            limiter: cluster.rate_store(),
            leases,
            cluster,
            metrics: Default::default(),
        };
        let mut servers = Vec::new();
        for service in settings.services.registered() {
            if service.listener().enabled {
                servers.push(service.mount(&ctx, &providers)?);
            }
        }
        for service in settings.services.registered() {
            if service.listener().enabled {
                servers.extend(service.companions(&ctx, &providers).await?);
            }
        }
        if let Some(bind) = ctx.settings.telemetry.metrics_bind() {
            if !crate::core::config::is_loopback_bind(bind) {
                // Metrics name routes, queues and counts: worth knowing when they are public.
                tracing::warn!(
                    bind,
                    "[telemetry] metrics_bind is reachable from other machines; serve it on a private network or put it behind a firewall"
                );
            }
            servers.push(crate::core::metrics::listener::serve(bind, &ctx)?);
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
            .find(|s| s.name == service)
            .map(|s| s.addr)
    }

    pub fn addresses(&self) -> BTreeMap<&'static str, SocketAddr> {
        self.servers.iter().map(|s| (s.name, s.addr)).collect()
    }

    pub fn handles(&self) -> Vec<ServerHandle> {
        self.servers.iter().map(|s| s.server.handle()).collect()
    }

    /// Runs every listener until all stop. SIGINT/SIGTERM stop them gracefully.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let handles = self.handles();
        let jobs = self.ctx.jobs.clone();
        let leases = self.ctx.leases.clone();
        let database_url = self.ctx.settings.database.url.clone();
        let grace = Duration::from_secs(self.ctx.settings.server.shutdown_timeout_secs);
        for s in &self.servers {
            tracing::info!(service = s.name, addr = %s.addr, "listening");
        }
        let stopping = jobs.clone();
        let node = self.ctx.node.clone();
        let mut lost = node.lost();
        tokio::spawn(async move {
            tokio::select! {
                () = shutdown_signal() => tracing::info!("shutdown signal received; draining requests"),
                // Another process acts under this node's id now (logged where it was seen).
                _ = lost.wait_for(|lost| *lost) => {}
            }
            // The worker stops claiming at once, while the pool's connections still work
            // (those the HTTP workers opened end with their runtimes); running jobs get the
            // shutdown timeout, as requests do.
            let drained = futures_util::future::join_all(handles.iter().map(|h| h.stop(true)));
            futures_util::future::join(drained, stopping.stop(grace)).await;
        });
        let runs = self.servers.into_iter().map(|s| s.server);
        let results = futures_util::future::join_all(runs).await;
        // Background jobs end with the listeners (already, after a signal).
        jobs.stop(grace).await;
        if node.is_lost() {
            // What this node's id holds is the new holder's now: nothing is handed back.
            return Err(std::io::Error::other(format!(
                "another process took node id {} over; this one stopped",
                node.id
            )));
        }
        // An in-memory database ends with this process: nobody is left to hand anything to
        // (and a new connection would open another, empty one).
        if crate::core::db::is_in_memory(&database_url) {
            return results.into_iter().collect();
        }
        // On a connection of its own: the pool's may have been opened by the HTTP workers,
        // whose runtimes are gone now.
        match crate::core::db::connect(&database_url, 1).await {
            Ok(db) => {
                // The other nodes take this node's actors over at once instead of after a
                // lease, and the next process under this id starts without waiting.
                if let Some(leases) = leases {
                    if let Err(e) = leases.on(db.clone()).release_all().await {
                        tracing::warn!(error = %e, "handing actor leases back failed; they lapse");
                    }
                }
                if let Err(e) = node.release(&db).await {
                    tracing::warn!(error = %e, "handing the node id back failed; the next start waits a few seconds");
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "handing leases and the node id back failed; they lapse")
            }
        }
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
