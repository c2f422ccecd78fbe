//! Recurring jobs: one row per topic for the whole cluster (key `every:<topic>`), first due
//! one interval after it is created, which each run puts back in the queue for the next
//! interval — so N nodes run it once per interval, not N times.

use super::job::NewJob;
use super::queue::{self, End};
use chrono::{DateTime, Utc};
use sea_orm::{DatabaseConnection, DbErr};
use std::time::Duration;

/// The unique key of a topic's recurring row.
pub fn key(topic: &str) -> String {
    format!("every:{topic}")
}

/// Makes sure the topic's row exists, first due one interval from now. An existing row keeps
/// its schedule: a changed interval applies from its next run (pulling a run in from here
/// could only use this node's idea of now, and would run the job twice in an interval).
pub(super) async fn ensure(
    db: &DatabaseConnection,
    topic: &'static str,
    every: Duration,
    now: DateTime<Utc>,
    max_attempts: i32,
) -> Result<(), DbErr> {
    let new = NewJob::new(topic, serde_json::json!({}))
        .key(key(topic))
        .at(now + every);
    queue::insert(db, new, now, max_attempts).await?;
    Ok(())
}

/// Where a recurring job goes after a run: the next interval after a success; after a
/// failure the retry `at` (or the backoff `retry_in`), but never later than the next interval.
/// It is never dead: the next interval tries again anyway.
pub(super) fn next(
    every: Duration,
    now: DateTime<Utc>,
    failure: Option<(String, Option<DateTime<Utc>>)>,
    retry_in: Duration,
) -> End {
    let scheduled = now + every;
    match failure {
        None => End::Queued {
            run_at: scheduled,
            error: None,
            fresh: true,
        },
        Some((error, at)) => End::Queued {
            run_at: at.unwrap_or(now + retry_in).min(scheduled),
            error: Some(error),
            fresh: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_run_retries_sooner_but_never_later_than_the_interval() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let hour = Duration::from_secs(3600);
        let minute = Duration::from_secs(60);
        let run_at = |end: End| match end {
            End::Queued { run_at, .. } => run_at,
            other => panic!("{other:?}"),
        };
        assert_eq!(run_at(next(hour, now, None, minute)), now + hour);
        assert_eq!(
            run_at(next(hour, now, Some(("e".into(), None)), minute)),
            now + minute
        );
        assert_eq!(
            run_at(next(minute, now, Some(("e".into(), None)), hour)),
            now + minute
        );
        assert_eq!(
            run_at(next(
                hour,
                now,
                Some(("e".into(), Some(now + 2 * hour))),
                minute
            )),
            now + hour
        );
    }
}
