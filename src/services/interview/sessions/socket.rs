//! Socket.IO for candidates. CONNECT needs no auth; `join_session {session_token}` admits
//! the socket to its session's room. Commands go to the session's actor, whose events
//! reach every socket of the session (and the REST caller's view stays the same).

use super::super::caller;
use super::super::error::{InterviewEnvelope, InterviewError};
use super::super::state::{room, InterviewState};
use super::domain;
use super::routes::joined_payload;
use crate::core::error::ApiError;
use crate::realtime::{Event, NamespaceHandler, SocketHandle};
use async_trait::async_trait;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use switchboard_entities::interview::message;
use uuid::Uuid;

pub struct Sessions {
    st: InterviewState,
}

impl Sessions {
    pub fn new(st: InterviewState) -> Self {
        Self { st }
    }
}

/// The session a socket joined.
struct Joined(Uuid);

/// Clients send either `{field: value}` or the bare value.
fn field<'a>(args: &'a [Value], name: &str) -> Option<&'a Value> {
    match args.first()? {
        Value::Object(map) => map.get(name),
        other => Some(other),
    }
}

fn fail(socket: &SocketHandle, ack: Option<crate::realtime::AckSender>, err: &ApiError) {
    let body = json!({
        "message": err.message(),
        "code": err.code_in::<InterviewEnvelope>(),
        "details": err.details(),
    });
    let _ = socket.emit("error", &body);
    if let Some(ack) = ack {
        let _ = ack.send(&[json!({"ok": false, "error": body})]);
    }
}

fn ok(ack: Option<crate::realtime::AckSender>, data: Value) {
    if let Some(ack) = ack {
        let _ = ack.send(&[json!({"ok": true, "data": data})]);
    }
}

impl Sessions {
    async fn join(&self, socket: &SocketHandle, args: &[Value]) -> Result<Value, ApiError> {
        let token = field(args, "session_token")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                InterviewError::InvalidRequest("join_session needs session_token".into())
            })?;
        let s = caller::by_token(&self.st, token)
            .await?
            .ok_or_else(|| InterviewError::NotFound("unknown session token".into()))?;
        if let Some(prev) = socket.data::<Joined>() {
            if prev.0 != s.id {
                socket.leave(room(prev.0));
            }
        }
        socket.join(room(s.id));
        socket.set_data(Joined(s.id));
        // A valid token: the connection may stay past the admission timeout.
        socket.admit();
        let msgs = message::Entity::find()
            .filter(message::Column::SessionId.eq(s.id))
            .order_by_asc(message::Column::SequenceNumber)
            .all(&self.st.core.db)
            .await?;
        let payload = joined_payload(&self.st, &s, &msgs);
        let _ = socket.emit("session_joined", &payload);
        Ok(json!({"session_id": s.id}))
    }

    fn joined(socket: &SocketHandle) -> Result<Uuid, ApiError> {
        socket.data::<Joined>().map(|j| j.0).ok_or_else(|| {
            InterviewError::Unauthorized("join a session first (join_session)".into()).into()
        })
    }

    async fn dispatch(
        &self,
        socket: &SocketHandle,
        name: &str,
        args: &[Value],
    ) -> Result<Value, ApiError> {
        let reg = &self.st.registry;
        match name {
            "join_session" => self.join(socket, args).await,
            "send_message" => {
                let id = Self::joined(socket)?;
                let content = field(args, "content")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        InterviewError::InvalidRequest("send_message needs content".into())
                    })?;
                let content = domain::parse_answer(content)?;
                let out = reg.answer(id, content).await?;
                Ok(json!({"message_id": out.answer.id, "status": out.session.status}))
            }
            "typing" => {
                let id = Self::joined(socket)?;
                let on = field(args, "is_typing")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                // The candidate's indicator goes to the session's other sockets only.
                let _ = socket.broadcast_to(
                    &room(id),
                    "typing",
                    &json!({"is_typing": on, "role": "candidate"}),
                );
                Ok(json!({}))
            }
            "pause" => {
                let s = reg.pause(Self::joined(socket)?).await?;
                Ok(json!({"status": s.status}))
            }
            "resume" => {
                let s = reg.resume(Self::joined(socket)?).await?;
                Ok(json!({"status": s.status}))
            }
            "complete" => {
                let out = reg.complete(Self::joined(socket)?).await?;
                Ok(json!({"status": out.session.status}))
            }
            other => Err(InterviewError::InvalidRequest(format!("unknown event {other}")).into()),
        }
    }
}

#[async_trait]
impl NamespaceHandler for Sessions {
    async fn on_event(&self, socket: SocketHandle, event: Event) {
        let Event {
            name, args, ack, ..
        } = event;
        match self.dispatch(&socket, &name, &args).await {
            Ok(data) => ok(ack, data),
            Err(e) => {
                if let Some(cause) = std::error::Error::source(&e) {
                    tracing::error!(error = %cause, event = %name, "socket event failed");
                }
                fail(&socket, ack, &e);
            }
        }
    }
}
