//! The durable job queue: all background work of every service. A job is a row
//! (`core_jobs`) with a topic, a JSON payload and a time to run; services register one
//! handler per topic when they are mounted (`handle`) and enqueue jobs with any connection,
//! so a job can commit with the transaction that made it necessary (`enqueue`). Recurring work
//! (`every`) is one row per topic for the whole cluster.
//!
//! Each node's worker (`worker.rs`) claims due jobs by taking a lease on them — `SELECT … FOR
//! UPDATE SKIP LOCKED` on PostgreSQL, a conditional UPDATE on SQLite — renews the lease while
//! the handler runs, and records the outcome under that lease: done, queued again for a retry
//! (at the handler's time, or after exponential backoff with jitter), or dead after
//! `max_attempts`. A node that dies leaves its leases to lapse; another node retakes those
//! jobs, so a handler may run more than once (at least once) and must tolerate it. Nothing is
//! process-local: the rows are the truth. The worker polls every `poll_interval_ms`, is woken
//! at once by an enqueue on this node, and sleeps on the injected clock until the next
//! queued job is due, so a test that moves its clock sees jobs run.
//!
//! A topic whose jobs are cheaper together (one transaction for many rows instead of one each)
//! registers a batch handler (`handle_batch`): the worker hands it up to its batch size of due
//! jobs of that topic in one run, and records their outcomes in one statement when they agree.

mod admin;
mod backoff;
mod job;
mod plan;
mod queue;
mod schedule;
mod worker;

pub use admin::{backlog, list, retry, table, Backlog, ListFilter, Retried};
pub use job::{counted, Done, Job, JobFailure, JobId, NewJob, Status};
pub use schedule::key as recurring_key;

use crate::core::clock::SharedClock;
use crate::core::config::JobsSettings;
use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbErr};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;
use tokio::sync::{watch, Notify};
use tokio::task::{AbortHandle, JoinHandle};

/// What a handler returns.
pub type JobResult = Result<Done, JobFailure>;
/// Every handler runs a batch of its topic's jobs and answers one result per job, in order; a
/// plain handler's batch is one job.
type HandlerFn = Arc<dyn Fn(Vec<Job>) -> BoxFuture<'static, Vec<JobResult>> + Send + Sync>;

#[derive(Clone)]
struct Handler {
    run: HandlerFn,
    /// Set for a recurring topic: its interval.
    every: Option<Duration>,
    /// Most jobs of the topic one run takes.
    batch: usize,
    /// Most runs of the topic this node has going at once (None: only the worker's room).
    max_runs: Option<usize>,
}

/// A one-job handler as a batch handler.
fn single<F, Fut>(handler: F) -> HandlerFn
where
    F: Fn(Job) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = JobResult> + Send + 'static,
{
    let handler = Arc::new(handler);
    Arc::new(move |jobs: Vec<Job>| {
        let handler = handler.clone();
        Box::pin(async move {
            let mut results = Vec::with_capacity(jobs.len());
            for job in jobs {
                results.push(handler(job).await);
            }
            results
        })
    })
}

/// How often finished jobs older than `keep_done_days` are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(3600);

/// The queue as this node sees it: its handlers and its worker. Cheap to clone; every clone
/// is the same queue.
#[derive(Clone)]
pub struct Jobs(Arc<Inner>);

