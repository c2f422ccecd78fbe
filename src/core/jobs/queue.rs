//! The queue's statements. Every change of a claimed job is conditional on the claim
//! (status `running`, this node's lease, the attempt it took), so a node whose lease lapsed
//! and was retaken elsewhere changes nothing.

use super::job::{Job, JobId, NewJob, Status};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, LockBehavior, LockType};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DatabaseConnection, DbBackend, DbErr, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, Set, TransactionTrait, TryInsertResult,
};
use switchboard_entities::core::job::{self, Column, Entity};
use uuid::Uuid;

/// Longest `last_error` kept.
const ERROR_CHARS: usize = 1000;

/// The row of a new job.
fn row(new: NewJob, now: DateTime<Utc>, default_max_attempts: i32) -> (Uuid, job::ActiveModel) {
    let id = Uuid::new_v4();
    let row = job::ActiveModel {
        id: Set(id),
        topic: Set(new.topic),
        payload: Set(new.payload),
        run_at: Set(new.run_at.unwrap_or(now)),
        attempts: Set(0),
        max_attempts: Set(Ord::max(
            new.max_attempts.unwrap_or(default_max_attempts),
            1,
        )),
        status: Set(Status::Queued),
        lease_owner: Set(None),
        lease_until: Set(None),
        last_error: Set(None),
        key: Set(new.key),
        created_at: Set(now),
        updated_at: Set(now),
    };
    (id, row)
}

/// Inserts `new`; `None` when its key is taken.
pub(super) async fn insert<C: ConnectionTrait>(
    conn: &C,
    new: NewJob,
    now: DateTime<Utc>,
    default_max_attempts: i32,
) -> Result<Option<JobId>, DbErr> {
    let (id, row) = row(new, now, default_max_attempts);
    let inserted = Entity::insert(row)
        .on_conflict_do_nothing_on([Column::Key])
        .exec_without_returning(conn)
        .await?;
    Ok(match inserted {
        TryInsertResult::Inserted(n) if n > 0 => Some(JobId(id)),
        _ => None,
    })
}

/// Rows per multi-row INSERT: 12 columns each stays far below SQLite's bound parameters.
const INSERT_CHUNK: usize = 500;

/// Inserts every job of `all` in multi-row statements (a job whose key is taken is skipped);
/// answers how many were inserted. One statement per 500 jobs instead of one per job.
pub(super) async fn insert_many<C: ConnectionTrait>(
    conn: &C,
    all: Vec<NewJob>,
    now: DateTime<Utc>,
    default_max_attempts: i32,
) -> Result<u64, DbErr> {
    let mut inserted = 0;
    let mut rows = all
        .into_iter()
        .map(|new| row(new, now, default_max_attempts).1)
        .peekable();
    while rows.peek().is_some() {
        let chunk: Vec<_> = rows.by_ref().take(INSERT_CHUNK).collect();
        if let TryInsertResult::Inserted(n) = Entity::insert_many(chunk)
            .on_conflict_do_nothing_on([Column::Key])
            .exec_without_returning(conn)
            .await?
        {
            inserted += n;
        }
    }
    Ok(inserted)
}

/// What a node asks for when it claims.
pub(super) struct Claim<'a> {
    pub owner: &'a str,
    pub topics: &'a [&'static str],
    pub now: DateTime<Utc>,
    pub lease_until: DateTime<Utc>,
    /// Most due rows read.
    pub limit: u64,
}

/// What a claim took: its runs, and whether it read as many rows as it could (more may be due).
pub(super) struct Claimed {
    pub runs: Vec<Vec<Job>>,
    pub more: bool,
}

/// Queued and due, or running under another node's lapsed lease (that node is gone; this
/// node's own runs are still going, even when a moved clock says their lease lapsed).
fn claimable(c: &Claim<'_>) -> Condition {
    Condition::any()
        .add(
            Condition::all()
                .add(Column::Status.eq(Status::Queued))
                .add(Column::RunAt.lte(c.now)),
        )
        .add(
            Condition::all()
                .add(Column::Status.eq(Status::Running))
                .add(Column::LeaseUntil.lte(c.now))
                .add(Column::LeaseOwner.ne(c.owner)),
        )
}

