//! The probes a load balancer or an orchestrator asks, on every listener. `/livez` answers
//! while the process does and asks nothing else: restarting a node because its database is
//! down would not bring the database back. `/readyz` answers 200 only when this node can
//! serve — the database answers and holds every migration this build knows, and Redis (when
//! the cluster has one) answers, each within the health checks' timeout — and 503 naming what is not.

use super::health::{Check, Dependencies, TIMEOUT};
use super::http::json;
use super::CoreContext;
use actix_web::{web, HttpResponse};
use sea_orm::{ConnectionTrait, DatabaseConnection, Statement};
use serde::Serialize;
use std::sync::OnceLock;
use switchboard_migration::{Migrator, MigratorTrait};

/// The probes' own state on a listener (a type of its own, so no service's data is shadowed).
#[derive(Clone)]
pub struct Probes(pub CoreContext);

pub fn configure(cfg: &mut web::ServiceConfig, ctx: &CoreContext) {
    cfg.app_data(web::Data::new(Probes(ctx.clone())))
        .route("/livez", web::get().to(livez))
        .route("/livez", web::head().to(livez))
        .route("/readyz", web::get().to(readyz))
        .route("/readyz", web::head().to(readyz));
}

#[derive(Serialize)]
struct Alive<'a> {
    status: &'static str,
    node: &'a str,
}

async fn livez(probes: web::Data<Probes>) -> HttpResponse {
    let node = &probes.0.node.id;
    json(
        HttpResponse::Ok(),
        &Alive {
            status: "alive",
            node,
        },
    )
}

#[derive(Serialize)]
struct Ready<'a> {
    /// `ready`, or `not_ready` (503).
    status: &'static str,
    node: &'a str,
    checks: ReadyChecks,
    /// What is not ready, by its name in `checks`; empty when ready.
    failing: Vec<&'static str>,
}

#[derive(Serialize)]
struct ReadyChecks {
    database: Check,
    /// `applied`, `pending` (this build knows migrations the database lacks) or `unknown`
    /// (the database did not answer).
    migrations: &'static str,
    redis: Check,
}

async fn readyz(probes: web::Data<Probes>) -> HttpResponse {
    let ctx = &probes.0;
    let (deps, migrations) = tokio::join!(Dependencies::probe(ctx), migrations(&ctx.db));
    let mut failing = Vec::new();
    if !deps.database.is_up() {
        failing.push("database");
    }
    if migrations != "applied" {
        failing.push("migrations");
    }
    if deps.redis.is_down() {
        failing.push("redis");
    }
    let body = Ready {
        status: if failing.is_empty() {
            "ready"
        } else {
            "not_ready"
        },
        node: &ctx.node.id,
        checks: ReadyChecks {
            database: deps.database,
            migrations,
            redis: deps.redis,
        },
        failing,
    };
    let status = match body.failing.is_empty() {
        true => HttpResponse::Ok(),
        false => HttpResponse::ServiceUnavailable(),
    };
    json(status, &body)
}

/// The newest migration this build knows.
fn newest_known() -> &'static str {
    static NEWEST: OnceLock<String> = OnceLock::new();
    NEWEST.get_or_init(|| {
        Migrator::migrations()
            .iter()
            .map(|m| m.name().to_owned())
            .max()
            .unwrap_or_default()
    })
}

/// Whether the database has every migration this build knows (newer ones are fine: in a
/// rolling upgrade a newer node may migrate first).
async fn migrations(db: &DatabaseConnection) -> &'static str {
    let ask = db.query_one_raw(Statement::from_string(
        db.get_database_backend(),
        "SELECT MAX(version) AS version FROM seaql_migrations",
    ));
    match tokio::time::timeout(TIMEOUT, ask).await {
        Ok(Ok(Some(row))) => match row.try_get::<Option<String>>("", "version") {
            Ok(Some(newest)) if newest.as_str() >= newest_known() => "applied",
            Ok(_) => "pending",
            Err(_) => "unknown",
        },
        _ => "unknown",
    }
}
