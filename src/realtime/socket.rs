//! What application code sees of a connected socket: the handle it emits
//! through, the events it receives and the trait it implements per namespace;
//! and the commands a handle sends its connection's actor (run inline when the
//! handle is used on that actor's own turn).

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use actix::{Message, Recipient};
use actix_web::web::Bytes;
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;

use super::rooms::Rooms;
use super::socketio::{self, EncodeError, Frame};

/// Why a socket left its namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisconnectReason {
    /// The client sent DISCONNECT for this namespace.
    ClientNamespaceDisconnect,
    /// The application called [`SocketHandle::disconnect`].
    ServerNamespaceDisconnect,
    /// The client closed the connection (Engine.IO close or socket closed).
    TransportClose,
    /// The client did not answer a ping within the ping timeout.
    PingTimeout,
    /// The client sent a packet that could not be parsed, or more than
    /// maxPayload at once.
    ParseError,
    /// The application closed the whole connection, or the client sent
    /// more events than may be handled at once.
    ServerClose,
    /// More packets waited for the client than `max_outbound_queue`.
    SlowClient,
    /// No handler admitted the connection within `admission_timeout`.
    NotAdmitted,
}

/// Implemented by the application once per namespace.
///
/// Handlers run as tasks on the connection's worker thread; they may await
/// actors or the database. Events from one socket start in arrival order.
#[async_trait]
pub trait NamespaceHandler: Send + Sync + 'static {
    /// Decides whether the socket may join. `auth` is the CONNECT payload
    /// (`{}` when the client sent none). `Err(message)` is sent to the client
    /// as CONNECT_ERROR `{"message": …}`. Packets emitted from here reach the
    /// client after the CONNECT answer.
    async fn on_connect(&self, socket: SocketHandle, auth: Value) -> Result<(), String> {
        let _ = (socket, auth);
        Ok(())
    }

    /// An EVENT or BINARY_EVENT from the client.
    async fn on_event(&self, socket: SocketHandle, event: Event);

    /// The socket left the namespace; it has already left all its rooms.
    async fn on_disconnect(&self, socket: SocketHandle, reason: DisconnectReason) {
        let _ = (socket, reason);
    }
}

/// An event received from a client.
#[derive(Debug)]
pub struct Event {
    pub name: String,
    /// Arguments after the event name. Binary values appear as placeholders
    /// (see [`socketio::placeholder_index`]) indexing `attachments`.
    pub args: Vec<Value>,
    pub attachments: Vec<Bytes>,
    /// Present when the client asked for an acknowledgement.
    pub ack: Option<AckSender>,
}

/// Answers one client event that asked for an acknowledgement.
#[derive(Debug)]
pub struct AckSender {
    socket: SocketHandle,
    id: u64,
}

impl AckSender {
    pub(crate) fn new(socket: SocketHandle, id: u64) -> Self {
        Self { socket, id }
    }

    pub fn send(self, args: &[Value]) -> Result<(), EncodeError> {
        self.send_with_binary(args, Vec::new())
    }

    /// `args` should hold [`socketio::placeholder`]s for the attachments.
    pub fn send_with_binary(
        self,
        args: &[Value],
        attachments: Vec<Bytes>,
    ) -> Result<(), EncodeError> {
        let frame = socketio::ack_frame(self.socket.namespace(), self.id, args, attachments)?;
        self.socket.send_frame(frame);
        Ok(())
    }
}

/// Commands a connection's actor accepts from handles, the hub and itself.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) enum Command {
    /// A pre-encoded packet for the socket in namespace `nsp`.
    Frame { nsp: Arc<str>, frame: Frame },
    /// The outcome of [`NamespaceHandler::on_connect`].
    ConnectResult {
        nsp: Arc<str>,
        result: Result<(), String>,
    },
    /// Server-side disconnect from one namespace.
    Disconnect { nsp: Arc<str> },
    /// Close the whole Engine.IO connection.
    Close,
}

/// Where a connection's commands go. Shared by every handle of the
/// connection so an upgrade from polling to WebSocket can redirect them all.
pub(crate) type ConnTarget = Arc<TargetInner>;

