//! What outgoing webhooks are allowed to reach and their retry schedule, configured alike by
//! messaging (customers' webhooks, `[services.messaging.webhooks]`) and interview (completion
//! webhooks, `[services.interview.webhook]`): every non-2xx answer and transport error is
//! retried after `base_delay_secs` × `factor`ⁿ⁻¹ seconds (capped, ± jitter, never sooner than
//! a capped Retry-After), `max_attempts` in all. Each service flattens it into its own
//! section, so the keys stay where they were.

use crate::core::config::unsafe_switch;
use serde::Deserialize;
use std::time::Duration;
use switchboard_actors::RetryPolicy;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct WebhookSettings {
    /// Webhooks may reach loopback and private addresses (a receiver on a private network, a
    /// local trial); refused on a public bind unless the environment says development.
    pub allow_private_urls: bool,
    /// Seconds one attempt may take.
    pub timeout_secs: u64,
    /// Attempts of one delivery in all, then it is given up.
    pub max_attempts: i32,
    /// A receiver's Retry-After is honoured up to this many seconds.
    pub max_retry_after_secs: i64,
    /// Each delay moves by up to this fraction either way.
    pub jitter: f64,
    /// The first retry's delay; each further one is `factor` times longer, up to
    /// `max_delay_secs`.
    pub base_delay_secs: i64,
    pub factor: i64,
    pub max_delay_secs: i64,
}

/// The actors' own defaults: 30 s per attempt, 10 attempts, 30 s × 4ⁿ⁻¹ up to 6 h, ± 10 %,
/// Retry-After up to 24 h.
impl Default for WebhookSettings {
    fn default() -> Self {
        let p = RetryPolicy::default();
        Self {
            allow_private_urls: false,
            timeout_secs: p.timeout.as_secs(),
            max_attempts: p.max_attempts,
            max_retry_after_secs: p.max_retry_after_secs,
            jitter: p.jitter,
            base_delay_secs: p.base_delay_secs,
            factor: p.factor,
            max_delay_secs: p.max_delay_secs,
        }
    }
}

impl WebhookSettings {
    /// The schedule as the actors' policy, each value brought into a workable range; endpoint
    /// deactivation and actor idling keep the policy's defaults (messaging sets its own).
    pub fn policy(&self) -> RetryPolicy {
        RetryPolicy {
            timeout: Duration::from_secs(self.timeout_secs.max(1)),
            max_attempts: self.max_attempts.max(1),
            base_delay_secs: self.base_delay_secs.max(1),
            factor: self.factor.max(1),
            max_delay_secs: self.max_delay_secs.max(1),
            jitter: self.jitter.clamp(0.0, 0.9),
            max_retry_after_secs: self.max_retry_after_secs.max(0),
            ..RetryPolicy::default()
        }
    }

    /// The service's unsafe keys (`Service::unsafe_keys`): `others` and, when on,
    /// `{section}.allow_private_urls`.
    pub fn with_unsafe_keys(
        &self,
        section: &str,
        others: impl IntoIterator<Item = Option<String>>,
    ) -> Vec<String> {
        let private = format!("{section}.allow_private_urls");
        others
            .into_iter()
            .chain([unsafe_switch(&private, self.allow_private_urls)])
            .flatten()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use figment::providers::{Format, Toml};
    use figment::Figment;

    #[derive(Debug, Deserialize, Default)]
    #[serde(default)]
    struct Section {
        deactivate_after: i32,
        #[serde(flatten)]
        webhook: WebhookSettings,
    }

    #[test]
    fn flattened_keys_read_as_before_and_missing_ones_keep_their_defaults() {
        let s: Section = Figment::from(Toml::string(
            "allow_private_urls = true\nmax_attempts = 3\njitter = 0.25\ndeactivate_after = 4\n",
        ))
        .extract()
        .unwrap();
        assert_eq!(s.deactivate_after, 4);
        assert!(s.webhook.allow_private_urls);
        assert_eq!(s.webhook.max_attempts, 3);
        assert_eq!(s.webhook.jitter, 0.25);
        assert_eq!(s.webhook.base_delay_secs, 30);
        assert_eq!(
            (s.webhook.timeout_secs, s.webhook.max_delay_secs),
            (30, 6 * 3600)
        );
        assert_eq!(s.webhook.policy().max_attempts, 3);
        let bad = s.webhook.with_unsafe_keys("services.x.webhook", [None]);
        assert_eq!(bad, ["services.x.webhook.allow_private_urls is on"]);
    }
}
