//! Administrators' TOTP second factor (RFC 6238, `core::totp`): enrolment makes a secret,
//! kept sealed (AES-256-GCM under a key derived from the service's secret and bound to the
//! administrator) and shown only in the enrolment's answer; a current code confirms it and
//! turns it on, answering ten one-time recovery codes (kept as salted SHA-256 only); from
//! then on sign-in takes a code or a recovery code. A code works once: the newest accepted
//! step is kept and only later ones pass.
//!
//! With `require_admin_totp`, an administrator without TOTP signs in to an enrolment token
//! only (signed, 10 minutes, good for enrol and confirm and nothing else), no session.

use super::super::error::{AdvertisingError, Result};
use super::super::media::links::LinkKey;
use super::super::state::AdvertisingState;
use crate::core::error::ApiError;
use crate::core::secrets::{self, constant_time_eq};
use crate::core::totp;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, Set,
    SqlErr,
};
use switchboard_entities::advertising::{admin, admin_recovery_code as recovery, admin_totp};
use uuid::Uuid;

/// The issuer authenticator apps show.
const ISSUER: &str = "Switchboard Ads";
/// Recovery codes made at confirmation.
pub const RECOVERY_CODES: usize = 10;
/// Steps either side of now whose codes pass (a phone's clock drifts).
const SKEW_STEPS: i64 = 1;
/// Life of an enrolment token.
const ENROLMENT_TTL_SECS: i64 = 600;

fn sealing_key(st: &AdvertisingState) -> [u8; 32] {
    secrets::derive_key(
        st.core.settings.auth.jwt_secret.as_bytes(),
        b"advertising-admin-totp",
    )
}

fn enrolment_key(st: &AdvertisingState) -> LinkKey {
    LinkKey::for_purpose(
        &st.core.settings.auth.jwt_secret,
        b"advertising-admin-enrolment",
        "totp-enrolment",
    )
}

/// A token that lets administrator `id` enrol and confirm TOTP, for 10 minutes.
pub fn enrolment_token(st: &AdvertisingState, id: Uuid) -> String {
    enrolment_key(st).token(id, st.core.now() + Duration::seconds(ENROLMENT_TTL_SECS))
}

/// The administrator an enrolment token names, if it is ours and unexpired.
pub fn enrolling(st: &AdvertisingState, token: &str) -> Option<Uuid> {
    enrolment_key(st).open(token.trim(), st.core.now()).ok()
}

/// The administrator's enrolment, confirmed or not.
pub async fn of(db: &impl ConnectionTrait, admin_id: Uuid) -> Result<Option<admin_totp::Model>> {
    Ok(admin_totp::Entity::find_by_id(admin_id).one(db).await?)
}

/// The administrator's TOTP when it is on (confirmed).
pub async fn enabled(
    db: &impl ConnectionTrait,
    admin_id: Uuid,
) -> Result<Option<admin_totp::Model>> {
    Ok(of(db, admin_id).await?.filter(|t| t.confirmed_at.is_some()))
}

fn secret_of(st: &AdvertisingState, row: &admin_totp::Model) -> Result<Vec<u8>> {
    secrets::open(
        &sealing_key(st),
        row.admin_id.as_bytes(),
        &row.secret_sealed,
    )
    .ok_or_else(|| {
        ApiError::internal(std::io::Error::other(
            "an administrator's TOTP secret does not open (was the service's secret changed?)",
        ))
    })
}

/// What an authenticator app needs, shown once.
pub struct Enrolment {
    pub secret: String,
    pub uri: String,
}

