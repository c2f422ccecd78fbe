//! Where a service's actors run on several nodes: [`Placement`]s from this node's leases
//! (`core::lease`) and a relay over the cluster bus (`core::bus`), and [`serve`] for the
//! commands other nodes relay to the actors this node owns.

use super::bus::{AskError, Bus};
use super::CoreContext;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::registry::{Placement, Relay, Unanswered};
use switchboard_entities::core::actor_lease::ActorKind;
use uuid::Uuid;

/// A command for one actor as it crosses the bus.
#[derive(Serialize, Deserialize)]
struct Relayed {
    id: Uuid,
    command: Value,
}

struct OverBus {
    bus: Bus,
    /// The listener whose actors these are (the sandbox's are not production's).
    listener: String,
    timeout: Duration,
}

/// What a node serves on the bus for the actors of `kind` behind `listener`.
fn service(listener: &str, kind: ActorKind) -> String {
    format!("{listener}/{kind}")
}

impl Relay for OverBus {
    fn ask(
        &self,
        node: &str,
        kind: ActorKind,
        id: Uuid,
        command: Value,
    ) -> switchboard_actors::registry::BoxFuture<'_, Result<Value, Unanswered>> {
        let node = node.to_owned();
        Box::pin(async move {
            let body =
                serde_json::to_value(Relayed { id, command }).map_err(|_| Unanswered::Late)?;
            let service = service(&self.listener, kind);
            match self.bus.ask(&node, &service, body, self.timeout).await {
                Ok(answer) => Ok(answer),
                Err(AskError::Gone) => Err(Unanswered::Gone),
                Err(AskError::Left) => Err(Unanswered::Lost),
                Err(e) => {
                    tracing::warn!(%kind, %id, %node, error = %e, "a relayed command got no answer");
                    Err(Unanswered::Late)
                }
            }
        })
    }

    fn tell(
        &self,
        node: &str,
        kind: ActorKind,
        id: Uuid,
        command: Value,
    ) -> switchboard_actors::registry::BoxFuture<'_, Result<(), Unanswered>> {
        let node = node.to_owned();
        Box::pin(async move {
            let body =
                serde_json::to_value(Relayed { id, command }).map_err(|_| Unanswered::Late)?;
            let service = service(&self.listener, kind);
            match self.bus.tell(&node, &service, body).await {
                Ok(()) => Ok(()),
                Err(AskError::Gone | AskError::Left) => Err(Unanswered::Gone),
                Err(e) => {
                    tracing::warn!(%kind, %id, %node, error = %e, "handing a command over failed");
                    Err(Unanswered::Late)
                }
            }
        })
    }
}

impl CoreContext {
    /// Where the actors of `kind` behind `listener` run: None on one node (all here); else
    /// by lease, with commands relayed to the owner over the bus.
    pub fn placement(&self, listener: &str, kind: ActorKind) -> Option<Placement> {
        let leases = self.leases.as_ref()?;
        Some(Placement {
            kind,
            ownership: leases.of(kind),
            relay: Arc::new(OverBus {
                bus: self.cluster.bus.clone(),
                listener: listener.to_owned(),
                timeout: Duration::from_millis(self.settings.cluster.forward_timeout_ms.max(1)),
            }),
        })
    }
}

/// Answers the commands other nodes relay to this node's actors of `kind` behind `listener`
/// with `run(id, command)` (a no-op on one node).
pub fn serve<F>(core: &CoreContext, listener: &str, kind: ActorKind, run: F)
where
    F: Fn(Uuid, Value) -> BoxFuture<'static, Value> + Send + Sync + 'static,
{
    let run = Arc::new(run);
    core.cluster.bus.serve(
        &service(listener, kind),
        Arc::new(move |body| {
            let run = run.clone();
            Box::pin(async move {
                match serde_json::from_value::<Relayed>(body) {
                    Ok(r) => run(r.id, r.command).await,
                    Err(_) => Value::Null,
                }
            })
        }),
    );
}
