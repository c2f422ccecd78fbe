//! Where a session's actor runs when several nodes share the database: its lease names the
//! node, and a command that arrives elsewhere crosses the cluster bus to it.

use crate::core::bus::Bus;
use crate::core::CoreContext;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::interview::forward::{self, Command, Forward, WireError};
use switchboard_actors::interview::{Cluster, Registry};
use switchboard_actors::registry::BoxFuture;
use uuid::Uuid;

/// One forwarded command as it crosses the bus.
#[derive(Serialize, Deserialize)]
struct Forwarded {
    id: Uuid,
    command: Command,
}

struct OverBus {
    bus: Bus,
    timeout: Duration,
}

impl Forward for OverBus {
    fn forward(&self, node: &str, id: Uuid, command: Command) -> BoxFuture<'_, forward::Answer> {
        let node = node.to_owned();
        Box::pin(async move {
            let body = serde_json::to_value(Forwarded { id, command })
                .map_err(|_| WireError::Unavailable)?;
            match self.bus.ask(&node, forward::KIND, body, self.timeout).await {
                Ok(answer) => serde_json::from_value(answer).unwrap_or(Err(WireError::Unavailable)),
                Err(e) => {
                    tracing::warn!(%id, %node, error = %e, "a forwarded interview command got no answer");
                    Err(WireError::Unavailable)
                }
            }
        })
    }
}

/// How this node shares sessions with the others; None on a single node.
pub fn cluster(core: &CoreContext) -> Option<Cluster> {
    Some(Cluster {
        ownership: core.ownership(forward::KIND)?,
        forward: Arc::new(OverBus {
            bus: core.cluster.bus.clone(),
            timeout: Duration::from_millis(core.settings.cluster.forward_timeout_ms.max(1)),
        }),
    })
}

/// Answers the commands other nodes forward to the sessions this node owns.
pub fn serve(core: &CoreContext, registry: &Registry) {
    let registry = registry.clone();
    core.cluster.bus.serve(
        forward::KIND,
        Arc::new(move |body| {
            let registry = registry.clone();
            Box::pin(async move {
                let answer = match serde_json::from_value::<Forwarded>(body) {
                    Ok(f) => registry.run_forwarded(f.id, f.command).await,
                    Err(_) => Err(WireError::Unavailable),
                };
                serde_json::to_value(answer).unwrap_or_default()
            })
        }),
    );
}
