//! Password sign-in lockout (issue 32) for advertisers and administrators, per address and
//! across every client address and node: the count lives in `advertising_signin_guards`,
//! one row per kind of account and address, known or not (keyed by an HMAC of both), so an
//! unknown address counts, locks and answers exactly like a known one.
//!
//! Each attempt is counted *before* its password is checked, by a compare-and-set on the
//! count: parallel guesses each take their own number and none slips past the threshold
//! while the others are still hashing. From the `signin_max_failures`-th attempt since the
//! last success on, the attempt sets the lock itself (`signin_lock_secs`, doubling with each
//! further attempt, capped); a success deletes the row, lifting it. While a lock holds,
//! attempts are refused (429 `account_locked`) without checking anything, so even the right
//! password waits. The owner of a known address is mailed when the lock starts (once per run
//! of failures).

use super::advertisers::mail::deliver;
use super::error::{AdvertisingError, Result};
use super::sessions::AccountKind;
use super::state::AdvertisingState;
use crate::core::error::ApiError;
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use crate::core::lockout;
use crate::providers::email::EmailSender;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, Set};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use switchboard_entities::advertising::{admin, advertiser, signin_guard as guard};
use uuid::Uuid;

/// Mails to the owner of an address whose sign-in just locked. Payload:
/// `{"kind": "advertiser"|"admin", "account_id": "<uuid>", "locked_until": "<RFC 3339>",
/// "queued_at": "<RFC 3339>"}`; an account gone by then is sent nothing.
pub const NOTICE_TOPIC: &str = "signin-locked-email";

/// The guard row's key: keyed, so the table lists no address (a plain hash of an address is
/// found again by hashing guesses).
fn key(st: &AdvertisingState, kind: AccountKind, email: &str) -> String {
    let k = crate::core::secrets::hmac_sha256(
        st.core.settings.auth.jwt_secret.as_bytes(),
        b"advertising-signin-guard",
    );
    crate::core::secrets::hmac_sha256_hex(&k, format!("{}:{email}", kind.as_str()).as_bytes())
}

/// One counted sign-in attempt: end it with [`Attempt::succeeded`] or [`Attempt::failed`].
#[must_use]
pub struct Attempt {
    key: String,
    /// Attempts since the last success, this one included.
    number: i32,
    /// The lock this attempt set (from the threshold on), lifted again by a success.
    lock: Option<DateTime<Utc>>,
}

/// Counts an attempt at `email` (trimmed and lowercased) for `kind`, or refuses it while the
/// address is locked.
pub async fn begin(st: &AdvertisingState, kind: AccountKind, email: &str) -> Result<Attempt> {
    let db = &st.core.db;
    let now = st.core.now();
    let key = key(st, kind, email);
    let rules = st.cfg.signin_lockout();
    // Each lost race means another attempt took a number, and the threshold locks within
    // `max_failures` of them: the loop ends well before this bound unless a success keeps
    // resetting the count under it.
    for _ in 0..=rules.max_failures.saturating_add(2) {
        guard::Entity::insert(guard::ActiveModel {
            key: Set(key.clone()),
            failures: Set(0),
            locked_until: Set(None),
            updated_at: Set(now),
        })
        .on_conflict_do_nothing_on([guard::Column::Key])
        .exec(db)
        .await?;
        let Some(g) = guard::Entity::find_by_id(key.clone()).one(db).await? else {
            continue;
        };
        if let Some(until) = lockout::in_force(g.locked_until, now) {
            return Err(AdvertisingError::AccountLocked { until, now }.into());
        }
        let number = g.failures.saturating_add(1);
        let lock = (number >= rules.max_failures)
            .then(|| now + Duration::seconds(rules.lock_secs(number - rules.max_failures)));
        let claimed = guard::Entity::update_many()
            .col_expr(guard::Column::Failures, Expr::value(number))
            .col_expr(guard::Column::LockedUntil, Expr::value(lock))
            .col_expr(guard::Column::UpdatedAt, Expr::value(now))
            .filter(guard::Column::Key.eq(key.clone()))
            .filter(guard::Column::Failures.eq(g.failures))
            .filter(
                Condition::any()
                    .add(guard::Column::LockedUntil.is_null())
                    .add(guard::Column::LockedUntil.lte(now)),
            )
            .exec(db)
            .await?;
        if claimed.rows_affected == 1 {
            return Ok(Attempt { key, number, lock });
        }
    }
    Err(AdvertisingError::AccountLocked {
        until: now + Duration::seconds(1),
        now,
    }
    .into())
}