fn taken_by(c: &Claim<'_>) -> sea_orm::UpdateMany<Entity> {
    Entity::update_many()
        .col_expr(Column::Status, Expr::value(Status::Running))
        .col_expr(Column::LeaseOwner, Expr::value(c.owner))
        .col_expr(Column::LeaseUntil, Expr::value(c.lease_until))
        .col_expr(Column::Attempts, Expr::col(Column::Attempts).add(1))
        .col_expr(Column::UpdatedAt, Expr::value(c.now))
}

/// Reads up to `limit` due jobs of these topics, oldest first, and takes the ones `pick`
/// groups into runs (indices into the rows read).
pub(super) async fn claim(
    db: &DatabaseConnection,
    c: &Claim<'_>,
    pick: impl FnOnce(&[job::Model]) -> Vec<Vec<usize>>,
) -> Result<Claimed, DbErr> {
    if c.topics.is_empty() || c.limit == 0 {
        return Ok(Claimed {
            runs: Vec::new(),
            more: false,
        });
    }
    let due = Entity::find()
        .filter(claimable(c))
        .filter(Column::Topic.is_in(c.topics.iter().copied()))
        .order_by_asc(Column::RunAt)
        .limit(c.limit);
    let (rows, runs) = match db.get_database_backend() {
        // Rows another node is claiming are skipped, not waited for.
        DbBackend::Postgres => {
            let txn = db.begin().await?;
            let rows = due
                .lock_with_behavior(LockType::Update, LockBehavior::SkipLocked)
                .all(&txn)
                .await?;
            let runs = pick(&rows);
            take(&txn, c, &rows, &runs).await?;
            txn.commit().await?;
            (rows, runs)
        }
        // The single writer: the transaction holds the write lock from its start, so the rows
        // are still as read when the update takes them (and it commits once for the batch).
        _ => {
            let txn = crate::core::db::begin_write(db).await?;
            let rows = due.all(&txn).await?;
            let runs = pick(&rows);
            take(&txn, c, &rows, &runs).await?;
            txn.commit().await?;
            (rows, runs)
        }
    };
    let more = rows.len() as u64 == c.limit;
    let mut rows: Vec<Option<job::Model>> = rows.into_iter().map(Some).collect();
    let runs = runs
        .iter()
        .map(|run| {
            run.iter()
                .filter_map(|&i| rows.get_mut(i).and_then(Option::take))
                .map(Job::claimed)
                .collect()
        })
        .collect();
    Ok(Claimed { runs, more })
}

async fn take<C: ConnectionTrait>(
    conn: &C,
    c: &Claim<'_>,
    rows: &[job::Model],
    runs: &[Vec<usize>],
) -> Result<(), DbErr> {
    let ids: Vec<Uuid> = runs
        .iter()
        .flatten()
        .filter_map(|&i| rows.get(i).map(|r| r.id))
        .collect();
    if !ids.is_empty() {
        taken_by(c).filter(Column::Id.is_in(ids)).exec(conn).await?;
    }
    Ok(())
}

/// Queues again, due now, the jobs `owner` was running when its process ended (claimed
/// before `before`, when this process started): the node's own claims are taken back at
/// once rather than after their leases. The interrupted attempt still counts, so a job that
/// kills its process every time ends dead instead of looping.
pub(super) async fn take_back(
    db: &DatabaseConnection,
    owner: &str,
    before: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    let taken = Entity::update_many()
        .col_expr(Column::Status, Expr::value(Status::Queued))
        .col_expr(Column::LeaseOwner, Expr::value(Option::<String>::None))
        .col_expr(
            Column::LeaseUntil,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(Column::RunAt, Expr::value(now))
        .col_expr(Column::UpdatedAt, Expr::value(now))
        .filter(Column::Status.eq(Status::Running))
        .filter(Column::LeaseOwner.eq(owner))
        .filter(Column::UpdatedAt.lt(before))
        .exec(db)
        .await?;
    Ok(taken.rows_affected)
}

/// How a claimed job ends its run.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum End {
    Done,
    /// Back to the queue (a retry, or a recurring job's next run).
    Queued {
        run_at: DateTime<Utc>,
        error: Option<String>,
        /// A recurring job's successful run starts its count afresh.
        fresh: bool,
    },
    Dead {
        error: String,
    },
}

fn truncate(s: &str) -> String {
    s.chars().take(ERROR_CHARS).collect()
}

