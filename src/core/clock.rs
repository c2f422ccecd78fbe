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

/// The system clock shifted by an offset that tests advance.
#[derive(Default)]
pub struct ManualClock {
    offset_ms: AtomicI64,
}

impl ManualClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn advance(&self, by: Duration) {
        self.offset_ms
            .fetch_add(by.num_milliseconds(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now() + Duration::milliseconds(self.offset_ms.load(Ordering::SeqCst))
    }
}
