//! Socket.IO on the marketplace listener: live events for signed-in users. A socket
//! authenticates once, with the access token in the handshake's `auth.token`; it joins its
//! user's room, so every tab of a user gets each event, and it is closed when the token
//! expires or its session ends (logout is not in the spec; a password reset, refresh-token
//! reuse, or anything else that ends a session), after a `session_ended {reason}` event.
//! Clients only listen: the server sends `new_message`, `message_read`, `car_viewed`,
//! `new_inquiry` and `session_ended`.

use crate::core::auth::Auth;
use crate::core::clock::SharedClock;
use crate::core::session::{Change, SessionKey, Sessions};
use crate::realtime::{DisconnectReason, Event, NamespaceHandler, SocketHandle, SocketIoServer};
use crate::services::marketplace::interactions::store::Notice;
use crate::services::marketplace::state::MarketplaceState;
use async_trait::async_trait;
use serde::Serialize;
use serde_json::{json, Value};
use std::sync::Arc;
use switchboard_actors::marketplace::UserFeed;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::AbortHandle;
use uuid::Uuid;

/// To a car's owner when a view of it is counted.
pub const CAR_VIEWED: &str = "car_viewed";
/// To the dealer when a customer sends an inquiry.
pub const NEW_INQUIRY: &str = "new_inquiry";

/// To a socket whose session ended, just before it is disconnected.
pub const SESSION_ENDED: &str = "session_ended";

/// The room every socket of one user joins.
pub fn user_room(user: Uuid) -> String {
    format!("user:{user}")
}

/// The room of the sockets opened with one session's tokens.
fn session_room(session: Uuid) -> String {
    format!("session:{session}")
}

/// Tells the socket why, then disconnects it.
fn end(socket: &SocketHandle, reason: &str) {
    if let Err(e) = socket.emit(SESSION_ENDED, &json!({ "reason": reason })) {
        tracing::debug!(error = %e, "session_ended not sent");
    }
    socket.disconnect();
    socket.close();
}

/// Closes the sockets of every session that ends, as the changes are announced (on this
/// node today; from the cluster bus once there is one, through the same subscription).
pub fn close_ended_sessions(sio: SocketIoServer, sessions: &Sessions) {
    let mut changes = sessions.subscribe();
    tokio::spawn(async move {
        loop {
            let (room, reason) = match changes.recv().await {
                Ok(Change::SessionEnded { key, reason }) => (session_room(key.session), reason),
                Ok(Change::AccountEnded { account, reason }) => (user_room(account), reason),
                Ok(Change::AccountChanged { .. }) => continue,
                // Missed changes are caught by each socket's own periodic check.
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(
                        missed,
                        "session changes missed; sockets recheck on their timer"
                    );
                    continue;
                }
                Err(RecvError::Closed) => return,
            };
            for socket in sio.room_members("/", &room).await {
                end(&socket, reason.as_str());
            }
        }
    });
}

/// Events to a user's sockets, through the hub: with a Redis adapter the hub carries them to
/// the sockets on other nodes too.
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

/// The watch that closes a socket when its token expires or its session ends.
struct Connected {
    watch: AbortHandle,
}

pub struct Live {
    auth: Auth,
    sessions: Arc<Sessions>,
    clock: SharedClock,
    /// How often a socket asks whether its session still holds, in case a change was
    /// announced where this node could not hear it (the cache's time to live).
    recheck: chrono::Duration,
}

impl Live {
    pub fn new(auth: Auth, sessions: Arc<Sessions>, clock: SharedClock, recheck_secs: u64) -> Self {
        Self {
            auth,
            sessions,
            clock,
            recheck: chrono::Duration::seconds(recheck_secs.clamp(1, 3600) as i64),
        }
    }

    /// Until the token expires, asks every `recheck` whether the session is live; closes the
    /// socket when either ends.
    fn watch(
        &self,
        socket: SocketHandle,
        key: SessionKey,
        expires: chrono::DateTime<chrono::Utc>,
    ) -> AbortHandle {
        let (clock, sessions, every) = (self.clock.clone(), self.sessions.clone(), self.recheck);
        tokio::spawn(async move {
            loop {
                let now = clock.now();
                if now >= expires {
                    socket.disconnect();
                    socket.close();
                    return;
                }
                clock.sleep_until(expires.min(now + every)).await;
                if clock.now() < expires && !matches!(sessions.live(key).await, Ok(Some(_))) {
                    // A database error counts as ended: the socket reconnects and is asked again.
                    end(&socket, "session_ended");
                    return;
                }
            }
        })
        .abort_handle()
    }
}

#[async_trait]
impl NamespaceHandler for Live {
    async fn on_connect(&self, socket: SocketHandle, auth: Value) -> Result<(), String> {
        let token = auth
            .get("token")
            .and_then(Value::as_str)
            .ok_or("missing auth.token: the access token")?;
        let admitted = self
            .auth
            .admit_token(token)
            .await
            .map_err(|e| e.message().to_owned())?;
        let key = SessionKey::of(&admitted.claims).ok_or("invalid access token")?;
        let expires = chrono::DateTime::from_timestamp(admitted.claims.exp, 0).unwrap_or_default();
        socket.join(user_room(key.account));
        socket.join(session_room(key.session));
        // A session that ended while this socket joined its rooms was announced to rooms it
        // was not in yet: ask once more now that it is.
        if !matches!(self.sessions.live(key).await, Ok(Some(_))) {
            socket.leave(user_room(key.account));
            socket.leave(session_room(key.session));
            return Err("access token is invalid or expired".into());
        }
        let watch = self.watch(socket.clone(), key, expires);
        socket.set_data(Connected { watch });
        socket.admit();
        Ok(())
    }

    /// Clients send nothing the marketplace acts on; messages go through REST.
    async fn on_event(&self, _: SocketHandle, _: Event) {}

    async fn on_disconnect(&self, socket: SocketHandle, _: DisconnectReason) {
        if let Some(c) = socket.data::<Connected>() {
            c.watch.abort();
        }
    }
}