impl Attempt {
    /// The credentials were right: the count starts again and any lock is lifted.
    pub async fn succeeded(self, st: &AdvertisingState) -> Result<()> {
        clear_key(st, self.key).await
    }

    /// The credentials were wrong (already counted). When this attempt started the lock,
    /// the owner of the account, if there is one, is mailed.
    pub async fn failed(
        self,
        st: &AdvertisingState,
        owner: Option<(AccountKind, Uuid)>,
    ) -> Result<()> {
        let starts = self.number == st.cfg.signin_max_failures;
        if let (true, Some((kind, id)), Some(until)) = (starts, owner, self.lock) {
            tracing::warn!(kind = kind.as_str(), account_id = %id, "password sign-in locked after failures in a row");
            enqueue_notice(st, kind, id, until).await?;
        }
        Ok(())
    }
}

/// Lifts the lock and the count of `email` for `kind` (a password reset proved the owner).
pub async fn clear(st: &AdvertisingState, kind: AccountKind, email: &str) -> Result<()> {
    clear_key(st, key(st, kind, email)).await
}

async fn clear_key(st: &AdvertisingState, key: String) -> Result<()> {
    guard::Entity::delete_many()
        .filter(guard::Column::Key.eq(key))
        .exec(&st.core.db)
        .await?;
    Ok(())
}

#[derive(Debug, Serialize, Deserialize)]
struct Notice {
    kind: String,
    account_id: Uuid,
    locked_until: DateTime<Utc>,
    queued_at: DateTime<Utc>,
}

async fn enqueue_notice(
    st: &AdvertisingState,
    kind: AccountKind,
    account_id: Uuid,
    locked_until: DateTime<Utc>,
) -> Result<()> {
    let now = st.core.now();
    let payload = serde_json::to_value(Notice {
        kind: kind.as_str().to_owned(),
        account_id,
        locked_until,
        queued_at: now,
    })
    .map_err(ApiError::internal)?;
    let minute = now.timestamp().div_euclid(60);
    let job =
        NewJob::new(NOTICE_TOPIC, payload).key(format!("{NOTICE_TOPIC}:{account_id}:{minute}"));
    st.core.jobs.enqueue(&st.core.db, job).await?;
    Ok(())
}

/// Registers the notice's handler with the service's email sender.
pub fn register(st: &AdvertisingState, sender: Arc<dyn EmailSender>) {
    super::jobs::handle(st, NOTICE_TOPIC, move |st, job| {
        let sender = sender.clone();
        async move { send_notice(&st, sender, job).await }
    });
}

async fn send_notice(st: &AdvertisingState, sender: Arc<dyn EmailSender>, job: Job) -> JobResult {
    let n: Notice = job.payload()?;
    let db = &st.core.db;
    let to_job = |e: sea_orm::DbErr| JobFailure::retry(e.to_string());
    let (to, advice) = match AccountKind::parse(&n.kind) {
        Some(AccountKind::Advertiser) => (
            advertiser::Entity::find_by_id(n.account_id)
                .one(db)
                .await
                .map_err(to_job)?
                .map(|a| a.email),
            "If this was not you, someone may be guessing your password: choose a new one \
             with \"Forgot password\", which also lifts the pause.",
        ),
        Some(AccountKind::Admin) => (
            admin::Entity::find_by_id(n.account_id)
                .one(db)
                .await
                .map_err(to_job)?
                .map(|a| a.email),
            "If this was not you, someone may be guessing your password: tell the other \
             administrators, and turn on a TOTP second factor if you have not.",
        ),
        _ => return Err(JobFailure::permanent(format!("kind {}", n.kind))),
    };
    let Some(to) = to else {
        return Ok(Done::default());
    };
    let text = format!(
        "There were {} failed sign-in attempts in a row on your Switchboard Ads account, so \
         signing in is paused until {} UTC; each further failure pauses it longer.\n\n{advice}",
        st.cfg.signin_max_failures,
        n.locked_until.format("%Y-%m-%d %H:%M:%S"),
    );
    deliver(
        st,
        sender.as_ref(),
        &job,
        n.queued_at,
        &to,
        "Sign-in to your account is paused",
        &text,
    )
    .await
}