/// `jobs` as this node claimed them (still running under our lease, each at its attempt).
fn held(q: sea_orm::UpdateMany<Entity>, jobs: &[&Job], owner: &str) -> sea_orm::UpdateMany<Entity> {
    let each = jobs.iter().fold(Condition::any(), |any, job| {
        any.add(
            Condition::all()
                .add(Column::Id.eq(job.id.0))
                .add(Column::Attempts.eq(job.attempt)),
        )
    });
    q.filter(Column::Status.eq(Status::Running))
        .filter(Column::LeaseOwner.eq(owner))
        .filter(each)
}

/// Most jobs one conditional statement names (two parameters each).
const HELD_CHUNK: usize = 400;

/// Records the end of a run's jobs: the ones done in one statement per chunk, the others one
/// by one. Answers how many of them this node still held.
pub(super) async fn finish_all(
    db: &DatabaseConnection,
    ends: Vec<(&Job, End)>,
    owner: &str,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    let (done, other): (Vec<_>, Vec<_>) = ends.into_iter().partition(|(_, end)| *end == End::Done);
    let done: Vec<&Job> = done.into_iter().map(|(job, _)| job).collect();
    let mut held_n = 0;
    for chunk in done.chunks(HELD_CHUNK) {
        held_n += held(ended(End::Done, now), chunk, owner)
            .exec(db)
            .await?
            .rows_affected;
    }
    for (job, end) in other {
        held_n += held(ended(end, now), &[job], owner)
            .exec(db)
            .await?
            .rows_affected;
    }
    Ok(held_n)
}

/// The update that ends a run as `end`, for [`held`] to limit.
fn ended(end: End, now: DateTime<Utc>) -> sea_orm::UpdateMany<Entity> {
    let q = Entity::update_many()
        .col_expr(Column::LeaseOwner, Expr::value(Option::<String>::None))
        .col_expr(
            Column::LeaseUntil,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(Column::UpdatedAt, Expr::value(now));
    match end {
        End::Done => q.col_expr(Column::Status, Expr::value(Status::Done)),
        End::Queued {
            run_at,
            error,
            fresh,
        } => {
            let q = q
                .col_expr(Column::Status, Expr::value(Status::Queued))
                .col_expr(Column::RunAt, Expr::value(run_at))
                .col_expr(
                    Column::LastError,
                    Expr::value(error.as_deref().map(truncate)),
                );
            if fresh {
                q.col_expr(Column::Attempts, Expr::value(0))
            } else {
                q
            }
        }
        End::Dead { error } => q
            .col_expr(Column::Status, Expr::value(Status::Dead))
            .col_expr(Column::LastError, Expr::value(truncate(&error))),
    }
}

/// Extends this node's lease of a run's jobs; answers how many it still held.
pub(super) async fn renew(
    db: &DatabaseConnection,
    jobs: &[Job],
    owner: &str,
    lease_until: DateTime<Utc>,
) -> Result<u64, DbErr> {
    let mut held_n = 0;
    let jobs: Vec<&Job> = jobs.iter().collect();
    for chunk in jobs.chunks(HELD_CHUNK) {
        let q = Entity::update_many().col_expr(Column::LeaseUntil, Expr::value(lease_until));
        held_n += held(q, chunk, owner).exec(db).await?.rows_affected;
    }
    Ok(held_n)
}

/// When the earliest queued job of these topics falls due.
pub(super) async fn next_run_at(
    db: &DatabaseConnection,
    topics: &[&'static str],
) -> Result<Option<DateTime<Utc>>, DbErr> {
    if topics.is_empty() {
        return Ok(None);
    }
    Entity::find()
        .select_only()
        .column(Column::RunAt)
        .filter(Column::Status.eq(Status::Queued))
        .filter(Column::Topic.is_in(topics.iter().copied()))
        .order_by_asc(Column::RunAt)
        .into_tuple::<DateTime<Utc>>()
        .one(db)
        .await
}

/// Deletes jobs that finished before `before`.
pub(super) async fn purge_done(
    db: &DatabaseConnection,
    before: DateTime<Utc>,
) -> Result<u64, DbErr> {
    Ok(Entity::delete_many()
        .filter(Column::Status.eq(Status::Done))
        .filter(Column::UpdatedAt.lt(before))
        .exec(db)
        .await?
        .rows_affected)
}
