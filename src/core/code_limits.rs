//! What a code texted to a phone may cost, for every service that signs people in by phone:
//! a cooldown per phone and purpose, the phone's budgets ([`PhoneLimit`]: per sender and
//! from every address) and, where the service sets one, a ceiling per destination calling
//! code across the whole service (SMS pumping: texts bought to many numbers of one costly
//! prefix). All count in the cluster's rate store (Redis on a cluster; refused while it
//! cannot be reached), and only for codes sent: a request refused by any of them, by the
//! service's own checks inside the send, or by the SMS provider gives back what it took.
//! So taps inside the cooldown cost nothing, and a user who taps "resend" five times is not
//! locked out for an hour.

use super::config::LimitSettings;
use super::error::ApiError;
use super::phone::PhoneNumber;
use super::rate_limit::{record, Limits, PhoneLimit, Taken};
use actix_web::HttpRequest;
use chrono::{DateTime, Utc};
use std::future::Future;

/// One service's limits on the codes it texts.
#[derive(Debug, Clone, Copy)]
pub struct CodeLimits {
    /// Seconds between two codes of one purpose to one phone (0: none).
    pub cooldown_secs: i64,
    pub phone: PhoneLimit,
    /// Codes to one calling code from the whole service (None, or a limit of 0: none).
    pub per_calling_code: Option<LimitSettings>,
}

/// Why no code was sent.
#[derive(Debug)]
pub enum Refused {
    /// A code of this purpose went to the phone less than the cooldown ago.
    Cooldown {
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    },
    /// The service texted its ceiling of codes to the phone's calling code in the window.
    CallingCode {
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    },
    /// A phone budget (429 with Retry-After), counters out of reach (503), or the send's
    /// own error: passed on as it is.
    Other(ApiError),
}

impl From<ApiError> for Refused {
    fn from(e: ApiError) -> Self {
        Self::Other(e)
    }
}

impl CodeLimits {
    /// A cooldown and the phone's budgets, with no ceiling per calling code.
    pub fn new(cooldown_secs: i64, per_sender: LimitSettings, per_phone: LimitSettings) -> Self {
        Self {
            cooldown_secs,
            phone: PhoneLimit {
                per_sender,
                per_phone,
            },
            per_calling_code: None,
        }
    }

    pub fn per_calling_code(mut self, limit: LimitSettings) -> Self {
        self.per_calling_code = Some(limit);
        self
    }

    /// Runs `send` (which texts a code of `purpose` to `phone`, or answers why not) once the
    /// limits let it, and keeps what it took only when `send` succeeds. The cooldown is
    /// taken first: of two requests at once, one sends. A service whose answer must not
    /// tell whether the phone has an account succeeds without texting, and so spends alike.
    pub async fn send<T>(
        self,
        req: &HttpRequest,
        phone: &PhoneNumber,
        purpose: &str,
        send: impl Future<Output = Result<T, ApiError>>,
    ) -> Result<T, Refused> {
        let limits = Limits::of(req)?;
        let mut spent = Spent::default();
        let outcome = match self.take(req, limits, phone, purpose, &mut spent).await {
            Ok(()) => send.await.map_err(Refused::Other),
            Err(refused) => Err(refused),
        };
        if outcome.is_ok() {
            // The headers report the budgets; the cooldown's one slot is no budget.
            spent.budgets.iter().for_each(|t| record(req, t.decision));
        } else {
            for t in spent.cooldown.into_iter().chain(spent.budgets) {
                limits.give_back(t).await;
            }
        }
        outcome
    }

    /// Takes each limit in turn into `spent`; the first that is over refuses.
    async fn take(
        self,
        req: &HttpRequest,
        limits: &Limits,
        phone: &PhoneNumber,
        purpose: &str,
        spent: &mut Spent,
    ) -> Result<(), Refused> {
        let now = limits.now();
        if let Ok(secs @ 1..) = u64::try_from(self.cooldown_secs) {
            let t = limits
                .take(
                    "otp_cooldown",
                    LimitSettings::new(1, secs),
                    &[phone.as_str(), purpose],
                )
                .await?;
            let decision = t.decision;
            if !decision.allowed {
                return Err(Refused::Cooldown {
                    until: at(decision.frees_at_ms, now),
                    now,
                });
            }
            spent.cooldown = Some(t);
        }
        let sender = format!("{}@{}", phone.as_str(), super::client::limit_key(req));
        let budgets = [
            ("otp_phone_sender", self.phone.per_sender, sender.as_str()),
            ("otp_phone", self.phone.per_phone, phone.as_str()),
        ];
        for (bucket, limit, subject) in budgets {
            let t = limits.take(bucket, limit, &[subject]).await?;
            let decision = t.decision;
            if !decision.allowed {
                record(req, decision);
                let retry = decision.retry_after_secs(now);
                return Err(Refused::Other(ApiError::rate_limited(retry)));
            }
            spent.budgets.push(t);
        }
        let ceiling = self.per_calling_code.filter(|l| l.limit > 0);
        if let (Some(limit), Some(code)) = (ceiling, phone.calling_code()) {
            let t = limits.take("otp_calling_code", limit, &[&code]).await?;
            let decision = t.decision;
            if !decision.allowed {
                tracing::warn!(
                    calling_code = %code,
                    sent_in_window = decision.limit,
                    window_secs = limit.window_secs,
                    "codes texted to one calling code reached the ceiling; refused"
                );
                return Err(Refused::CallingCode {
                    until: at(decision.frees_at_ms, now),
                    now,
                });
            }
            spent.budgets.push(t);
        }
        Ok(())
    }
}

/// What one request took so far.
#[derive(Default)]
struct Spent {
    cooldown: Option<Taken>,
    budgets: Vec<Taken>,
}

fn at(ms: i64, now: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or(now)
}
