//! Load-adaptive coalescing of socket I/O on a worker thread.
//!
//! A worker that wakes for every arriving WebSocket frame spends most of its
//! CPU in the kernel: per frame one `epoll_wait`, one `recv` and one `send`
//! (on loopback a send also runs the peer's TCP receive), and a context
//! switch each time it sleeps. While frames keep arriving, the pacer holds
//! the worker for a short window before its next I/O sweep, so one wake-up
//! serves every frame that came in meanwhile and a client's answers leave in
//! one write: the NIC's interrupt coalescing, done on the worker. Figures are
//! in docs/benchmarks.md (on the loopback echo benchmark: half the CPU per
//! round trip, and lower latency because the clients batch too).
//!
//! When fewer than [`STAY_ACTIVE`] frames arrive per window (for
//! [`THIN_WINDOWS`] windows in a row) the pacer goes dormant: no timer, no
//! wake-ups, nothing added to a lone frame's latency. It wakes again once
//! [`STAY_ACTIVE`] frames arrive within one window, but not for a while after
//! pacing that did not pay off (backoff), so a few clients taking quick turns
//! with the server, or short bursts, are not slowed down.
//!
//! The pause is a deliberate, bounded block of the whole worker: while it is
//! active, everything on that worker (HTTP requests too, and tasks woken
//! from other threads) may wait up to one window per wake-up. It tops each
//! sweep up to one window rather than adding one, so a saturated worker does
//! not pause at all. The window is the first one a thread's sockets bring;
//! [`SocketIoConfig::coalesce_window`](super::SocketIoConfig) defaults to off
//! for embedders, the server's config turns it on.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

/// Frames per window that keep the pacer active, and that wake it when they
/// arrive within one window. Fewer means the window mostly holds frames back
/// (one client taking turns with the server gains nothing from waiting).
const STAY_ACTIVE: u32 = 8;
/// Pacing ends after this many windows in a row with fewer frames.
const THIN_WINDOWS: u32 = 3;
/// After pacing ends the pacer may not wake for this many windows, doubling
/// (up to [`MAX_BACKOFF`]) unless it gathered more than [`THIN_WINDOWS`]
/// full windows before it ended.
const MIN_BACKOFF: u32 = 16;
const MAX_BACKOFF: u32 = 2048;

/// Counts one frame received on this thread and starts or wakes the
/// thread's pacer as load requires. `window` zero turns pacing off.
pub(crate) fn note_frame(window: Duration) {
    if window.is_zero() {
        return;
    }
    PACER.with(|p| {
        if !p.started.replace(true) {
            p.window.set(window);
            p.since.set(Some(Instant::now()));
            actix_web::rt::spawn(run());
        }
        p.note();
    });
}

thread_local! {
    static PACER: Pacer = Pacer::default();
}

/// How often a pacer on any thread has started pacing (for tests and
/// diagnostics).
static ACTIVATIONS: AtomicU64 = AtomicU64::new(0);

/// How many times, process-wide, a worker has started coalescing socket I/O.
pub fn activations() -> u64 {
    ACTIVATIONS.load(Ordering::Relaxed)
}

#[derive(Default)]
struct Pacer {
    started: Cell<bool>,
    active: Cell<bool>,
    window: Cell<Duration>,
    /// Frames since the current window (active) or span (dormant) began.
    frames: Cell<u32>,
    /// When the dormant pacer began counting toward activation.
    since: Cell<Option<Instant>>,
    /// No activation before this instant (after an unproductive pause).
    resume_at: Cell<Option<Instant>>,
    /// The last backoff, in windows.
    backoff: Cell<u32>,
    /// Since the pacer last woke: windows that gathered at least
    /// [`STAY_ACTIVE`] frames, and the latest run of ones that did not.
    full: Cell<u32>,
    thin: Cell<u32>,
    waker: RefCell<Option<Waker>>,
}

impl Pacer {
    fn note(&self) {
        let frames = self.frames.get() + 1;
        self.frames.set(frames);
        if self.active.get() || frames < STAY_ACTIVE {
            return;
        }
        // Dormant and the count is reached: fast enough to be worth pacing?
        let now = Instant::now();
        let fast = self
            .since
            .get()
            .is_some_and(|t| now.duration_since(t) <= self.window.get());
        let backing_off = self.resume_at.get().is_some_and(|t| now < t);
        if fast && !backing_off {
            // The first window counts only what arrives once pacing is on.
            self.frames.set(0);
            self.active.set(true);
            ACTIVATIONS.fetch_add(1, Ordering::Relaxed);
            if let Some(waker) = self.waker.take() {
                waker.wake();
            }
        } else {
            self.frames.set(0);
            self.since.set(Some(now));
        }
    }

    /// After a paced sweep: whether load still warrants pacing. Resets the
    /// count for the next window or, going dormant, for activation.
    fn keep_active(&self) -> bool {
        let frames = self.frames.replace(0);
        // Closed-loop clients fall into step with the pauses, so single
        // windows swing between full and empty; only a run of thin ones ends
        // pacing.
        if frames >= STAY_ACTIVE {
            self.thin.set(0);
            self.full.set(self.full.get() + 1);
        } else {
            self.thin.set(self.thin.get() + 1);
        }
        if self.thin.get() < THIN_WINDOWS {
            return true;
        }
        // Pacing that paid off for a while may come back soon; pacing that
        // did not (a few clients taking quick turns, short bursts) backs off
        // longer each time.
        let backoff = if self.full.get() > THIN_WINDOWS {
            MIN_BACKOFF
        } else {
            (self.backoff.get() * 2).clamp(MIN_BACKOFF, MAX_BACKOFF)
        };
        let now = Instant::now();
        self.active.set(false);
        self.thin.set(0);
        self.full.set(0);
        self.backoff.set(backoff);
        self.since.set(Some(now));
        self.resume_at.set(Some(now + self.window.get() * backoff));
        false
    }
}

