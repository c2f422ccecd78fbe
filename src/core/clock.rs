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

/// `serialize_with` for a UTC time on hot responses: exactly what chrono's own `Serialize`
/// writes (RFC 3339, `Z`, a fraction of 0, 3, 6 or 9 digits as the nanoseconds need), but
/// written straight into a small buffer instead of through `Display` and `collect_str`.
/// Years outside 0–9999 and leap seconds take chrono's own path.
pub fn serialize_utc<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    use chrono::{Datelike, Timelike};
    let nanos = t.nanosecond();
    let year = t.year();
    if !(0..=9999).contains(&year) || nanos >= 1_000_000_000 {
        return serde::Serialize::serialize(t, s);
    }
    let mut buf = [0u8; 30];
    let mut put = |at: usize, value: u32, digits: usize| {
        let mut v = value;
        for i in (0..digits).rev() {
            buf[at + i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, year as u32, 4);
    put(5, t.month(), 2);
    put(8, t.day(), 2);
    put(11, t.hour(), 2);
    put(14, t.minute(), 2);
    put(17, t.second(), 2);
    let digits = match nanos {
        0 => 0,
        n if n % 1_000_000 == 0 => 3,
        n if n % 1_000 == 0 => 6,
        _ => 9,
    };
    if digits > 0 {
        put(20, nanos / 10u32.pow(9 - digits as u32), digits);
    }
    for (at, sep) in [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')] {
        buf[at] = sep;
    }
    let mut end = 19;
    if digits > 0 {
        buf[19] = b'.';
        end = 20 + digits;
    }
    buf[end] = b'Z';
    // Only ASCII digits and separators were written.
    let text = std::str::from_utf8(&buf[..=end]).map_err(serde::ser::Error::custom)?;
    s.serialize_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_times_are_written_as_chrono_writes_them() {
        #[derive(serde::Serialize)]
        struct Fast(#[serde(serialize_with = "serialize_utc")] DateTime<Utc>);
        let base = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let mut times = vec![
            base,
            DateTime::<Utc>::UNIX_EPOCH,
            DateTime::from_timestamp(-62_167_219_200, 0).expect("year 0"),
            DateTime::from_timestamp(253_402_300_799, 999_999_999).expect("year 9999"),
            DateTime::from_timestamp(253_402_300_800, 0).expect("year 10000"),
            DateTime::from_timestamp(-62_167_219_201, 5).expect("year -1"),
            DateTime::from_timestamp(1_800_000_059, 1_500_000_000).expect("leap second"),
        ];
        for nanos in [
            1,
            10,
            1_000,
            120_000,
            123_456,
            1_000_000,
            5_000_000,
            999_999_999,
        ] {
            times.push(base + Duration::nanoseconds(nanos));
        }
        // Every field's every digit: a day in each month, hours and minutes apart.
        for step in 0..400 {
            times.push(
                base + Duration::seconds(step * 86_400 + step * 3_671)
                    + Duration::milliseconds(step),
            );
        }
        for t in times {
            assert_eq!(
                serde_json::to_string(&Fast(t)).expect("json"),
                serde_json::to_string(&t).expect("json"),
            );
        }
    }

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
