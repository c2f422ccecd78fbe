//! Sign-in lockout with back-off for every service that signs people in with a secret: after
//! `max_failures` wrong secrets in a row the account locks for `base_lock_secs`, each further
//! lock twice as long as the one before, capped at `max_lock_secs`; a right secret clears the
//! count. The counters live on each service's own user row ([`Columns`]).

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QuerySelect};
use serde::Deserialize;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(default)]
pub struct LockoutSettings {
    pub max_failures: i32,
    pub base_lock_secs: i64,
    pub max_lock_secs: i64,
}

impl Default for LockoutSettings {
    fn default() -> Self {
        Self {
            max_failures: 5,
            base_lock_secs: 15 * 60,
            max_lock_secs: 24 * 3600,
        }
    }
}

impl LockoutSettings {
    /// The lock that follows `locks_before` earlier ones.
    pub fn lock_secs(&self, locks_before: i32) -> i64 {
        let factor = 1i64 << locks_before.clamp(0, 20);
        std::cmp::min(
            self.base_lock_secs.saturating_mul(factor),
            self.max_lock_secs,
        )
    }
}

/// Until when an account locked until `until` stays locked, if it is at `now`.
pub fn in_force(until: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    until.filter(|u| *u > now)
}

/// Where a service's user table keeps the counters.
pub struct Columns<C> {
    pub id: C,
    pub failures: C,
    pub lock_count: C,
    pub locked_until: C,
}

impl<C: ColumnTrait> Columns<C> {
    /// Counts a wrong secret of account `id`; the `max_failures`-th in a row locks it. Answers
    /// how long the lock it set lasts, if it set one.
    pub async fn record_failure<E: EntityTrait<Column = C>>(
        &self,
        db: &impl ConnectionTrait,
        settings: &LockoutSettings,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, DbErr> {
        E::update_many()
            .col_expr(self.failures, Expr::col(self.failures).add(1))
            .filter(self.id.eq(id))
            .exec(db)
            .await?;
        let current: Option<(i32, i32)> = E::find()
            .select_only()
            .column(self.failures)
            .column(self.lock_count)
            .filter(self.id.eq(id))
            .into_tuple()
            .one(db)
            .await?;
        let Some((_, locks)) = current.filter(|(f, _)| *f >= settings.max_failures) else {
            return Ok(None);
        };
        let secs = settings.lock_secs(locks);
        // Of parallel failures past the threshold, one sets the lock.
        let locked = E::update_many()
            .col_expr(
                self.locked_until,
                Expr::value(now + Duration::seconds(secs)),
            )
            .col_expr(self.lock_count, Expr::col(self.lock_count).add(1))
            .col_expr(self.failures, Expr::value(0))
            .filter(self.id.eq(id))
            .filter(self.failures.gte(settings.max_failures))
            .exec(db)
            .await?;
        Ok((locked.rows_affected > 0).then_some(secs))
    }

    /// A right secret: the counts start again.
    pub async fn clear<E: EntityTrait<Column = C>>(
        &self,
        db: &impl ConnectionTrait,
        id: Uuid,
    ) -> Result<(), DbErr> {
        E::update_many()
            .col_expr(self.failures, Expr::value(0))
            .col_expr(self.lock_count, Expr::value(0))
            .filter(self.id.eq(id))
            .exec(db)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_lock_doubles_up_to_the_cap() {
        let s = LockoutSettings::default();
        assert_eq!(s.lock_secs(0), 900);
        assert_eq!(s.lock_secs(1), 1800);
        assert_eq!(s.lock_secs(6), 64 * 900);
        assert_eq!(s.lock_secs(7), 24 * 3600);
        assert_eq!(s.lock_secs(99), 24 * 3600);
    }
}
