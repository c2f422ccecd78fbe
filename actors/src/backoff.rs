//! The one exponential growth of every retry in Switchboard (jobs and webhook attempts):
//! `base × factorⁿ⁻¹` after `n` failures, capped. Each caller adds its own jitter.

use std::time::Duration;

/// `base × factor^(failures − 1)`, at most `max`; a first (or no) failure waits `base`.
pub fn exponential(base: Duration, factor: u32, max: Duration, failures: i32) -> Duration {
    let exp = failures.clamp(1, 31).unsigned_abs() - 1;
    base.saturating_mul(factor.max(1).saturating_pow(exp))
        .min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_by_the_factor_up_to_the_cap() {
        let s = |n| exponential(Duration::from_secs(30), 4, Duration::from_secs(3600), n);
        assert_eq!(
            (0..=5).map(|n| s(n).as_secs()).collect::<Vec<_>>(),
            [30, 30, 120, 480, 1920, 3600]
        );
        assert_eq!(s(i32::MAX), Duration::from_secs(3600));
        assert_eq!(
            exponential(Duration::from_secs(1), 0, Duration::MAX, 9),
            Duration::from_secs(1),
            "a factor below 1 does not shrink"
        );
    }
}
