//! One-time codes for every service that signs people in by phone: six digits, stored only as
//! HMAC digests bound to service, phone and purpose; a new code supersedes the earlier ones of
//! the same phone and purpose; each code expires, takes a limited number of attempts (counted
//! before the comparison, so parallel guesses cannot exceed the limit) and is consumed once.
//! Services decide what each outcome means to their clients.

use crate::core::phone::PhoneNumber;
use crate::core::secrets::{constant_time_eq, hmac_sha256_hex, random_digits};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, Set,
};
use switchboard_entities::core::otp_code::{self, Column, Entity};
use uuid::Uuid;

/// One service's codes.
pub struct OtpCodes<'a> {
    pub db: &'a DatabaseConnection,
    /// The service's own HMAC key for digests.
    pub key: Vec<u8>,
    pub service: &'static str,
    pub ttl_secs: i64,
    /// Attempts one code takes (at least one).
    pub max_attempts: i32,
}

/// The phone's newest code of a purpose that is not consumed yet.
pub enum Live {
    None,
    Expired,
    Code(otp_code::Model),
}

/// How an attempt on a live code ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Checked {
    /// Right, and consumed by this attempt.
    Valid,
    Wrong {
        attempts_remaining: i32,
    },
    /// Every attempt of the code is used up.
    Exhausted,
    /// Another request consumed or superseded the code meanwhile.
    Gone,
}

impl OtpCodes<'_> {
    fn digest(&self, phone: &PhoneNumber, purpose: &str, code: &str) -> String {
        let input = format!("{}|{}|{}", phone.as_str(), purpose, code);
        hmac_sha256_hex(&self.key, input.as_bytes())
    }

    fn max(&self) -> i32 {
        Ord::max(self.max_attempts, 1)
    }

    fn of(&self, phone: &PhoneNumber, purpose: &str) -> sea_orm::Select<Entity> {
        Entity::find()
            .filter(Column::Service.eq(self.service))
            .filter(Column::Phone.eq(phone.as_str()))
            .filter(Column::Purpose.eq(purpose))
    }

    /// Stores a fresh code for `phone` and `purpose`, retiring the earlier ones, and returns it
    /// for the caller to send.
    pub async fn issue(
        &self,
        phone: &PhoneNumber,
        purpose: &str,
        now: DateTime<Utc>,
    ) -> Result<String, DbErr> {
        let code = random_digits(6);
        let txn = crate::core::db::begin_write(self.db).await?;
        Entity::update_many()
            .col_expr(Column::ConsumedAt, Expr::value(now))
            .filter(Column::Service.eq(self.service))
            .filter(Column::Phone.eq(phone.as_str()))
            .filter(Column::Purpose.eq(purpose))
            .filter(Column::ConsumedAt.is_null())
            .exec(&txn)
            .await?;
        otp_code::ActiveModel {
            id: Set(Uuid::new_v4()),
            service: Set(self.service.to_owned()),
            phone: Set(phone.as_str().to_owned()),
            purpose: Set(purpose.to_owned()),
            code_hash: Set(self.digest(phone, purpose, &code)),
            attempts: Set(0),
            expires_at: Set(now + Duration::seconds(self.ttl_secs)),
            consumed_at: Set(None),
            created_at: Set(now),
        }
        .insert(&txn)
        .await?;
        txn.commit().await?;
        Ok(code)
    }

    /// The phone's live code of `purpose`, if any.
    pub async fn live(
        &self,
        phone: &PhoneNumber,
        purpose: &str,
        now: DateTime<Utc>,
    ) -> Result<Live, DbErr> {
        let row = self
            .of(phone, purpose)
            .filter(Column::ConsumedAt.is_null())
            .order_by_desc(Column::CreatedAt)
            .one(self.db)
            .await?;
        Ok(match row {
            None => Live::None,
            Some(row) if row.expires_at <= now => Live::Expired,
            Some(row) => Live::Code(row),
        })
    }

    /// One attempt of `code` on `row` (from [`OtpCodes::live`]): counted first, then compared;
    /// a right code is consumed by exactly one attempt.
    pub async fn check(
        &self,
        row: &otp_code::Model,
        code: &str,
        now: DateTime<Utc>,
    ) -> Result<Checked, DbErr> {
        let max = self.max();
        let counted = Entity::update_many()
            .col_expr(Column::Attempts, Expr::col(Column::Attempts).add(1))
            .filter(Column::Id.eq(row.id))
            .filter(Column::Attempts.lt(max))
            .filter(Column::ConsumedAt.is_null())
            .exec(self.db)
            .await?;
        if counted.rows_affected == 0 {
            return Ok(if row.attempts >= max {
                Checked::Exhausted
            } else {
                Checked::Gone
            });
        }
        let phone = PhoneNumber::from_stored(row.phone.clone());
        let expected = self.digest(&phone, &row.purpose, code.trim());
        if !constant_time_eq(expected.as_bytes(), row.code_hash.as_bytes()) {
            let used = Entity::find_by_id(row.id)
                .one(self.db)
                .await?
                .map_or(max, |r| r.attempts);
            return Ok(Checked::Wrong {
                attempts_remaining: Ord::max(max - used, 0),
            });
        }
        let consumed = Entity::update_many()
            .col_expr(Column::ConsumedAt, Expr::value(now))
            .filter(Column::Id.eq(row.id))
            .filter(Column::ConsumedAt.is_null())
            .exec(self.db)
            .await?;
        Ok(if consumed.rows_affected == 1 {
            Checked::Valid
        } else {
            Checked::Gone
        })
    }

    /// Attempts on the phone's codes (every purpose) issued after `since`, oldest code
    /// first: `(issued at, attempts)`. A code is tried only while it lives (minutes), so this
    /// is a rolling count of guesses per phone; a right code adds its one attempt.
    pub async fn attempts_since(
        &self,
        phone: &PhoneNumber,
        since: DateTime<Utc>,
    ) -> Result<Vec<(DateTime<Utc>, i32)>, DbErr> {
        Entity::find()
            .select_only()
            .column(Column::CreatedAt)
            .column(Column::Attempts)
            .filter(Column::Service.eq(self.service))
            .filter(Column::Phone.eq(phone.as_str()))
            .filter(Column::CreatedAt.gt(since))
            .filter(Column::Attempts.gt(0))
            .order_by_asc(Column::CreatedAt)
            .into_tuple()
            .all(self.db)
            .await
    }

    /// Deletes every code of these phones (their accounts are gone).
    pub async fn delete_for<C: ConnectionTrait>(
        &self,
        conn: &C,
        phones: Vec<String>,
    ) -> Result<u64, DbErr> {
        Ok(Entity::delete_many()
            .filter(Column::Service.eq(self.service))
            .filter(Column::Phone.is_in(phones))
            .exec(conn)
            .await?
            .rows_affected)
    }

    /// Deletes the service's codes that expired before `before`.
    pub async fn purge_expired<C: ConnectionTrait>(
        &self,
        conn: &C,
        before: DateTime<Utc>,
    ) -> Result<u64, DbErr> {
        Ok(Entity::delete_many()
            .filter(Column::Service.eq(self.service))
            .filter(Column::ExpiresAt.lt(before))
            .exec(conn)
            .await?
            .rows_affected)
    }
}