pub(crate) struct TargetInner {
    recipient: RwLock<Recipient<Command>>,
    /// Commands sent through the mailbox and not yet handled by the
    /// connection. While it is zero, a handler running inline on the
    /// connection's actor may hand its commands over directly without
    /// overtaking anything.
    in_mailbox: AtomicUsize,
    /// Most commands that may wait in the mailbox (`max_outbound_queue`).
    max_in_mailbox: usize,
    /// Commands were dropped because the client does not keep up; the
    /// connection closes as soon as its actor runs.
    overflowed: AtomicBool,
    /// A handler admitted the connection ([`SocketHandle::admit`]).
    admitted: AtomicBool,
}

impl TargetInner {
    pub(crate) fn new(recipient: Recipient<Command>, max_in_mailbox: usize) -> ConnTarget {
        Arc::new(TargetInner {
            recipient: RwLock::new(recipient),
            in_mailbox: AtomicUsize::new(0),
            max_in_mailbox,
            overflowed: AtomicBool::new(false),
            admitted: AtomicBool::new(false),
        })
    }

    pub(crate) fn overflowed(&self) -> bool {
        self.overflowed.load(Ordering::Acquire)
    }

    pub(crate) fn admitted(&self) -> bool {
        self.admitted.load(Ordering::Acquire)
    }

    pub(crate) fn retarget(&self, recipient: Recipient<Command>) {
        *self
            .recipient
            .write()
            .unwrap_or_else(PoisonError::into_inner) = recipient;
    }

    /// A command sent through the mailbox reached the connection.
    pub(crate) fn mailbox_command_handled(&self) {
        // Saturating: commands dropped on the way (e.g. by an actor that
        // gave its connection away) only keep the inline path closed.
        let _ = self
            .in_mailbox
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    }
}

thread_local! {
    /// The connection whose handler is being polled inline on this thread,
    /// and the commands it produced meanwhile (see [`run_inline`]).
    static INLINE_TARGET: Cell<*const TargetInner> = const { Cell::new(std::ptr::null()) };
    static INLINE_COMMANDS: RefCell<Vec<Command>> = const { RefCell::new(Vec::new()) };
}

pub(crate) fn send_command(target: &ConnTarget, cmd: Command) {
    if INLINE_TARGET.get() == Arc::as_ptr(target) && target.in_mailbox.load(Ordering::Acquire) == 0
    {
        INLINE_COMMANDS.with_borrow_mut(|cmds| cmds.push(cmd));
        return;
    }
    // A client that does not read stops its actor (its writes are not
    // drained), so commands pile up here: past the bound they are dropped
    // and the connection is closed when the actor runs again.
    if target
        .in_mailbox
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < target.max_in_mailbox).then_some(n + 1)
        })
        .is_err()
    {
        target.overflowed.store(true, Ordering::Release);
        return;
    }
    target
        .recipient
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .do_send(cmd);
}

/// Runs a handler future on the connection's actor: polled once right away,
/// and spawned only if it has to wait. Commands it sends to its own
/// connection before then are returned instead of taking a trip through the
/// mailbox (the common case: an event answered at once).
pub(crate) fn run_inline(
    target: &ConnTarget,
    mut fut: Pin<Box<dyn Future<Output = ()> + Send + 'static>>,
) -> Vec<Command> {
    struct Reset(*const TargetInner);
    impl Drop for Reset {
        fn drop(&mut self) {
            INLINE_TARGET.set(self.0);
        }
    }
    let reset = Reset(INLINE_TARGET.replace(Arc::as_ptr(target)));
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    // Polling later with the spawned task's waker is allowed: a future
    // must wake the waker of its most recent poll.
    let pending = fut.as_mut().poll(&mut cx).is_pending();
    drop(reset);
    if pending {
        actix::spawn(fut);
    }
    INLINE_COMMANDS.with_borrow_mut(std::mem::take)
}

/// A socket connected to one namespace. Cheap to clone; stays valid (sends
/// become no-ops) after the socket is gone.
#[derive(Clone)]
pub struct SocketHandle(Arc<Inner>);

struct Inner {
    sid: Arc<str>,
    nsp: Arc<str>,
    target: ConnTarget,
    rooms: Arc<dyn Rooms>,
    data: Mutex<Option<Arc<dyn Any + Send + Sync>>>,
}

impl std::fmt::Debug for SocketHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SocketHandle")
            .field("sid", &self.0.sid)
            .field("nsp", &self.0.nsp)
            .finish()
    }
}

