//! One runner for the process's periodic background jobs (retention purges and the like).
//! Services register their jobs while they are mounted; start-up starts the runner once
//! every service is mounted and stops it on shutdown. Each job runs at start and then every
//! interval. Jobs must be safe on several nodes at once — plain idempotent statements such as
//! `DELETE … WHERE created_at < cutoff` — and read the injected clock for their cutoffs.

use futures_util::future::BoxFuture;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;

pub type JobError = Box<dyn std::error::Error + Send + Sync + 'static>;
/// What one run of a job did (rows removed) or why it failed.
pub type JobResult = Result<u64, JobError>;
type JobFn = Arc<dyn Fn() -> BoxFuture<'static, JobResult> + Send + Sync>;

#[derive(Clone)]
struct Job {
    name: &'static str,
    every: Duration,
    run: JobFn,
}

struct Inner {
    jobs: Mutex<Vec<Job>>,
    stop: watch::Sender<bool>,
    started: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    runs: AtomicU64,
}

/// Cheap to clone; every clone is the same runner.
#[derive(Clone)]
pub struct Periodic {
    inner: Arc<Inner>,
}

impl Default for Periodic {
    fn default() -> Self {
        Self {
            inner: Arc::new(Inner {
                jobs: Mutex::new(Vec::new()),
                stop: watch::channel(false).0,
                started: Mutex::new(Vec::new()),
                runs: AtomicU64::new(0),
            }),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Periodic {
    /// Adds a job; it runs once the runner is started.
    pub fn register<F, Fut>(&self, name: &'static str, every: Duration, job: F)
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = JobResult> + Send + 'static,
    {
        let run: JobFn = Arc::new(move || Box::pin(job()));
        lock(&self.inner.jobs).push(Job {
            name,
            every: every.max(Duration::from_millis(10)),
            run,
        });
    }

    /// Starts one task per registered job (call once, inside the runtime).
    pub fn start(&self) {
        let jobs = lock(&self.inner.jobs).clone();
        let mut started = lock(&self.inner.started);
        for job in jobs {
            let mut stop = self.inner.stop.subscribe();
            let this = self.clone();
            started.push(tokio::spawn(async move {
                let mut tick = tokio::time::interval(job.every);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tokio::select! {
                        _ = tick.tick() => {}
                        _ = stop.wait_for(|stopped| *stopped) => break,
                    }
                    this.run_one(&job).await;
                }
            }));
        }
    }

    /// Runs every job once now, in registration order (tests and operators use this instead
    /// of waiting for the interval). Returns each job's name and rows removed.
    pub async fn run_all(&self) -> Vec<(&'static str, u64)> {
        let jobs = lock(&self.inner.jobs).clone();
        let mut done = Vec::with_capacity(jobs.len());
        for job in &jobs {
            done.push((job.name, self.run_one(job).await));
        }
        done
    }

    async fn run_one(&self, job: &Job) -> u64 {
        let removed = match (job.run)().await {
            Ok(n) => {
                if n > 0 {
                    tracing::info!(job = job.name, rows = n, "periodic job done");
                }
                n
            }
            Err(e) => {
                tracing::error!(job = job.name, error = %e, "periodic job failed");
                0
            }
        };
        self.inner.runs.fetch_add(1, Ordering::SeqCst);
        removed
    }

    /// How many job runs have finished, scheduled or triggered.
    pub fn runs(&self) -> u64 {
        self.inner.runs.load(Ordering::SeqCst)
    }

    /// Stops every job task; a run in progress is abandoned at its next await point.
    pub fn stop(&self) {
        self.inner.stop.send_replace(true);
        for task in lock(&self.inner.started).drain(..) {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn runs_at_start_and_every_interval_until_stopped() {
        let jobs = Periodic::default();
        let count = Arc::new(AtomicU64::new(0));
        let c = count.clone();
        jobs.register("count", Duration::from_millis(20), move || {
            let c = c.clone();
            async move { Ok(c.fetch_add(1, Ordering::SeqCst)) }
        });
        jobs.start();
        tokio::time::sleep(Duration::from_millis(110)).await;
        assert!(count.load(Ordering::SeqCst) >= 3);
        jobs.stop();
        let stopped_at = count.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert_eq!(count.load(Ordering::SeqCst), stopped_at);
        // A triggered run still works after the schedule stopped.
        assert_eq!(jobs.run_all().await.len(), 1);
        assert_eq!(jobs.runs(), stopped_at + 1);
    }
}
