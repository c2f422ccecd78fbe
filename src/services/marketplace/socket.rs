//! Socket.IO on the marketplace listener: live events for signed-in users. A socket
//! authenticates once, with the access token in the handshake's `auth.token`; it joins its
//! user's room, so every tab of a user gets each event, and it is closed when the token
//! expires. Clients only listen: the server sends `new_message`, `message_read`,
//! `car_viewed` and `new_inquiry`.

use super::service::interactions::Notice;
use super::MarketplaceState;
use crate::core::auth::Auth;
use crate::core::clock::SharedClock;
use crate::realtime::{DisconnectReason, Event, NamespaceHandler, SocketHandle, SocketIoServer};
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use switchboard_actors::marketplace::UserFeed;
use tokio::task::AbortHandle;
use uuid::Uuid;

/// To a car's owner when a view of it is counted.
pub const CAR_VIEWED: &str = "car_viewed";
/// To the dealer when a customer sends an inquiry.
pub const NEW_INQUIRY: &str = "new_inquiry";

/// The room every socket of one user joins.
pub fn user_room(user: Uuid) -> String {
    format!("user:{user}")
}

/// Events to a user's sockets in this process. A cross-node fan-out (a pub/sub the other
/// nodes subscribe to) goes here, behind the same call.
pub struct SocketFeed(pub SocketIoServer);

impl UserFeed for SocketFeed {
    fn to_user(&self, user: Uuid, event: &str, data: &Value) {
        if let Err(e) = self.0.emit_to_room("/", &user_room(user), event, data) {
            tracing::error!(error = %e, event, "socket emit failed");
        }
    }
}

impl MarketplaceState {
    /// Tells the notice's recipient, on every socket they have open.
    pub fn notify<T: Serialize>(&self, event: &str, notice: &Notice<T>) {
        match serde_json::to_value(&notice.event) {
            Ok(data) => self.feed.to_user(notice.to, event, &data),
            Err(e) => tracing::error!(error = %e, event, "event not serialisable"),
        }
    }
}

/// The user behind a socket, and the timer that closes it when the token expires.
struct Connected {
    expiry: AbortHandle,
}

pub struct Live {
    auth: Auth,
    clock: SharedClock,
}

impl Live {
    pub fn new(auth: Auth, clock: SharedClock) -> Self {
        Self { auth, clock }
    }
}

#[async_trait]
impl NamespaceHandler for Live {
    async fn on_connect(&self, socket: SocketHandle, auth: Value) -> Result<(), String> {
        let token = auth
            .get("token")
            .and_then(Value::as_str)
            .ok_or("missing auth.token: the access token")?;
        let claims = self
            .auth
            .verify(token)
            .map_err(|e| e.message().to_owned())?;
        let user = Uuid::parse_str(&claims.sub).map_err(|_| "invalid access token")?;
        let expires = chrono::DateTime::from_timestamp(claims.exp, 0).unwrap_or_default();
        let clock = self.clock.clone();
        let closing = socket.clone();
        let expiry = tokio::spawn(async move {
            clock.sleep_until(expires).await;
            closing.disconnect();
            closing.close();
        })
        .abort_handle();
        socket.set_data(Connected { expiry });
        socket.join(user_room(user));
        socket.admit();
        Ok(())
    }

    /// Clients send nothing the marketplace acts on; messages go through REST.
    async fn on_event(&self, _: SocketHandle, _: Event) {}

    async fn on_disconnect(&self, socket: SocketHandle, _: DisconnectReason) {
        if let Some(c) = socket.data::<Connected>() {
            c.expiry.abort();
        }
    }
}