impl SocketHandle {
    pub(crate) fn new(
        sid: Arc<str>,
        nsp: Arc<str>,
        target: ConnTarget,
        rooms: Arc<dyn Rooms>,
    ) -> Self {
        Self(Arc::new(Inner {
            sid,
            nsp,
            target,
            rooms,
            data: Mutex::new(None),
        }))
    }

    /// The Socket.IO id of this socket (differs per namespace).
    pub fn id(&self) -> &str {
        &self.0.sid
    }

    pub(crate) fn id_arc(&self) -> &Arc<str> {
        &self.0.sid
    }

    pub fn namespace(&self) -> &str {
        &self.0.nsp
    }

    pub(crate) fn namespace_arc(&self) -> &Arc<str> {
        &self.0.nsp
    }

    /// Emits `event` with one argument, serialised without an intermediate `Value`.
    pub fn emit<T: Serialize + ?Sized>(&self, event: &str, data: &T) -> Result<(), EncodeError> {
        let frame = socketio::event_frame_one(&self.0.nsp, event, data)?;
        self.send_frame(frame);
        Ok(())
    }

    /// Emits `event` with any number of arguments.
    pub fn emit_args(&self, event: &str, args: &[Value]) -> Result<(), EncodeError> {
        self.emit_with_binary(event, args, Vec::new())
    }

    /// Emits `event` with binary attachments; `args` should hold
    /// [`socketio::placeholder`]s where the binary values belong.
    pub fn emit_with_binary(
        &self,
        event: &str,
        args: &[Value],
        attachments: Vec<Bytes>,
    ) -> Result<(), EncodeError> {
        let frame = socketio::event_frame(&self.0.nsp, event, args, attachments)?;
        self.send_frame(frame);
        Ok(())
    }

    /// Emits to every socket in `room` of this namespace except this one.
    pub fn broadcast_to<T: Serialize + ?Sized>(
        &self,
        room: &str,
        event: &str,
        data: &T,
    ) -> Result<(), EncodeError> {
        let frame = socketio::event_frame_one(&self.0.nsp, event, data)?;
        self.0.rooms.emit(
            self.0.nsp.clone(),
            room.to_owned(),
            frame,
            Some(self.0.sid.clone()),
        );
        Ok(())
    }

    /// Emits to every socket in `room` of this namespace, this one included
    /// if it is a member.
    pub fn emit_to_room<T: Serialize + ?Sized>(
        &self,
        room: &str,
        event: &str,
        data: &T,
    ) -> Result<(), EncodeError> {
        let frame = socketio::event_frame_one(&self.0.nsp, event, data)?;
        self.0
            .rooms
            .emit(self.0.nsp.clone(), room.to_owned(), frame, None);
        Ok(())
    }

    pub(crate) fn send_frame(&self, frame: Frame) {
        send_command(
            &self.0.target,
            Command::Frame {
                nsp: self.0.nsp.clone(),
                frame,
            },
        );
    }

    /// Adds the socket to a room of its namespace.
    pub fn join(&self, room: impl Into<String>) {
        self.0.rooms.join(self.0.sid.clone(), room.into());
    }

    pub fn leave(&self, room: impl Into<String>) {
        self.0.rooms.leave(self.0.sid.clone(), room.into());
    }

    /// Disconnects the socket from this namespace (sends DISCONNECT); the
    /// connection stays open for other namespaces.
    pub fn disconnect(&self) {
        send_command(
            &self.0.target,
            Command::Disconnect {
                nsp: self.0.nsp.clone(),
            },
        );
    }

    /// Marks the connection as admitted (authenticated, joined its session):
    /// with `admission_timeout` set, a connection no handler admits in time
    /// is closed.
    pub fn admit(&self) {
        self.0.target.admitted.store(true, Ordering::Release);
    }

    /// Closes the underlying connection and every namespace on it.
    pub fn close(&self) {
        send_command(&self.0.target, Command::Close);
    }

    /// Attaches application state (e.g. the authenticated user) to the socket.
    pub fn set_data<T: Any + Send + Sync>(&self, value: T) {
        *self.0.data.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(value));
    }

    /// The state set by [`set_data`](Self::set_data), if it has type `T`.
    pub fn data<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let data = self
            .0
            .data
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        data.downcast::<T>().ok()
    }

    pub(crate) fn rooms(&self) -> &Arc<dyn Rooms> {
        &self.0.rooms
    }
}
