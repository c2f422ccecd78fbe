//! The `/socket.io/` endpoint: checks the Engine.IO query and hands the
//! request to the polling or WebSocket transport.

use std::sync::Arc;

use actix::{Actor, AsyncContext};
use actix_web::http::{header, Method, StatusCode};
use actix_web::web::{self, BytesMut};
use actix_web::{HttpRequest, HttpResponse};
use actix_web_actors::ws;
use futures_util::StreamExt;

use super::conn::Conn;
use super::polling::{BodyTooLarge, Poll, PollReply, PollingEntry, PollingSession, Push};
use super::server::SocketIoServer;
use super::shared::{random_id, Refusal};
use super::ws::{Superseded, WsSession};
use crate::core::client;

/// Mounts Socket.IO at `/socket.io/`: `App::new().service(scope(server))`.
pub fn scope(server: SocketIoServer) -> actix_web::Scope {
    web::scope("/socket.io")
        .app_data(web::Data::new(server))
        .service(web::resource(["", "/"]).to(entry))
}

#[derive(Default)]
struct EioQuery {
    eio: Option<String>,
    transport: Option<String>,
    sid: Option<String>,
}

fn parse_query(query: &str) -> EioQuery {
    let mut q = EioQuery::default();
    for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match &*key {
            "EIO" => q.eio = Some(value.into_owned()),
            "transport" => q.transport = Some(value.into_owned()),
            "sid" => q.sid = Some(value.into_owned()),
            _ => {}
        }
    }
    q
}

/// Engine.IO's error body: `{"code":N,"message":"…"}`.
fn eio_error(status: StatusCode, code: u8, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(serde_json::json!({ "code": code, "message": message }))
}

/// Engine.IO's error code for a handshake the server refuses to accept.
const FORBIDDEN: u8 = 4;

fn unknown_sid() -> HttpResponse {
    eio_error(StatusCode::BAD_REQUEST, 1, "Session ID unknown")
}

fn bad_request() -> HttpResponse {
    eio_error(StatusCode::BAD_REQUEST, 3, "Bad request")
}

async fn entry(
    req: HttpRequest,
    payload: web::Payload,
    server: web::Data<SocketIoServer>,
) -> HttpResponse {
    let query = parse_query(req.query_string());
    if query.eio.as_deref() != Some("4") {
        return eio_error(StatusCode::BAD_REQUEST, 5, "Unsupported protocol version");
    }
    match query.transport.as_deref() {
        Some("polling") => polling(req, payload, &server, query.sid).await,
        Some("websocket") => websocket(req, payload, &server, query.sid),
        _ => eio_error(StatusCode::BAD_REQUEST, 0, "Transport unknown"),
    }
}

async fn polling(
    req: HttpRequest,
    payload: web::Payload,
    server: &SocketIoServer,
    sid: Option<String>,
) -> HttpResponse {
    let Some(sid) = sid else {
        if req.method() != Method::GET {
            return eio_error(StatusCode::BAD_REQUEST, 2, "Bad handshake method");
        }
        return handshake(&req, server);
    };
    let Some((session, upgraded)) = server
        .polling_sessions()
        .get(sid.as_str())
        .map(|s| (s.addr.clone(), s.upgraded()))
    else {
        return unknown_sid();
    };
    if upgraded {
        // The session lives on over WebSocket; polling it is a bad request,
        // as for the reference server's transport mismatch.
        return bad_request();
    }
    match *req.method() {
        Method::GET => {
            let Ok(reply) = session.send(Poll).await else {
                return unknown_sid();
            };
            match reply.await {
                Ok(PollReply::Payload(body)) => HttpResponse::Ok()
                    .insert_header((header::CONTENT_TYPE, "text/plain; charset=UTF-8"))
                    .body(body),
                Ok(PollReply::Gone) | Err(_) => unknown_sid(),
            }
        }
        Method::POST => {
            let body = match read_body(&req, payload, server.config().max_payload).await {
                Ok(body) => body,
                Err(BodyError::TooLarge) => {
                    // The client's packets are lost, so its session cannot go
                    // on: closed (as on WebSocket) before the client hears why.
                    let _ = session.send(BodyTooLarge).await;
                    return eio_error(StatusCode::PAYLOAD_TOO_LARGE, 3, "Payload too large");
                }
                Err(BodyError::Bad) => return bad_request(),
            };
            match session.send(Push(body)).await {
                Ok(Ok(())) => HttpResponse::Ok()
                    .insert_header((header::CONTENT_TYPE, "text/html"))
                    .body("ok"),
                _ => bad_request(),
            }
        }
        _ => eio_error(StatusCode::BAD_REQUEST, 2, "Bad handshake method"),
    }
}

