//! The double-entry ledger, in integer cents. Every movement is a transaction whose legs
//! (ledger entries) sum to zero; each leg moves one account's balance in the same database
//! transaction, by one conditional update, so an account that may not go below zero (a
//! poster's) never does, however many movements race.

use super::super::error::{AdvertisingError, Result};
use crate::core::error::ApiError;
use chrono::{DateTime, Utc};
use rand::Rng;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set, SqlErr,
};
use switchboard_entities::advertising::{balance, ledger_entry, transaction};
use uuid::Uuid;

/// A ledger account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Account {
    /// What a poster can withdraw.
    PosterAvailable(Uuid),
    /// What a poster's unprocessed withdrawals hold.
    PosterPending(Uuid),
    /// An ad's funded money (reserved and spent are tracked on the ad).
    Ad(Uuid),
    /// Money from outside: payments and operators' grants.
    Funding,
    /// Money paid out to posters.
    Payouts,
    /// What an open dispute of a payment holds back from its ad.
    Held(Uuid),
    /// What an advertiser owes: refunds and lost disputes of money already earned by
    /// posters. Negative while owed (money that left through `Funding` without coming
    /// back from the ad); their next payment settles it first.
    Owed(Uuid),
}

impl Account {
    pub fn key(&self) -> String {
        match self {
            Self::PosterAvailable(id) => format!("poster:{id}:available"),
            Self::PosterPending(id) => format!("poster:{id}:pending"),
            Self::Ad(id) => format!("ad:{id}"),
            Self::Funding => "external:funding".into(),
            Self::Payouts => "external:payouts".into(),
            Self::Held(payment) => format!("payment:{payment}:held"),
            Self::Owed(advertiser) => format!("advertiser:{advertiser}:owed"),
        }
    }

    /// Only the outside world's accounts run negative (they mirror money elsewhere), and an
    /// advertiser's debt.
    fn may_go_negative(&self) -> bool {
        matches!(self, Self::Funding | Self::Payouts | Self::Owed(_))
    }
}

pub use switchboard_entities::advertising::transaction::{TransactionKind, TransactionStatus};

/// One movement to write.
pub struct Movement {
    pub kind: TransactionKind,
    pub status: TransactionStatus,
    pub amount_cents: i64,
    pub poster_id: Option<Uuid>,
    pub advertiser_id: Option<Uuid>,
    pub ad_id: Option<Uuid>,
    pub screenshot_id: Option<Uuid>,
    pub description: String,
    /// Writes the movement at most once.
    pub idempotency_key: Option<String>,
    /// (account, signed cents); they must sum to zero.
    pub legs: Vec<(Account, i64)>,
}

/// The unambiguous alphabet of readable codes (no 0, O, 1, I, L).
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

fn code() -> String {
    let mut rng = rand::rng();
    let tail: String = (0..8)
        .map(|_| CODE_ALPHABET[rng.random_range(0..CODE_ALPHABET.len())] as char)
        .collect();
    format!("TX-{tail}")
}

/// Writes `m` inside `db` (a database transaction the caller commits). Answers None when
/// its idempotency key was written before; `InsufficientBalance` when a leg would take a
/// guarded account below zero (the caller's transaction must then roll back).
pub async fn post(
    db: &impl ConnectionTrait,
    m: Movement,
    now: DateTime<Utc>,
) -> Result<Option<transaction::Model>> {
    let sum: i64 = m.legs.iter().map(|(_, c)| c).sum();
    if sum != 0 || m.legs.is_empty() {
        return Err(ApiError::internal(std::io::Error::other(format!(
            "unbalanced movement: legs sum to {sum}"
        ))));
    }
    if let Some(key) = &m.idempotency_key {
        let seen = transaction::Entity::find()
            .filter(transaction::Column::IdempotencyKey.eq(key.as_str()))
            .one(db)
            .await?;
        if seen.is_some() {
            return Ok(None);
        }
    }
    let id = Uuid::new_v4();
    let row = transaction::ActiveModel {
        id: Set(id),
        code: Set(code()),
        kind: Set(m.kind),
        status: Set(m.status),
        amount_cents: Set(m.amount_cents),
        poster_id: Set(m.poster_id),
        advertiser_id: Set(m.advertiser_id),
        ad_id: Set(m.ad_id),
        screenshot_id: Set(m.screenshot_id),
        description: Set(m.description),
        idempotency_key: Set(m.idempotency_key),
        created_at: Set(now),
        updated_at: Set(now),
    };
    let written = match row.clone().insert(db).await {
        Ok(t) => t,
        // A code clash (31^8 codes) or the same key written meanwhile.
        Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
            let mut again = row;
            again.code = Set(code());
            again.insert(db).await?
        }
        Err(e) => return Err(e.into()),
    };
    for (account, cents) in &m.legs {
        apply(db, account, *cents, now).await?;
        ledger_entry::ActiveModel {
            id: Set(Uuid::new_v4()),
            transaction_id: Set(id),
            account: Set(account.key()),
            amount_cents: Set(*cents),
            created_at: Set(now),
        }
        .insert(db)
        .await?;
    }
    Ok(Some(written))
}

