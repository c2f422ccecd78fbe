//! The `Conversation` actix actor and the registry that finds or starts it. One mailbox per
//! conversation: its messages and receipts are written one at a time, in arrival order, and
//! each is announced only after its commit. An idle actor stops; the next command starts a
//! fresh one, which needs nothing but the database. On several nodes the conversation runs
//! on the node holding its lease, and a command arriving elsewhere is relayed there.

use super::events::{MESSAGE_READ, NEW_MESSAGE};
use super::writes::{append, mark_read, ConversationError};
use super::UserFeed;
use crate::interview::TimeSource;
use crate::registry::{ActorRegistry, Lease, Placement, Reached, Rerun, Retire, Route};
use actix::prelude::*;
use sea_orm::{DatabaseConnection, DbErr};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use switchboard_entities::core::actor_lease::ActorKind;
use switchboard_entities::marketplace::message;
use uuid::Uuid;

pub struct Deps {
    pub db: DatabaseConnection,
    pub clock: Arc<dyn TimeSource>,
    pub feed: Arc<dyn UserFeed>,
    /// An actor without a command for this long stops.
    pub idle: Duration,
}

/// The kind of actor leased per conversation (`core_actor_leases.kind`).
pub const KIND: ActorKind = ActorKind::MarketplaceConversation;

/// A new message from `sender` to `receiver`, the two participants.
#[derive(Message, Clone, Serialize, Deserialize)]
#[rtype(result = "Result<message::Model, ConversationError>")]
struct Post {
    /// The new message's id, chosen by the node that took the request: a post run again
    /// (its owner died before answering) finds its message stored and stores no other.
    message: Uuid,
    sender: Uuid,
    receiver: Uuid,
    text: String,
}

/// `reader` has read one message (`only`) or everything it received.
#[derive(Message, Clone, Serialize, Deserialize)]
#[rtype(result = "Result<Vec<message::Model>, ConversationError>")]
struct Read {
    reader: Uuid,
    only: Option<Uuid>,
}

struct Conversation {
    lease: Lease<Self>,
    deps: Arc<Deps>,
    idle_timer: Option<SpawnHandle>,
}

impl Conversation {
    /// A command arrived: the idle stop counts again from now. Commands block the mailbox
    /// while they run (`AtomicResponse`), so the timer never fires in the middle of one.
    fn touch(&mut self, ctx: &mut Context<Self>) {
        if let Some(t) = self.idle_timer.take() {
            ctx.cancel_future(t);
        }
        self.idle_timer = Some(ctx.run_later(self.deps.idle, |_, ctx| ctx.stop()));
    }
}

impl Actor for Conversation {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.touch(ctx);
    }

    fn stopped(&mut self, _: &mut Self::Context) {
        self.lease.release();
    }
}

