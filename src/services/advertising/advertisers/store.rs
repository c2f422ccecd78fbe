//! Advertisers' rows: made at sign-up, verified, their password and profile changed.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use super::domain::{email_taken, Password};
use super::mail_queue as mail;
use crate::core::password;
use crate::core::session::Change;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, Set,
    SqlErr,
};
use switchboard_entities::advertising::advertiser;
use uuid::Uuid;

pub struct NewAdvertiser {
    pub email: String,
    pub password: Password,
    pub company_name: String,
    pub country_code: String,
}

/// Makes the advertiser, unverified, and queues the verification mail with it (both or
/// neither). A taken address is 409 `email_taken`.
pub async fn sign_up(st: &AdvertisingState, new: NewAdvertiser) -> Result<advertiser::Model> {
    let hash = password::hash(new.password.expose()).await?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let inserted = advertiser::ActiveModel {
        id: Set(Uuid::new_v4()),
        email: Set(new.email),
        password_hash: Set(hash),
        company_name: Set(new.company_name),
        country_code: Set(new.country_code),
        contact_name: Set(None),
        phone: Set(None),
        website: Set(None),
        email_verified_at: Set(None),
        verification_sent_at: Set(Some(now)),
        suspended_at: Set(None),
        suspended_reason: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&*txn)
    .await;
    let row = match inserted {
        Ok(row) => row,
        Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
            return Err(email_taken())
        }
        Err(e) => return Err(e.into()),
    };
    mail::enqueue(st, &*txn, row.id, mail::Kind::Verification).await?;
    txn.commit().await?;
    st.core.jobs.wake();
    Ok(row)
}

pub async fn by_email(db: &impl ConnectionTrait, email: &str) -> Result<Option<advertiser::Model>> {
    Ok(advertiser::Entity::find()
        .filter(advertiser::Column::Email.eq(email))
        .one(db)
        .await?)
}

pub async fn by_id(db: &impl ConnectionTrait, id: Uuid) -> Result<Option<advertiser::Model>> {
    Ok(advertiser::Entity::find_by_id(id).one(db).await?)
}

/// Queues another verification mail unless one went less than a minute ago (claimed by one
/// conditional update, so logins at once queue one).
pub async fn resend_verification(st: &AdvertisingState, a: &advertiser::Model) -> Result<()> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let claimed = advertiser::Entity::update_many()
        .col_expr(advertiser::Column::VerificationSentAt, Expr::value(now))
        .filter(advertiser::Column::Id.eq(a.id))
        .filter(advertiser::Column::EmailVerifiedAt.is_null())
        .filter(
            Condition::any()
                .add(advertiser::Column::VerificationSentAt.is_null())
                .add(advertiser::Column::VerificationSentAt.lte(now - Duration::seconds(60))),
        )
        .exec(&*txn)
        .await?;
    if claimed.rows_affected == 1 {
        mail::enqueue(st, &*txn, a.id, mail::Kind::Verification).await?;
    }
    txn.commit().await?;
    st.core.jobs.wake();
    Ok(())
}