struct Inner {
    db: DatabaseConnection,
    clock: SharedClock,
    cfg: JobsSettings,
    /// This node's name in `lease_owner`.
    owner: Arc<str>,
    /// When this process made the queue: a claim this node's name took earlier was taken
    /// by a process that is gone (the id is fenced, `core::node`).
    started_at: DateTime<Utc>,
    handlers: RwLock<HashMap<&'static str, Handler>>,
    /// Recurring topics whose row this node has not made sure of yet.
    unsynced: Mutex<Vec<(&'static str, Duration)>>,
    wake: Notify,
    stop: watch::Sender<bool>,
    worker: Mutex<Option<JoinHandle<()>>>,
    /// The worker's runs now, by their first job.
    running: Mutex<HashMap<JobId, Running>>,
    /// Counts runs ended, for waiters on `running`.
    ended: watch::Sender<u64>,
    /// Held while claiming and noting what was claimed, so `run_due` sees either the row or
    /// the running job.
    claiming: tokio::sync::Mutex<()>,
}

/// A run the worker has going: its topic, its jobs and its task.
struct Running {
    topic: String,
    jobs: Vec<JobId>,
    task: AbortHandle,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Jobs {
    /// The queue on `db`, claiming under `owner`: this node's id.
    pub fn new(
        db: DatabaseConnection,
        clock: SharedClock,
        cfg: &JobsSettings,
        owner: Arc<str>,
    ) -> Self {
        let jobs = Self(Arc::new(Inner {
            started_at: clock.now(),
            db,
            clock,
            cfg: cfg.clone(),
            owner,
            handlers: RwLock::new(HashMap::new()),
            unsynced: Mutex::new(Vec::new()),
            wake: Notify::new(),
            stop: watch::channel(false).0,
            worker: Mutex::new(None),
            running: Mutex::new(HashMap::new()),
            ended: watch::channel(0).0,
            claiming: tokio::sync::Mutex::new(()),
        }));
        jobs.register_purge();
        jobs
    }

    /// Runs `handler` for every job of `topic` (one handler per topic; a later one replaces
    /// it).
    pub fn handle<F, Fut>(&self, topic: &'static str, handler: F)
    where
        F: Fn(Job) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = JobResult> + Send + 'static,
    {
        self.add(topic, single(handler), None, 1);
    }

    /// Runs `handler` for up to `max` due jobs of `topic` at once (never fewer than one). It
    /// answers one result per job, in the order given; a job it gives no result for is retried.
    pub fn handle_batch<F, Fut>(&self, topic: &'static str, max: usize, handler: F)
    where
        F: Fn(Vec<Job>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<JobResult>> + Send + 'static,
    {
        let run: HandlerFn = Arc::new(move |jobs| Box::pin(handler(jobs)));
        self.add(topic, run, None, max.max(1));
    }

    /// Runs `handler` once per `every` across all nodes, the first time one interval after
    /// the topic's row is created.
    pub fn every<F, Fut>(&self, topic: &'static str, every: Duration, handler: F)
    where
        F: Fn(Job) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = JobResult> + Send + 'static,
    {
        let every = every.max(Duration::from_secs(1));
        self.add(topic, single(handler), Some(every), 1);
        lock(&self.0.unsynced).push((topic, every));
        self.wake();
    }

    fn add(&self, topic: &'static str, run: HandlerFn, every: Option<Duration>, batch: usize) {
        self.0
            .handlers
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(
                topic,
                Handler {
                    run,
                    every,
                    batch,
                    max_runs: None,
                },
            );
    }

    /// Lets this node run at most `runs` of `topic`'s jobs at once (call after registering
    /// its handler). Past that, its due jobs stay queued (not claimed, so no slot waits on
    /// them) and other topics' jobs take the free slots: work held by a scarce resource —
    /// the video encoder — queues behind it without starving mails and checks.
    pub fn limit_runs(&self, topic: &'static str, runs: usize) {
        if let Some(h) = self
            .0
            .handlers
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get_mut(topic)
        {
            h.max_runs = Some(runs.max(1));
        }
    }

    /// Every registered topic's cap on runs at once (see [`Jobs::limit_runs`]).
    fn run_caps(&self) -> HashMap<&'static str, usize> {
        self.0
            .handlers
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .filter_map(|(topic, h)| h.max_runs.map(|n| (*topic, n)))
            .collect()
    }

    fn handler(&self, topic: &str) -> Option<Handler> {
        self.0
            .handlers
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(topic)
            .cloned()
    }

    /// Every registered topic with its batch size.
    fn topics(&self) -> HashMap<&'static str, usize> {
        self.0
            .handlers
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .map(|(topic, h)| (*topic, h.batch))
            .collect()
    }

    /// Writes `job` with `conn` — a transaction's, so that the job commits with the work that
    /// made it necessary — and wakes this node's worker. `None` when its key is taken. Inside
    /// a transaction, call [`Jobs::wake`] again after the commit: until then the worker cannot
    /// see the row.
    pub async fn enqueue<C: ConnectionTrait>(
        &self,
        conn: &C,
        job: NewJob,
    ) -> Result<Option<JobId>, DbErr> {
        let id = queue::insert(conn, job, self.0.clock.now(), self.0.cfg.max_attempts).await?;
        self.wake();
        Ok(id)
    }

    /// This node's name, as its leases name it (services claiming their own rows use it too).
    pub fn owner(&self) -> &str {
        &self.0.owner
    }

    /// Whether a claim by `owner` last written at `at` belongs to an earlier process of this
    /// node, which is gone: this one may take it back at once instead of waiting it out.
    pub fn left_by_earlier_run(&self, owner: Option<&str>, at: DateTime<Utc>) -> bool {
        owner == Some(self.owner()) && at < self.0.started_at
    }

    /// [`Jobs::enqueue`] for many jobs at once, in multi-row INSERTs; answers how many were
    /// written (a job whose key is taken is skipped).
    pub async fn enqueue_many<C: ConnectionTrait>(
        &self,
        conn: &C,
        jobs: Vec<NewJob>,
    ) -> Result<u64, DbErr> {
        let n = queue::insert_many(conn, jobs, self.0.clock.now(), self.0.cfg.max_attempts).await?;
        self.wake();
        Ok(n)
    }

    /// Makes this node's worker look for due jobs now.
    pub fn wake(&self) {
        self.0.wake.notify_one();
    }

    /// Deletes finished jobs after `keep_done_days`; dead ones stay for an operator.
    fn register_purge(&self) {
        let (db, clock) = (self.0.db.clone(), self.0.clock.clone());
        let keep = chrono::Duration::days(self.0.cfg.keep_done_days);
        self.every("jobs.purge", PURGE_EVERY, move |_| {
            let (db, before) = (db.clone(), clock.now() - keep);
            async move { Ok(queue::purge_done(&db, before).await?.into()) }
        });
    }
}