/// The answer to a handshake over one of the connection caps.
fn refused(refusal: Refusal) -> HttpResponse {
    match refusal {
        Refusal::ServerFull => eio_error(
            StatusCode::SERVICE_UNAVAILABLE,
            FORBIDDEN,
            "Server at its connection limit",
        ),
        Refusal::TooManyFromAddress => eio_error(
            StatusCode::TOO_MANY_REQUESTS,
            FORBIDDEN,
            "Too many connections from this address",
        ),
    }
}

fn handshake(req: &HttpRequest, server: &SocketIoServer) -> HttpResponse {
    let permit = match server.shared().admit_connection(client::ip(req)) {
        Ok(permit) => permit,
        Err(refusal) => return refused(refusal),
    };
    let sid: Arc<str> = random_id();
    // The heartbeat counts from before the client can see the handshake.
    let opened = tokio::time::Instant::now();
    // A payload of one packet is just that packet.
    let body = format!("0{}", server.shared().open_json(&sid, true));
    let session = PollingSession::create(|ctx| {
        let conn = Conn::new(
            server.shared().clone(),
            ctx.address().recipient(),
            permit,
            opened,
        );
        PollingSession::new(
            sid.clone(),
            server.shared().clone(),
            server.polling_sessions().clone(),
            conn,
        )
    });
    server
        .polling_sessions()
        .insert(sid, PollingEntry::new(session));
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/plain; charset=UTF-8"))
        .body(body)
}

enum BodyError {
    /// Longer than maxPayload.
    TooLarge,
    /// Not UTF-8, or the upload broke off.
    Bad,
}

/// Reads a POST body of at most `limit` bytes as UTF-8. A body announced
/// longer is refused unread; one that grows past `limit` is cut off there.
async fn read_body(
    req: &HttpRequest,
    mut payload: web::Payload,
    limit: usize,
) -> Result<String, BodyError> {
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|len| len > u64::try_from(limit).unwrap_or(u64::MAX)) {
        return Err(BodyError::TooLarge);
    }
    let mut buf = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| BodyError::Bad)?;
        if buf.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        buf.extend_from_slice(&chunk);
    }
    String::from_utf8(Vec::from(buf)).map_err(|_| BodyError::Bad)
}

fn websocket(
    req: HttpRequest,
    payload: web::Payload,
    server: &SocketIoServer,
    sid: Option<String>,
) -> HttpResponse {
    if req.method() != Method::GET {
        return eio_error(StatusCode::BAD_REQUEST, 2, "Bad handshake method");
    }
    let actor = match sid {
        Some(sid) => {
            let Some((sid, session)) = server
                .polling_sessions()
                .get(sid.as_str())
                .map(|entry| (entry.key().clone(), entry.value().clone()))
            else {
                return unknown_sid();
            };
            // Another WebSocket is upgrading this session, or has: this one
            // is accepted and closed at once.
            let Some(claim) = session.claim_upgrade(server.polling_sessions(), sid) else {
                return start_websocket(Superseded, &req, payload, server);
            };
            // The upgraded connection keeps the polling session's permit.
            WsSession::upgrading(server.shared().clone(), session.addr, claim)
        }
        None => match server.shared().admit_connection(client::ip(&req)) {
            Ok(permit) => WsSession::new(server.shared().clone(), permit),
            Err(refusal) => return refused(refusal),
        },
    };
    start_websocket(actor, &req, payload, server)
}

fn start_websocket<A>(
    actor: A,
    req: &HttpRequest,
    payload: web::Payload,
    server: &SocketIoServer,
) -> HttpResponse
where
    A: Actor<Context = ws::WebsocketContext<A>>
        + actix::StreamHandler<Result<ws::Message, ws::ProtocolError>>,
{
    ws::WsResponseBuilder::new(actor, req, payload)
        .frame_size(server.config().max_payload)
        .start()
        .unwrap_or_else(|_| bad_request())
}
