//! This node's worker: the loop that claims due jobs and runs them, one task per run (a job,
//! or a batch of one topic's jobs), at most `concurrency` runs at once; `run_due` for tests and
//! `stop` for shutdown.

use super::job::{Job, JobFailure, JobId};
use super::plan::Plan;
use super::queue::{self, Claim, Claimed, End};
use super::{backoff, lock, schedule, Handler, JobResult, Jobs, Running};
use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use sea_orm::DbErr;
use std::collections::HashMap;
use std::time::Duration;

/// Most runs one `run_due` call starts.
const RUN_DUE_LIMIT: usize = 1000;

/// Removes a finished (or aborted) run (named by its first job) from `running` and tells
/// whoever waits.
struct Ended(Jobs, JobId);

impl Drop for Ended {
    fn drop(&mut self) {
        let inner = &self.0 .0;
        lock(&inner.running).remove(&self.1);
        inner.ended.send_modify(|n| *n += 1);
        inner.wake.notify_one();
    }
}

impl Jobs {
    /// Makes sure the recurring jobs registered so far have their rows, then starts this
    /// node's worker (once; inside the runtime).
    pub async fn start(&self) -> Result<(), DbErr> {
        let now = self.0.clock.now();
        let taken = queue::take_back(&self.0.db, &self.0.owner, self.0.started_at, now).await?;
        if taken > 0 {
            tracing::info!(
                jobs = taken,
                "jobs this node was running when it last stopped are due again"
            );
        }
        self.sync_recurring().await?;
        let mut worker = lock(&self.0.worker);
        if worker.is_none() && !*self.0.stop.borrow() {
            let this = self.clone();
            *worker = Some(tokio::spawn(async move { this.work().await }));
        }
        Ok(())
    }

    /// Stops claiming, lets running jobs finish for up to `grace`, then abandons them: their
    /// leases lapse and another node (or this one, restarted) retakes them. Queued jobs stay
    /// queued.
    pub async fn stop(&self, grace: Duration) {
        self.0.stop.send_replace(true);
        let worker = lock(&self.0.worker).take();
        if let Some(worker) = worker {
            let _ = worker.await;
        }
        let busy = self.busy();
        if tokio::time::timeout(grace, self.ended(&busy))
            .await
            .is_err()
        {
            let abandoned: Vec<_> = lock(&self.0.running).drain().collect();
            tracing::warn!(
                jobs = abandoned.len(),
                "jobs still running at shutdown were abandoned; their leases will lapse"
            );
            for (_, run) in abandoned {
                run.task.abort();
            }
        }
        // Handlers hold their services' state, which holds this queue: let both go.
        self.0
            .handlers
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
    }

    /// Runs every job due now on this node's clock and returns how many it ran; returns once
    /// those, and whatever this node's worker was already running, have finished. Tests use it
    /// to run jobs deterministically instead of waiting for the worker.
    pub async fn run_due(&self) -> Result<usize, DbErr> {
        self.sync_recurring().await?;
        let (runs, busy) = {
            let _claiming = self.0.claiming.lock().await;
            let claimed = self.claim(RUN_DUE_LIMIT).await?;
            (claimed.runs, self.busy())
        };
        let n = runs.iter().map(Vec::len).sum();
        futures_util::future::join_all(runs.into_iter().map(|run| self.execute(run))).await;
        self.ended(&busy).await;
        Ok(n)
    }

    /// Every job this node's worker is running now.
    fn busy(&self) -> Vec<JobId> {
        lock(&self.0.running)
            .values()
            .flat_map(|run| run.jobs.iter().copied())
            .collect()
    }

    /// Returns once none of `ids` is running.
    async fn ended(&self, ids: &[JobId]) {
        let mut ended = self.0.ended.subscribe();
        loop {
            let running = lock(&self.0.running)
                .values()
                .any(|run| run.jobs.iter().any(|id| ids.contains(id)));
            if !running {
                return;
            }
            if ended.changed().await.is_err() {
                return;
            }
        }
    }