/// Another node took this conversation over (see `ActorRegistry::owned`).
impl Handler<Retire> for Conversation {
    type Result = ();
    fn handle(&mut self, _: Retire, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

impl Handler<Post> for Conversation {
    type Result = AtomicResponse<Self, Result<message::Model, ConversationError>>;

    fn handle(&mut self, msg: Post, ctx: &mut Self::Context) -> Self::Result {
        self.touch(ctx);
        let deps = self.deps.clone();
        let id = self.lease.id();
        let work = async move {
            let now = deps.clock.now();
            let created = append(
                &deps.db,
                id,
                msg.message,
                msg.sender,
                msg.receiver,
                msg.text,
                now,
            )
            .await?;
            let payload = json!({
                "senderId": created.sender_id,
                "message": created.text,
                "timestamp": created.created_at,
                "messageId": created.id,
                "conversationId": created.conversation_id,
            });
            deps.feed
                .to_user(created.receiver_id, NEW_MESSAGE, &payload);
            Ok(created)
        };
        AtomicResponse::new(Box::pin(work.into_actor(self)))
    }
}

impl Handler<Read> for Conversation {
    type Result = AtomicResponse<Self, Result<Vec<message::Model>, ConversationError>>;

    fn handle(&mut self, msg: Read, ctx: &mut Self::Context) -> Self::Result {
        self.touch(ctx);
        let deps = self.deps.clone();
        let id = self.lease.id();
        let work = async move {
            let now = deps.clock.now();
            let mut read = mark_read(&deps.db, id, msg.reader, msg.only, now).await?;
            read.sort_by_key(|m| m.seq);
            for m in &read {
                let payload = json!({
                    "messageId": m.id,
                    "readAt": m.read_at,
                    "conversationId": m.conversation_id,
                });
                deps.feed.to_user(m.sender_id, MESSAGE_READ, &payload);
            }
            Ok(read)
        };
        AtomicResponse::new(Box::pin(work.into_actor(self)))
    }
}

/// A command for a conversation another node runs, as it crosses the bus.
#[derive(Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
enum Command {
    Post(Post),
    Read(Read),
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
enum WireError {
    NotFound,
    Db { message: String },
    Unavailable,
}

impl From<ConversationError> for WireError {
    fn from(e: ConversationError) -> Self {
        match e {
            ConversationError::NotFound => Self::NotFound,
            ConversationError::Db(e) => Self::Db {
                message: e.to_string(),
            },
            ConversationError::Unavailable => Self::Unavailable,
        }
    }
}

impl From<WireError> for ConversationError {
    fn from(e: WireError) -> Self {
        match e {
            WireError::NotFound => Self::NotFound,
            WireError::Db { message } => Self::Db(DbErr::Custom(message)),
            WireError::Unavailable => Self::Unavailable,
        }
    }
}

/// The running conversation actors. Cheap to clone; every clone is the same registry.
#[derive(Clone)]
pub struct Conversations {
    actors: Arc<ActorRegistry<Conversation>>,
}

impl Conversations {
    /// Must be called inside an actix System: the actors run on the current arbiter.
    /// Without `placement` every conversation runs here.
    pub fn new(deps: Deps, placement: Option<Placement>) -> Self {
        let deps = Arc::new(deps);
        Self {
            actors: ActorRegistry::owned(
                Arbiter::current(),
                move |lease| Conversation {
                    lease,
                    deps: deps.clone(),
                    idle_timer: None,
                },
                placement,
            ),
        }
    }

    /// Runs `msg` on the conversation's actor, here or on the node that owns it (relayed
    /// there as `command`).
    async fn run<M, T>(&self, id: Uuid, msg: M, command: Command) -> Result<T, ConversationError>
    where
        M: actix::Message<Result = Result<T, ConversationError>> + Clone + Send + 'static,
        T: serde::de::DeserializeOwned + Send + 'static,
        Conversation: Handler<M>,
    {
        // A post carries its message's id and a read marks what is unread: both may run twice.
        match self.actors.reach(id, &command, Rerun::Safe).await? {
            Reached::Here => self.send(id, msg).await,
            Reached::There(answer) => answer
                .and_then(|a| serde_json::from_value::<Result<T, WireError>>(a).ok())
                .unwrap_or(Err(WireError::Unavailable))
                .map_err(ConversationError::from),
        }
    }

    /// Runs a command another node relayed: here, when this node owns the conversation (or
    /// can claim it); never relayed again.
    pub async fn run_forwarded(&self, id: Uuid, command: Value) -> Value {
        let routed = match self.actors.route(id).await {
            Ok(Route::Here(_)) => Ok(()),
            Ok(Route::Elsewhere(_)) => Err(WireError::Unavailable),
            Err(e) => Err(ConversationError::Db(e).into()),
        };
        let answer = match (routed, serde_json::from_value::<Command>(command)) {
            (Err(e), _) => serde_json::to_value(Err::<(), _>(e)),
            (Ok(()), Err(_)) => serde_json::to_value(Err::<(), _>(WireError::Unavailable)),
            (Ok(()), Ok(Command::Post(p))) => {
                let out: Result<message::Model, ConversationError> = self.send(id, p).await;
                serde_json::to_value(out.map_err(WireError::from))
            }
            (Ok(()), Ok(Command::Read(r))) => {
                let out: Result<Vec<message::Model>, ConversationError> = self.send(id, r).await;
                serde_json::to_value(out.map_err(WireError::from))
            }
        };
        answer.unwrap_or_default()
    }

    async fn send<M, T>(&self, id: Uuid, msg: M) -> Result<T, ConversationError>
    where
        M: actix::Message<Result = Result<T, ConversationError>> + Clone + Send + 'static,
        T: Send + 'static,
        Conversation: Handler<M>,
    {
        self.actors
            .send(id, msg)
            .await
            .unwrap_or(Err(ConversationError::Unavailable))
    }

    /// How many conversation actors are alive.
    pub fn live(&self) -> usize {
        self.actors.running()
    }

    /// Stores a message of the conversation `id` (whose participants the caller checked),
    /// then announces `new_message` to the receiver.
    pub async fn post(
        &self,
        id: Uuid,
        sender: Uuid,
        receiver: Uuid,
        text: String,
    ) -> Result<message::Model, ConversationError> {
        let post = Post {
            message: Uuid::new_v4(),
            sender,
            receiver,
            text,
        };
        self.run(id, post.clone(), Command::Post(post)).await
    }

    /// Marks read what `reader` received in conversation `id` (`only`: that message), then
    /// announces `message_read` to the sender of each. Answers the messages read now.
    pub async fn read(
        &self,
        id: Uuid,
        reader: Uuid,
        only: Option<Uuid>,
    ) -> Result<Vec<message::Model>, ConversationError> {
        let read = Read { reader, only };
        self.run(id, read.clone(), Command::Read(read)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use sea_orm::{ActiveModelTrait, ConnectOptions, Database, EntityTrait, Set};
    use serde_json::Value;
    use std::sync::Mutex;
    use switchboard_entities::marketplace::{conversation, user};

    struct SystemTime;

    impl TimeSource for SystemTime {
        fn now(&self) -> DateTime<Utc> {
            Utc::now()
        }
    }

    /// Every event, with its recipient.
    #[derive(Default)]
    struct Heard(Mutex<Vec<(Uuid, String, Value)>>);

    impl UserFeed for Heard {
        fn to_user(&self, user: Uuid, event: &str, data: &Value) {
            self.0
                .lock()
                .unwrap()
                .push((user, event.to_owned(), data.clone()));
        }
    }

    impl Heard {
        fn of(&self, event: &str) -> Vec<(Uuid, Value)> {
            let all = self.0.lock().unwrap();
            all.iter()
                .filter(|(_, e, _)| e == event)
                .map(|(u, _, d)| (*u, d.clone()))
                .collect()
        }
    }

    /// A conversation between two fresh users in a private in-memory database with the
    /// project's schema (its trigger keeps the conversation's last message).
    ///
    /// A database of its own: on the PostgreSQL server `TEST_DATABASE_URL` names (as CI's
    /// PostgreSQL pass sets it), else SQLite in memory.
    async fn database() -> DatabaseConnection {
        use sea_orm::ConnectionTrait;
        let Some(server) = std::env::var("TEST_DATABASE_URL")
            .ok()
            .filter(|u| u.starts_with("postgres"))
        else {
            let mut opts = ConnectOptions::new("sqlite::memory:");
            // One connection: every connection to `:memory:` is a database of its own.
            opts.max_connections(1).sqlx_logging(false);
            return Database::connect(opts).await.unwrap();
        };
        let name = format!("sb_actors_{}", Uuid::new_v4().simple());
        let admin = Database::connect(&server).await.unwrap();
        admin
            .execute_unprepared(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        admin.close().await.ok();
        // The server's URL with this database's name in place of its own.
        let (base, query) = server.split_once('?').unwrap_or((&server, ""));
        let root = base.rsplit_once('/').map_or(base, |(root, _)| root);
        let url = if query.is_empty() {
            format!("{root}/{name}")
        } else {
            format!("{root}/{name}?{query}")
        };
        let mut opts = ConnectOptions::new(url);
        opts.max_connections(4).sqlx_logging(false);
        Database::connect(opts).await.unwrap()
    }

    async fn setup(
        idle: Duration,
    ) -> (
        Conversations,
        Arc<Heard>,
        Uuid,
        Uuid,
        Uuid,
        DatabaseConnection,
    ) {
        use switchboard_migration::MigratorTrait;
        let db = database().await;
        switchboard_migration::Migrator::up(&db, None)
            .await
            .unwrap();
        let (a, b, id) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        for (n, user) in [a, b].into_iter().enumerate() {
            user::ActiveModel {
                id: Set(user),
                phone: Set(format!("+4917600000{n}")),
                email: Set(None),
                name: Set(None),
                password_hash: Set("-".into()),
                role: Set("customer".into()),
                is_phone_verified: Set(true),
                failed_logins: Set(0),
                lock_count: Set(0),
                locked_until: Set(None),
                created_at: Set(Utc::now()),
                updated_at: Set(Utc::now()),
            }
            .insert(&db)
            .await
            .unwrap();
        }
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        conversation::ActiveModel {
            id: Set(id),
            user_a: Set(a),
            user_b: Set(b),
            last_seq: Set(0),
            last_message_id: Set(None),
            last_message_at: Set(None),
            created_at: Set(Utc::now()),
        }
        .insert(&db)
        .await
        .unwrap();
        let heard = Arc::new(Heard::default());
        let conversations = Conversations::new(
            Deps {
                db: db.clone(),
                clock: Arc::new(SystemTime),
                feed: heard.clone(),
                idle,
            },
            None,
        );
        (conversations, heard, id, a, b, db)
    }

    #[actix::test]
    async fn an_idle_actor_stops_and_the_next_one_continues_the_sequence() {
        let (conv, heard, id, a, b, db) = setup(Duration::from_millis(50)).await;
        let first = conv.post(id, a, b, "one".into()).await.unwrap();
        assert_eq!((first.seq, conv.live()), (1, 1));
        actix::clock::sleep(Duration::from_millis(200)).await;
        assert_eq!(conv.live(), 0, "stopped when idle");
        let second = conv.post(id, a, b, "two".into()).await.unwrap();
        assert_eq!(second.seq, 2);
        let row = conversation::Entity::find_by_id(id)
            .one(&db)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (row.last_seq, row.last_message_id, row.last_message_at),
            (2, Some(second.id), Some(second.created_at)),
            "the conversation records its last message"
        );
        let told = heard.of(NEW_MESSAGE);
        assert_eq!(told.len(), 2);
        assert!(told.iter().all(|(to, _)| *to == b), "only the receiver");
        assert_eq!(told[1].1["messageId"], second.id.to_string());
    }

    #[actix::test]
    async fn a_receipt_is_written_and_announced_once() {
        let (conv, heard, id, a, b, _) = setup(Duration::from_secs(60)).await;
        let m = conv.post(id, a, b, "hello".into()).await.unwrap();
        // The sender reads nothing of their own.
        assert!(conv.read(id, a, None).await.unwrap().is_empty());
        let read = conv.read(id, b, Some(m.id)).await.unwrap();
        assert_eq!(read.len(), 1);
        assert!(read[0].read_at.is_some());
        assert!(conv.read(id, b, Some(m.id)).await.unwrap().is_empty());
        assert!(conv.read(id, b, None).await.unwrap().is_empty());
        let receipts = heard.of(MESSAGE_READ);
        assert_eq!(receipts.len(), 1);
        assert_eq!(receipts[0].0, a, "to the sender");
    }

    #[actix::test]
    async fn a_post_run_twice_stores_its_message_once() {
        let (conv, _, id, a, b, db) = setup(Duration::from_secs(60)).await;
        // As a node relays it, and again after its owner died before answering.
        let post = serde_json::to_value(Command::Post(Post {
            message: Uuid::new_v4(),
            sender: a,
            receiver: b,
            text: "once".into(),
        }))
        .unwrap();
        let first = conv.run_forwarded(id, post.clone()).await;
        assert_eq!(first["Ok"]["seq"], 1, "{first}");
        assert_eq!(
            conv.run_forwarded(id, post).await,
            first,
            "the same message"
        );
        let stored = message::Entity::find().all(&db).await.unwrap();
        assert_eq!(stored.len(), 1);
        let row = conversation::Entity::find_by_id(id)
            .one(&db)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(row.last_seq, 1);
    }
}