/// Marks the address verified (a second time changes nothing); answers the row.
pub async fn verified(
    st: &AdvertisingState,
    db: &impl ConnectionTrait,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<advertiser::Model>> {
    advertiser::Entity::update_many()
        .col_expr(advertiser::Column::EmailVerifiedAt, Expr::value(now))
        .col_expr(advertiser::Column::UpdatedAt, Expr::value(now))
        .filter(advertiser::Column::Id.eq(id))
        .filter(advertiser::Column::EmailVerifiedAt.is_null())
        .exec(db)
        .await?;
    st.sessions
        .changed(Change::AccountChanged { account: id })
        .await;
    by_id(db, id).await
}

/// Sets a new password (its hash) on the row.
pub async fn set_password(
    db: &impl ConnectionTrait,
    id: Uuid,
    hash: String,
    now: DateTime<Utc>,
) -> Result<()> {
    advertiser::Entity::update_many()
        .col_expr(advertiser::Column::PasswordHash, Expr::value(hash))
        .col_expr(advertiser::Column::UpdatedAt, Expr::value(now))
        .filter(advertiser::Column::Id.eq(id))
        .exec(db)
        .await?;
    Ok(())
}

/// A profile change: each field `None` stays; `Some(None)` clears an optional one.
pub struct ProfileChange {
    pub company_name: Option<String>,
    pub country_code: Option<String>,
    pub contact_name: Option<Option<String>>,
    pub phone: Option<Option<String>>,
    pub website: Option<Option<String>>,
}

pub async fn update_profile(
    st: &AdvertisingState,
    current: &advertiser::Model,
    change: ProfileChange,
) -> Result<advertiser::Model> {
    let mut row: advertiser::ActiveModel = current.clone().into();
    if let Some(v) = change.company_name {
        row.company_name = Set(v);
    }
    if let Some(v) = change.country_code {
        row.country_code = Set(v);
    }
    if let Some(v) = change.contact_name {
        row.contact_name = Set(v);
    }
    if let Some(v) = change.phone {
        row.phone = Set(v);
    }
    if let Some(v) = change.website {
        row.website = Set(v);
    }
    row.updated_at = Set(st.core.now());
    let updated = row.update(&st.core.db).await?;
    st.sessions
        .changed(Change::AccountChanged {
            account: current.id,
        })
        .await;
    Ok(updated)
}

/// The advertiser's money over all their ads, in cents.
pub struct Balance {
    pub deposits: i64,
    pub spent: i64,
    pub reserved: i64,
    pub unspent_deleted: i64,
    pub refunded: i64,
    pub disputed: i64,
    pub owed: i64,
}

/// Funded, spent, reserved, deleted ads' unspent (None over no rows).
type Sums = (Option<i64>, Option<i64>, Option<i64>, Option<i64>);

/// Sums over the advertiser's ads: funded, spent, reserved, and what deleted ads left unspent
/// (funded − spent − reserved: their reservations are still honoured).
pub async fn balance(db: &impl ConnectionTrait, advertiser: Uuid) -> Result<Balance> {
    use sea_orm::QuerySelect;
    use switchboard_entities::advertising::ad;
    let total = super::super::money::store::total;
    let sums: Option<Sums> = ad::Entity::find()
        .select_only()
        .column_as(total(ad::Column::FundedCents), "f")
        .column_as(total(ad::Column::SpentCents), "s")
        .column_as(total(ad::Column::ReservedCents), "r")
        .column_as(
            Expr::cust(
                "CAST(SUM(CASE WHEN status = 'deleted' \
                 THEN funded_cents - spent_cents - reserved_cents ELSE 0 END) AS BIGINT)",
            ),
            "d",
        )
        .filter(ad::Column::AdvertiserId.eq(advertiser))
        .into_tuple()
        .one(db)
        .await?;
    let (f, s, r, d) = sums.unwrap_or_default();
    use switchboard_entities::advertising::payment;
    let back: Option<(Option<i64>, Option<i64>)> = payment::Entity::find()
        .select_only()
        .column_as(
            super::super::money::store::total(payment::Column::RefundedCents),
            "r",
        )
        .column_as(
            super::super::money::store::total(payment::Column::HeldCents),
            "h",
        )
        .filter(payment::Column::AdvertiserId.eq(advertiser))
        .into_tuple()
        .one(db)
        .await?;
    let (refunded, held) = back.unwrap_or_default();
    let owed = super::super::money::ledger::balance_of(
        db,
        &super::super::money::ledger::Account::Owed(advertiser),
    )
    .await?;
    Ok(Balance {
        deposits: f.unwrap_or(0),
        spent: s.unwrap_or(0),
        reserved: r.unwrap_or(0),
        unspent_deleted: d.unwrap_or(0),
        refunded: refunded.unwrap_or(0),
        disputed: held.unwrap_or(0),
        owed: (-owed).max(0),
    })
}