    async fn work(self) {
        let mut stop = self.0.stop.subscribe();
        let poll = Duration::from_millis(self.0.cfg.poll_interval_ms);
        loop {
            if *stop.borrow() {
                return;
            }
            let next = match self.cycle().await {
                Ok(next) => next,
                Err(e) => {
                    tracing::error!(error = %e, "job queue: claiming failed");
                    Next::Poll
                }
            };
            let timer: BoxFuture<'static, ()> = match next {
                Next::Now => continue,
                Next::At(at) => self.0.clock.sleep_until(at),
                Next::Poll => Box::pin(std::future::pending()),
            };
            tokio::select! {
                _ = stop.wait_for(|stopped| *stopped) => return,
                _ = self.0.wake.notified() => {}
                _ = tokio::time::sleep(poll) => {}
                _ = timer => {}
            }
        }
    }

    /// Claims what this node has room for and starts it; says when to look again.
    async fn cycle(&self) -> Result<Next, DbErr> {
        self.sync_recurring().await?;
        let room = self
            .0
            .cfg
            .concurrency
            .saturating_sub(lock(&self.0.running).len());
        if room == 0 {
            // A run that ends wakes the worker.
            return Ok(Next::Poll);
        }
        {
            let _claiming = self.0.claiming.lock().await;
            let Claimed { runs, more } = self.claim(room).await?;
            let full = more || runs.len() == room;
            for run in runs {
                self.spawn(run);
            }
            if full {
                return Ok(Next::Now);
            }
        }
        let topics: Vec<&'static str> = self.topics().into_keys().collect();
        let next = queue::next_run_at(&self.0.db, &topics).await?;
        // A due row that was not claimed is another node's (locked or just taken): poll.
        Ok(match next {
            Some(at) if at > self.0.clock.now() => Next::At(at),
            _ => Next::Poll,
        })
    }

    /// Claims due jobs for at most `room` runs.
    async fn claim(&self, room: usize) -> Result<Claimed, DbErr> {
        let now = self.0.clock.now();
        let batch = self.topics();
        let runs_left = self.batch_runs_left(&batch);
        // A batch topic with no run left is not read at all: its backlog would fill the read
        // and hide the other topics' due jobs behind it.
        let topics: Vec<&'static str> = batch
            .keys()
            .copied()
            .filter(|topic| runs_left.get(topic) != Some(&0))
            .collect();
        let plan = Plan {
            room,
            batch: &batch,
            runs_left,
        };
        let claim = Claim {
            owner: &self.0.owner,
            topics: &topics,
            now,
            lease_until: now + self.lease(),
            limit: plan.read_limit(),
        };
        queue::claim(&self.0.db, &claim, |rows| {
            let topics: Vec<&str> = rows.iter().map(|r| r.topic.as_str()).collect();
            plan.runs(&topics)
        })
        .await
    }

    /// Runs each limited topic may still start: a batch topic under `[jobs] batch_runs`, a
    /// topic with a cap under it ([`Jobs::limit_runs`]).
    fn batch_runs_left(
        &self,
        batch: &HashMap<&'static str, usize>,
    ) -> HashMap<&'static str, usize> {
        let caps = self.run_caps();
        let running = lock(&self.0.running);
        batch
            .iter()
            .filter_map(|(topic, size)| {
                let by_batch = (*size > 1).then_some(self.0.cfg.batch_runs);
                let cap = match (by_batch, caps.get(topic).copied()) {
                    (Some(a), Some(b)) => a.min(b),
                    (a, b) => a.or(b)?,
                };
                let busy = running.values().filter(|run| run.topic == *topic).count();
                Some((*topic, cap.saturating_sub(busy)))
            })
            .collect()
    }

    fn lease(&self) -> Duration {
        Duration::from_secs(self.0.cfg.lease_secs)
    }

    fn spawn(&self, run: Vec<Job>) {
        let Some(id) = run.first().map(|job| job.id) else {
            return;
        };
        let jobs = run.iter().map(|job| job.id).collect();
        let topic = run.first().map(|job| job.topic.clone()).unwrap_or_default();
        let this = self.clone();
        // Held while spawning, so the run cannot end (and remove itself) before it is noted.
        let mut running = lock(&self.0.running);
        let task = tokio::spawn(async move {
            let _ended = Ended(this.clone(), id);
            this.execute(run).await;
        });
        let task = task.abort_handle();
        running.insert(id, Running { topic, jobs, task });
    }

    /// Makes sure every recurring topic registered on this node has its row.
    async fn sync_recurring(&self) -> Result<(), DbErr> {
        let todo = std::mem::take(&mut *lock(&self.0.unsynced));
        for (i, (topic, every)) in todo.iter().enumerate() {
            let now = self.0.clock.now();
            let made = schedule::ensure(&self.0.db, topic, *every, now, self.0.cfg.max_attempts);
            if let Err(e) = made.await {
                lock(&self.0.unsynced).extend_from_slice(&todo[i..]);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Runs one claimed run (its jobs share a topic) and records how each job ended.
    async fn execute(&self, run: Vec<Job>) {
        let Some(topic) = run.first().map(|job| job.topic.clone()) else {
            return;
        };
        let Some(handler) = self.handler(&topic) else {
            // Unregistered since the claim (the queue is stopping): the leases lapse.
            return;
        };
        // A job whose node went away during its last attempt: another would exceed the limit.
        let (spent, live): (Vec<Job>, Vec<Job>) = run
            .into_iter()
            .partition(|job| handler.every.is_none() && job.attempt > job.max_attempts);
        let mut ends: Vec<(&Job, End)> = spent
            .iter()
            .map(|job| {
                let error = "the lease lapsed during the last attempt".to_owned();
                (job, End::Dead { error })
            })
            .collect();
        if !live.is_empty() {
            let mut results = self.run_leased(&live, &handler).await;
            results.resize_with(live.len(), || {
                Err(JobFailure::retry("the handler gave no result for this job"))
            });
            for (job, result) in live.iter().zip(results) {
                ends.push((job, self.end_of(job, &handler, result)));
            }
        }
        let jobs = ends.len() as u64;
        let now = self.0.clock.now();
        match queue::finish_all(&self.0.db, ends, &self.0.owner, now).await {
            Ok(held) if held == jobs => {}
            Ok(held) => tracing::warn!(
                topic,
                lost = jobs - held,
                "job lease was lost while it ran; the node that retook it records the outcome"
            ),
            Err(e) => tracing::error!(
                topic,
                jobs,
                error = %e,
                "job outcome not recorded; the lease will lapse and the job run again"
            ),
        }
    }

    /// The handler's run, with the leases renewed every third of their length meanwhile.
    async fn run_leased(&self, jobs: &[Job], handler: &Handler) -> Vec<JobResult> {
        let run = (handler.run)(jobs.to_vec());
        tokio::pin!(run);
        let renew_every = self.lease() / 3;
        let topic = jobs.first().map_or("", |job| job.topic.as_str());
        loop {
            tokio::select! {
                results = &mut run => return results,
                _ = tokio::time::sleep(renew_every) => {
                    let until = self.0.clock.now() + self.lease();
                    match queue::renew(&self.0.db, jobs, &self.0.owner, until).await {
                        Ok(held) if held == jobs.len() as u64 => {}
                        Ok(held) => tracing::warn!(
                            topic,
                            lost = jobs.len() as u64 - held,
                            "job lease lost while running"
                        ),
                        Err(e) => tracing::warn!(topic, error = %e, "job lease not renewed"),
                    }
                }
            }
        }
    }

    fn end_of(&self, job: &Job, handler: &Handler, result: JobResult) -> End {
        let now = self.0.clock.now();
        let cfg = &self.0.cfg;
        let retry_in = backoff::delay(
            Duration::from_secs(cfg.backoff_base_secs),
            Duration::from_secs(cfg.backoff_max_secs),
            job.attempt,
            rand::random::<f64>(),
        );
        match &result {
            Ok(done) if done.handled > 0 => {
                tracing::info!(job = %job.id, topic = job.topic, handled = done.handled, "job done")
            }
            Ok(_) => {}
            Err(f) => {
                crate::core::metrics::job_failed(&job.topic);
                tracing::warn!(
                job = %job.id,
                topic = job.topic,
                attempt = job.attempt,
                error = f.error(),
                "job failed"
                )
            }
        }
        if let Some(every) = handler.every {
            let failure = result.err().map(|f| match f {
                JobFailure::Retry { error, at } => (error, at),
                JobFailure::Permanent { error } => (error, None),
            });
            return schedule::next(every, now, failure, retry_in);
        }
        match result {
            Ok(_) => End::Done,
            Err(JobFailure::Permanent { error }) => dead(job, error),
            Err(JobFailure::Retry { error, .. }) if job.attempt >= job.max_attempts => {
                dead(job, error)
            }
            Err(JobFailure::Retry { error, at }) => End::Queued {
                run_at: at.unwrap_or(now + retry_in),
                error: Some(error),
                fresh: false,
            },
        }
    }
}

fn dead(job: &Job, error: String) -> End {
    tracing::error!(job = %job.id, topic = job.topic, attempt = job.attempt, error, "job is dead");
    End::Dead { error }
}

/// When the worker looks for jobs again.
enum Next {
    /// At once: the last claim filled every free slot, more may be due.
    Now,
    /// When the next queued job falls due (or earlier, on a wake or poll).
    At(DateTime<Utc>),
    /// On the next wake or poll.
    Poll,
}
