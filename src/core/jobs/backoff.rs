//! The default retry delay of a failed job: exponential, capped, with jitter so that jobs
//! that failed together (a database outage) do not all come back at the same instant.

use std::time::Duration;

/// Delay after `failures` failed runs: base × 2ⁿ⁻¹ capped at `max`, shortened by up to half
/// at random (`sample` in 0..=1: 0 keeps it whole, 1 halves it); whole milliseconds.
pub fn delay(base: Duration, max: Duration, failures: i32, sample: f64) -> Duration {
    let raw = switchboard_actors::backoff::exponential(base, 2, max, failures);
    let jittered = raw.mul_f64(1.0 - 0.5 * sample.clamp(0.0, 1.0));
    Duration::from_millis(u64::try_from(jittered.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Duration = Duration::from_secs(10);
    const MAX: Duration = Duration::from_secs(3600);

    #[test]
    fn doubles_from_the_base_up_to_the_cap() {
        let whole: Vec<u64> = (1..=5)
            .map(|n| delay(BASE, MAX, n, 0.0).as_secs())
            .collect();
        assert_eq!(whole, [10, 20, 40, 80, 160]);
        assert_eq!(delay(BASE, MAX, 12, 0.0), MAX);
        assert_eq!(delay(BASE, MAX, i32::MAX, 0.0), MAX);
        assert_eq!(
            delay(BASE, MAX, 0, 0.0),
            BASE,
            "a first failure waits the base"
        );
    }

    #[test]
    fn jitter_takes_off_at_most_half() {
        assert_eq!(delay(BASE, MAX, 2, 1.0), Duration::from_secs(10));
        assert_eq!(delay(BASE, MAX, 2, 0.5), Duration::from_secs(15));
        assert_eq!(delay(BASE, MAX, 2, 7.0), Duration::from_secs(10), "clamped");
        assert_eq!(
            delay(BASE, MAX, 1, 0.123_456_7).subsec_nanos() % 1_000_000,
            0
        );
    }
}
