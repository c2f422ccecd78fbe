//! Time as a dependency: production reads the system clock, tests move a manual one forward
//! instead of sleeping.

use chrono::{DateTime, Duration, Utc};
use futures_util::future::BoxFuture;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;

    /// Resolves once `now()` has reached `at`: a timer on this clock, so a test that moves
    /// the clock past `at` wakes the sleeper at once.
    fn sleep_until(&self, at: DateTime<Utc>) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(real_time_until(self.now(), at)))
    }
}

/// The real time from `now` to `at` (zero when it has passed).
pub fn real_time_until(now: DateTime<Utc>, at: DateTime<Utc>) -> std::time::Duration {
    (at - now).to_std().unwrap_or_default()
}

pub type SharedClock = Arc<dyn Clock>;

/// The clock as the actors' time port.
pub struct ActorClock(pub SharedClock);

impl switchboard_actors::interview::TimeSource for ActorClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.now()
    }
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// The system clock shifted by an offset that tests advance; or, once frozen, a fixed instant
/// that moves only when advanced (so whatever the server stamps between two moves carries
/// exactly the same time, and a test can tell by the stamp in which interval it happened).
#[derive(Default)]
pub struct ManualClock {
    state: Arc<ManualState>,
}

#[derive(Default)]
struct ManualState {
    offset_ms: AtomicI64,
    /// Milliseconds since the epoch while frozen; `NOT_FROZEN` otherwise.
    frozen_ms: AtomicI64,
    /// Wakes sleepers when the clock is moved.
    moved: Notify,
}

const NOT_FROZEN: i64 = 0;

impl ManualClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Stops the clock at its current time (to the millisecond); `advance` still moves it.
    pub fn freeze(&self) {
        let now = self.now().timestamp_millis();
        let _ = self.state.frozen_ms.compare_exchange(
            NOT_FROZEN,
            now.max(NOT_FROZEN + 1),
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    }

    pub fn advance(&self, by: Duration) {
        let ms = by.num_milliseconds();
        let s = &self.state;
        if s.frozen_ms.load(Ordering::SeqCst) != NOT_FROZEN {
            s.frozen_ms.fetch_add(ms, Ordering::SeqCst);
        } else {
            s.offset_ms.fetch_add(ms, Ordering::SeqCst);
        }
        s.moved.notify_waiters();
    }
}

impl ManualState {
    fn now(&self) -> DateTime<Utc> {
        match self.frozen_ms.load(Ordering::SeqCst) {
            NOT_FROZEN => {
                Utc::now() + Duration::milliseconds(self.offset_ms.load(Ordering::SeqCst))
            }
            ms => DateTime::from_timestamp_millis(ms).unwrap_or_default(),
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        self.state.now()
    }

    fn sleep_until(&self, at: DateTime<Utc>) -> BoxFuture<'static, ()> {
        let state = self.state.clone();
        Box::pin(async move {
            loop {
                // Registered before reading the time, so a move in between is not missed.
                let moved = state.moved.notified();
                tokio::pin!(moved);
                moved.as_mut().enable();
                let now = state.now();
                if now >= at {
                    return;
                }
                tokio::select! {
                    _ = tokio::time::sleep(real_time_until(now, at)) => {}
                    _ = moved => {}
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frozen_clock_moves_only_when_advanced() {
        let c = ManualClock::new();
        c.advance(Duration::hours(1));
        let before = c.now();
        c.freeze();
        let t = c.now();
        // Frozen at whole milliseconds, so stamps survive storage unchanged.
        assert!(t > before - Duration::milliseconds(1) && t <= before + Duration::seconds(1));
        assert_eq!(t.timestamp_subsec_micros() % 1000, 0);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(c.now(), t);
        c.advance(Duration::seconds(30));
        assert_eq!(c.now(), t + Duration::seconds(30));
    }

    #[tokio::test]
    async fn a_sleeper_wakes_when_the_clock_is_moved_past_its_time() {
        let c = ManualClock::new();
        c.freeze();
        let sleeper = tokio::spawn(c.sleep_until(c.now() + Duration::hours(1)));
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert!(!sleeper.is_finished());
        c.advance(Duration::minutes(59));
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert!(!sleeper.is_finished(), "not before its time");
        c.advance(Duration::minutes(1));
        tokio::time::timeout(std::time::Duration::from_secs(1), sleeper)
            .await
            .unwrap()
            .unwrap();
    }
}
