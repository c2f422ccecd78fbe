//! The marketplace's sandbox (`[services.marketplace.sandbox]`): the spec's development
//! address, where requests "run in test mode and do not affect production data". The same
//! routes are served a second time on their own bind over a database of their own (migrated
//! at start, its own pool, rate-limit store and job queue), so nothing shares a connection
//! with production. Tokens are signed with a key derived for the sandbox, so a production
//! token means nothing here and the reverse; codes go to the outbox, never to a phone; the AI
//! helpers use the sandbox's own `[services.marketplace.sandbox.ai]` (built-in by default),
//! never the production key. Every response carries `X-Test-Mode: true`.

use crate::core::config::DatabaseSettings;
use crate::core::jobs::Jobs;
use crate::core::jwt::JwtKeys;
use crate::core::lease::Leases;
use crate::core::rate_limit::MemoryStore;
use crate::core::server::MountError;
use crate::core::{db, secrets, CoreContext};
use crate::providers::car_ai;
use crate::providers::sms::OutboxSms;
use crate::providers::Providers;
use crate::services::marketplace::settings::MarketplaceSettings;
use std::sync::Arc;
use switchboard_migration::{Migrator, MigratorTrait};

/// The listener's name (logs, `Application::address`).
pub const NAME: &str = "marketplace-sandbox";
pub const TEST_MODE_HEADER: (&str, &str) = ("X-Test-Mode", "true");

/// The sandbox's own core (its database, keys, jobs and limits) and providers (the outbox
/// for SMS, its own AI writer), when `cfg` enables it; the service listens on them.
pub async fn context(
    core: &CoreContext,
    providers: &Providers,
    cfg: &MarketplaceSettings,
) -> Result<Option<(CoreContext, Providers)>, MountError> {
    if !(cfg.enabled && cfg.sandbox.enabled) {
        return Ok(None);
    }
    let sandbox = &cfg.sandbox;
    let max = core.settings.database.max_connections;
    let conn = db::connect(&sandbox.database_url, max).await?;
    // Several nodes may start at once with the same sandbox database.
    db::with_migration_lock(&sandbox.database_url, Migrator::up(&conn, None)).await?;
    let mut settings = (*core.settings).clone();
    settings.database = DatabaseSettings {
        url: sandbox.database_url.clone(),
        max_connections: max,
    };
    let key = secrets::hmac_sha256_hex(
        core.settings.auth.jwt_secret.as_bytes(),
        b"marketplace-sandbox",
    );
    let leases =
        Leases::of_cluster(&core.cluster, &core.settings.cluster, &conn, &core.clock).await?;
    let ctx = CoreContext {
        leases,
        jwt: JwtKeys::new(&key),
        jobs: Jobs::new(
            conn.clone(),
            core.clock.clone(),
            &settings.jobs,
            core.node.id.clone(),
        ),
        node: core.node.clone(),
        settings: Arc::new(settings),
        db: conn,
        clock: core.clock.clone(),
        // The test-mode listener's limits count on this node: its callers are developers.
        limiter: Arc::new(MemoryStore::default()),
        cluster: core.cluster.clone(),
        metrics: core.metrics.clone(),
    };
    let providers = Providers {
        sms: Arc::new(OutboxSms {
            outbox: providers.outbox.clone(),
            clock: core.clock.clone(),
        }),
        car_writer: car_ai::from_settings(&sandbox.ai, providers.http.clone()),
        ..providers.clone()
    };
    Ok(Some((ctx, providers)))
}
