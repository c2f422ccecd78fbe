//! The interview service's state, handed to every handler, socket and job, and the session
//! rooms its actors announce to.

use super::settings::InterviewSettings;
use crate::core::CoreContext;
use crate::providers::Providers;
use crate::realtime::SocketIoServer;
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use switchboard_actors::interview::{Broadcast, Registry};
use uuid::Uuid;

#[derive(Clone)]
pub struct InterviewState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<InterviewSettings>,
    pub registry: Registry,
}

/// The room a session's sockets join.
pub fn room(session_id: Uuid) -> String {
    format!("session:{session_id}")
}

/// Session events to the sockets in the session's room. The Socket.IO server is built
/// after the registry (its handler needs the registry), hence the late binding.
#[derive(Default, Clone)]
pub struct RoomBroadcast(pub Arc<OnceLock<SocketIoServer>>);

impl Broadcast for RoomBroadcast {
    fn emit(&self, session_id: Uuid, event: &str, data: &Value) {
        if let Some(server) = self.0.get() {
            if let Err(e) = server.emit_to_room("/", &room(session_id), event, data) {
                tracing::error!(error = %e, event, "socket emit failed");
            }
        }
    }
}