/// Makes a new secret for the administrator (replacing an unconfirmed one).
pub async fn enrol(st: &AdvertisingState, a: &admin::Model) -> Result<Enrolment> {
    let db = &st.core.db;
    if enabled(db, a.id).await?.is_some() {
        return Err(AdvertisingError::TotpAlreadyEnabled.into());
    }
    let secret = totp::new_secret();
    let sealed = secrets::seal(&sealing_key(st), a.id.as_bytes(), &secret)
        .ok_or_else(|| ApiError::internal(std::io::Error::other("sealing failed")))?;
    let now = st.core.now();
    admin_totp::Entity::delete_many()
        .filter(admin_totp::Column::AdminId.eq(a.id))
        .filter(admin_totp::Column::ConfirmedAt.is_null())
        .exec(db)
        .await?;
    let row = admin_totp::ActiveModel {
        admin_id: Set(a.id),
        secret_sealed: Set(sealed),
        confirmed_at: Set(None),
        last_step: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    };
    match row.insert(db).await {
        Ok(_) => {}
        // Another enrolment or a confirmation got in between.
        Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
            return Err(AdvertisingError::TotpAlreadyEnabled.into());
        }
        Err(e) => return Err(e.into()),
    }
    Ok(Enrolment {
        secret: totp::base32(&secret),
        uri: totp::uri(ISSUER, &a.email, &secret),
    })
}

/// Claims `step` as used: true when no code of it or a later step was accepted before.
async fn claim_step(st: &AdvertisingState, admin_id: Uuid, step: i64) -> Result<bool> {
    let claimed = admin_totp::Entity::update_many()
        .col_expr(admin_totp::Column::LastStep, Expr::value(step))
        .col_expr(admin_totp::Column::UpdatedAt, Expr::value(st.core.now()))
        .filter(admin_totp::Column::AdminId.eq(admin_id))
        .filter(
            Condition::any()
                .add(admin_totp::Column::LastStep.is_null())
                .add(admin_totp::Column::LastStep.lt(step)),
        )
        .exec(&st.core.db)
        .await?;
    Ok(claimed.rows_affected == 1)
}

/// The step whose code `code` is now, if any.
fn step_of_code(st: &AdvertisingState, secret: &[u8], code: &str) -> Option<i64> {
    totp::matching_step(secret, code, st.core.now().timestamp(), SKEW_STEPS)
}

/// Confirms the unconfirmed enrolment `row` with a current code: TOTP is on, and the
/// recovery codes (shown once) answer. None when the code is wrong.
pub async fn confirm(
    st: &AdvertisingState,
    row: &admin_totp::Model,
    code: &str,
) -> Result<Option<Vec<String>>> {
    let admin_id = row.admin_id;
    let secret = secret_of(st, row)?;
    let Some(step) = step_of_code(st, &secret, code) else {
        return Ok(None);
    };
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    // The enrolment the code was checked against, still unconfirmed: the code's step is
    // used from here (it signs nobody in afterwards).
    let confirmed = admin_totp::Entity::update_many()
        .col_expr(admin_totp::Column::ConfirmedAt, Expr::value(now))
        .col_expr(admin_totp::Column::LastStep, Expr::value(step))
        .col_expr(admin_totp::Column::UpdatedAt, Expr::value(now))
        .filter(admin_totp::Column::AdminId.eq(admin_id))
        .filter(admin_totp::Column::SecretSealed.eq(row.secret_sealed.clone()))
        .filter(admin_totp::Column::ConfirmedAt.is_null())
        .exec(&*txn)
        .await?;
    if confirmed.rows_affected != 1 {
        return Err(AdvertisingError::TotpNotEnrolled.into());
    }
    recovery::Entity::delete_many()
        .filter(recovery::Column::AdminId.eq(admin_id))
        .exec(&*txn)
        .await?;
    let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
    let rows = codes.iter().map(|c| recovery::ActiveModel {
        id: Set(Uuid::new_v4()),
        admin_id: Set(admin_id),
        code_hash: Set(hash_recovery(&normalise(c))),
        used_at: Set(None),
        created_at: Set(now),
    });
    recovery::Entity::insert_many(rows).exec(&*txn).await?;
    txn.commit().await?;
    Ok(Some(codes))
}

/// Turns TOTP off after a current code or a recovery code; false when it is wrong.
pub async fn disable(
    st: &AdvertisingState,
    row: &admin_totp::Model,
    second: Second<'_>,
) -> Result<bool> {
    if !check(st, row, second).await? {
        return Ok(false);
    }
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    admin_totp::Entity::delete_many()
        .filter(admin_totp::Column::AdminId.eq(row.admin_id))
        .exec(&*txn)
        .await?;
    recovery::Entity::delete_many()
        .filter(recovery::Column::AdminId.eq(row.admin_id))
        .exec(&*txn)
        .await?;
    txn.commit().await?;
    Ok(true)
}