/// The pacer task of one worker thread; lives as long as the worker's
/// runtime.
async fn run() {
    // Should the runtime drop this task while the thread lives on, the next
    // frame starts a new pacer instead of finding a dead one.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = PACER.try_with(|p| {
                p.started.set(false);
                p.active.set(false);
                p.frames.set(0);
                p.waker.take();
            });
        }
    }
    let _reset = Reset;
    loop {
        poll_fn(|cx| {
            PACER.with(|p| {
                if p.active.get() {
                    Poll::Ready(())
                } else {
                    *p.waker.borrow_mut() = Some(cx.waker().clone());
                    Poll::Pending
                }
            })
        })
        .await;
        let mut paused_until = Instant::now();
        loop {
            // A deferred (yielded) task resumes only after the runtime polled
            // the I/O driver, behind the tasks queued by then; the second
            // yield lets the connections that sweep woke run as well. Tasks
            // woken later (a mailbox message, another connection's emit) wait
            // for the pause: at most one window each time.
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
            if !PACER.with(Pacer::keep_active) {
                break;
            }
            // Top the sweep up to one window: a sweep that already took a
            // window (a saturated worker) has nothing left to gather.
            let window = PACER.with(|p| p.window.get());
            let pause = window.saturating_sub(paused_until.elapsed());
            if !pause.is_zero() {
                std::thread::sleep(pause);
            }
            paused_until = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pacer(window_ms: u64) -> Pacer {
        let p = Pacer::default();
        p.window.set(Duration::from_millis(window_ms));
        p.since.set(Some(Instant::now()));
        p
    }

    #[test]
    fn a_burst_wakes_the_pacer() {
        let p = pacer(1_000);
        for _ in 0..STAY_ACTIVE - 1 {
            p.note();
        }
        assert!(
            !p.active.get(),
            "fewer frames than the threshold stay unpaced"
        );
        p.note();
        assert!(p.active.get());
    }

    #[test]
    fn frames_spread_over_time_do_not_wake_it() {
        let p = pacer(0);
        for _ in 0..10 * STAY_ACTIVE {
            std::thread::sleep(Duration::from_millis(1));
            p.note();
        }
        assert!(!p.active.get(), "a slow trickle never pays for a pause");
    }

    /// Activates `p` with a burst.
    fn burst(p: &Pacer) {
        p.since.set(Some(Instant::now()));
        for _ in 0..STAY_ACTIVE {
            p.note();
        }
        assert!(p.active.get(), "a burst wakes it");
    }

    /// Paces windows of `frames` frames until pacing ends; how many it took.
    fn windows_until_dormant(p: &Pacer, frames: u32) -> u32 {
        for window in 1..=10_000 {
            for _ in 0..frames {
                p.note();
            }
            if !p.keep_active() {
                return window;
            }
        }
        panic!("pacing never ended");
    }

    #[test]
    fn it_stays_active_under_load_and_goes_dormant_when_load_drops() {
        let p = pacer(1_000);
        burst(&p);
        for _ in 0..100 {
            for _ in 0..STAY_ACTIVE {
                p.note();
            }
            assert!(p.keep_active(), "full windows keep pacing");
        }
        // One empty window amid full ones (clients in step with the pauses).
        assert!(p.keep_active());
        for _ in 0..STAY_ACTIVE {
            p.note();
        }
        assert!(p.keep_active());
        assert_eq!(windows_until_dormant(&p, 1), THIN_WINDOWS);
        assert!(!p.active.get());
        assert_eq!(
            p.frames.get(),
            0,
            "counting toward activation starts afresh"
        );
        assert_eq!(
            p.backoff.get(),
            MIN_BACKOFF,
            "a long stretch backs off least"
        );
    }

    #[test]
    fn pacing_that_peters_out_backs_off_longer_each_time() {
        let p = pacer(1_000);
        burst(&p);
        assert_eq!(windows_until_dormant(&p, 2), THIN_WINDOWS);
        assert_eq!(p.backoff.get(), MIN_BACKOFF);
        for _ in 0..STAY_ACTIVE * 4 {
            p.note();
        }
        assert!(
            !p.active.get(),
            "a burst during the backoff does not wake it"
        );

        p.resume_at.set(Some(Instant::now()));
        burst(&p);
        windows_until_dormant(&p, 2);
        assert_eq!(p.backoff.get(), 2 * MIN_BACKOFF);
        for _ in 0..20 {
            p.resume_at.set(Some(Instant::now()));
            burst(&p);
            windows_until_dormant(&p, 0);
        }
        assert_eq!(p.backoff.get(), MAX_BACKOFF, "bounded");

        // A long productive stretch resets it.
        p.resume_at.set(Some(Instant::now()));
        burst(&p);
        for _ in 0..MIN_BACKOFF {
            for _ in 0..STAY_ACTIVE {
                p.note();
            }
            assert!(p.keep_active());
        }
        windows_until_dormant(&p, 0);
        assert_eq!(p.backoff.get(), MIN_BACKOFF);
    }
}
