//! Time as a dependency: production reads the system clock, tests move a manual one forward
//! instead of sleeping.

use chrono::{DateTime, Duration, Utc};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

pub type SharedClock = Arc<dyn Clock>;

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
    offset_ms: AtomicI64,
    /// Milliseconds since the epoch while frozen; `NOT_FROZEN` otherwise.
    frozen_ms: AtomicI64,
}

const NOT_FROZEN: i64 = 0;

impl ManualClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Stops the clock at its current time (to the millisecond); `advance` still moves it.
    pub fn freeze(&self) {
        let now = self.now().timestamp_millis();
        let _ = self.frozen_ms.compare_exchange(
            NOT_FROZEN,
            now.max(NOT_FROZEN + 1),
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    }

    pub fn advance(&self, by: Duration) {
        let ms = by.num_milliseconds();
        if self.frozen_ms.load(Ordering::SeqCst) != NOT_FROZEN {
            self.frozen_ms.fetch_add(ms, Ordering::SeqCst);
        } else {
            self.offset_ms.fetch_add(ms, Ordering::SeqCst);
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        match self.frozen_ms.load(Ordering::SeqCst) {
            NOT_FROZEN => {
                Utc::now() + Duration::milliseconds(self.offset_ms.load(Ordering::SeqCst))
            }
            ms => DateTime::from_timestamp_millis(ms).unwrap_or_default(),
        }
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
}