/// The second factor presented.
#[derive(Clone, Copy)]
pub enum Second<'a> {
    Code(&'a str),
    Recovery(&'a str),
}

impl<'a> Second<'a> {
    /// A TOTP code when one is given, else a recovery code, else none.
    pub fn of(code: Option<&'a str>, recovery_code: Option<&'a str>) -> Option<Self> {
        let given = |v: Option<&'a str>| v.filter(|v| !v.trim().is_empty());
        given(code)
            .map(Self::Code)
            .or_else(|| given(recovery_code).map(Self::Recovery))
    }
}

/// Checks a code (unused step) or a recovery code (unused) of the enabled TOTP `row`, and
/// uses it up when it is right.
pub async fn check(
    st: &AdvertisingState,
    row: &admin_totp::Model,
    second: Second<'_>,
) -> Result<bool> {
    match second {
        Second::Code(code) => {
            let secret = secret_of(st, row)?;
            match step_of_code(st, &secret, code) {
                Some(step) => claim_step(st, row.admin_id, step).await,
                None => Ok(false),
            }
        }
        Second::Recovery(code) => {
            use_recovery(st, row.admin_id, &normalise(code), st.core.now()).await
        }
    }
}

async fn use_recovery(
    st: &AdvertisingState,
    admin_id: Uuid,
    code: &str,
    now: DateTime<Utc>,
) -> Result<bool> {
    let db = &st.core.db;
    let unused = recovery::Entity::find()
        .filter(recovery::Column::AdminId.eq(admin_id))
        .filter(recovery::Column::UsedAt.is_null())
        .all(db)
        .await?;
    let Some(found) = unused.iter().find(|r| recovery_matches(&r.code_hash, code)) else {
        return Ok(false);
    };
    // Of two sign-ins with the same code at once, one uses it.
    let used = recovery::Entity::update_many()
        .col_expr(recovery::Column::UsedAt, Expr::value(now))
        .filter(recovery::Column::Id.eq(found.id))
        .filter(recovery::Column::UsedAt.is_null())
        .exec(db)
        .await?;
    Ok(used.rows_affected == 1)
}

/// A recovery code as shown: ten base32 characters (50 bits) in two groups.
fn new_recovery_code() -> String {
    let raw = totp::base32(&totp::new_secret()).to_ascii_lowercase();
    format!("{}-{}", &raw[..5], &raw[5..10])
}

/// A recovery code as typed, without separators or case.
fn normalise(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn digest(salt: &[u8], code: &str) -> String {
    let mut input = salt.to_vec();
    input.extend_from_slice(code.as_bytes());
    secrets::sha256_hex(&input)
}

/// `<salt hex>$<SHA-256 hex of salt and code>`: the codes carry 50 random bits, so a salted
/// fast hash suffices where a PIN would need argon2.
fn hash_recovery(code: &str) -> String {
    let salt = secrets::random_hex(16);
    let bytes = hex::decode(&salt).unwrap_or_default();
    format!("{salt}${}", digest(&bytes, code))
}

fn recovery_matches(stored: &str, code: &str) -> bool {
    let Some((salt, want)) = stored.split_once('$') else {
        return false;
    };
    let Ok(salt) = hex::decode(salt) else {
        return false;
    };
    !code.is_empty() && constant_time_eq(digest(&salt, code).as_bytes(), want.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recovery_code_matches_its_hash_only_as_typed_loosely() {
        let code = new_recovery_code();
        assert_eq!(code.len(), 11, "{code}");
        let stored = hash_recovery(&normalise(&code));
        assert!(!stored.contains(&normalise(&code)));
        assert!(recovery_matches(&stored, &normalise(&code.to_uppercase())));
        assert!(recovery_matches(
            &stored,
            &normalise(&code.replace('-', " "))
        ));
        assert!(!recovery_matches(&stored, &normalise(&new_recovery_code())));
        assert!(!recovery_matches(&stored, ""));
        assert_ne!(hash_recovery("same"), hash_recovery("same"), "salted");
    }
}