/// Moves one account's balance by `cents`, refusing to take a guarded one below zero.
async fn apply(
    db: &impl ConnectionTrait,
    account: &Account,
    cents: i64,
    now: DateTime<Utc>,
) -> Result<()> {
    let key = account.key();
    balance::Entity::insert(balance::ActiveModel {
        account: Set(key.clone()),
        cents: Set(0),
        updated_at: Set(now),
    })
    .on_conflict_do_nothing_on([balance::Column::Account])
    .exec(db)
    .await?;
    let mut update = balance::Entity::update_many()
        .col_expr(
            balance::Column::Cents,
            Expr::col(balance::Column::Cents).add(cents),
        )
        .col_expr(balance::Column::UpdatedAt, Expr::value(now))
        .filter(balance::Column::Account.eq(key));
    if !account.may_go_negative() && cents < 0 {
        update = update.filter(balance::Column::Cents.gte(-cents));
    }
    if update.exec(db).await?.rows_affected != 1 {
        return Err(AdvertisingError::InsufficientBalance.into());
    }
    Ok(())
}

/// The balance of one account (0 when it never moved).
pub async fn balance_of(db: &impl ConnectionTrait, account: &Account) -> Result<i64> {
    Ok(balance::Entity::find_by_id(account.key())
        .one(db)
        .await?
        .map_or(0, |b| b.cents))
}

/// Sets a movement's status (a withdrawal processed); with `legs`, moves the money too.
pub async fn settle(
    db: &impl ConnectionTrait,
    tx: &transaction::Model,
    status: TransactionStatus,
    legs: &[(Account, i64)],
    now: DateTime<Utc>,
) -> Result<()> {
    // Settling twice would move its legs twice.
    if !tx.status.can_move_to(status) {
        return Err(ApiError::internal(std::io::Error::other(format!(
            "a {} transaction cannot become {status}",
            tx.status
        ))));
    }
    for (account, cents) in legs {
        apply(db, account, *cents, now).await?;
        ledger_entry::ActiveModel {
            id: Set(Uuid::new_v4()),
            transaction_id: Set(tx.id),
            account: Set(account.key()),
            amount_cents: Set(*cents),
            created_at: Set(now),
        }
        .insert(db)
        .await?;
    }
    transaction::Entity::update_many()
        .col_expr(transaction::Column::Status, Expr::value(status))
        .col_expr(transaction::Column::UpdatedAt, Expr::value(now))
        .filter(transaction::Column::Id.eq(tx.id))
        .exec(db)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_readable() {
        // The alphabet itself: every letter and digit but the five read alike, once each.
        let alphabet: std::collections::BTreeSet<char> =
            CODE_ALPHABET.iter().map(|&b| b as char).collect();
        assert_eq!(alphabet.len(), CODE_ALPHABET.len(), "no repeats");
        let readable: std::collections::BTreeSet<char> = ('A'..='Z')
            .chain('0'..='9')
            .filter(|c| !['0', 'O', '1', 'I', 'L'].contains(c))
            .collect();
        assert_eq!(alphabet, readable);
        // Codes draw from all of it, and only from it.
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let c = code();
            assert!(c.starts_with("TX-") && c.len() == 11, "{c}");
            assert!(c[3..].chars().all(|ch| alphabet.contains(&ch)), "{c}");
            seen.extend(c[3..].chars());
        }
        assert_eq!(seen, alphabet, "some letters never drawn");
    }
}
