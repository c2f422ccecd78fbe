//! Operator actions behind `switchboard admin …`: create a workspace (its API key is
//! returned once and stored as SHA-256), grant credits.

use super::super::billing::domain::parse_credits;
use super::super::messages::domain::E164;
use crate::core::admin::AdminError;
use crate::core::secrets::{random_token, sha256_hex};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    Set,
};
use switchboard_entities::messaging::{ledger_entry, workspace};
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct NewWorkspace {
    pub name: String,
    /// Decimal credits, at most two decimals ("100", "2.5").
    pub credits: String,
    /// credit.low threshold in credits; the configured default when None.
    pub low_credit_threshold: Option<String>,
    /// The carrier number whose inbound SMS belong to this workspace.
    pub phone_number: Option<String>,
    /// Default email display name; the workspace name when None.
    pub sender_name: Option<String>,
}

pub struct CreatedWorkspace {
    pub workspace: workspace::Model,
    /// Shown once; only its SHA-256 is stored.
    pub api_key: String,
}

fn credits(s: &str, what: &str) -> Result<i64, AdminError> {
    parse_credits(s).ok_or_else(|| {
        AdminError::Invalid(format!(
            "{what} must be a non-negative number with at most two decimals"
        ))
    })
}

pub async fn create_workspace(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    default_threshold: f64,
    input: NewWorkspace,
) -> Result<CreatedWorkspace, AdminError> {
    let name = input.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AdminError::Invalid(
            "name must be 1 to 100 characters".into(),
        ));
    }
    let balance = credits(&input.credits, "credits")?;
    let threshold = match &input.low_credit_threshold {
        Some(t) => credits(t, "low credit threshold")?,
        None => (default_threshold * 100.0).round().max(0.0) as i64,
    };
    let phone = input
        .phone_number
        .as_deref()
        .map(|p| E164::parse(p.trim()).map(|e| e.as_str().to_owned()))
        .transpose()
        .map_err(|e| AdminError::Invalid(e.to_string()))?;
    let api_key = format!("sb_{}", random_token(32));
    let id = Uuid::new_v4();
    let txn = crate::core::db::begin_write(db).await?;
    let ws = workspace::ActiveModel {
        id: Set(id),
        name: Set(name.clone()),
        api_key_hash: Set(sha256_hex(api_key.as_bytes())),
        api_key_prefix: Set(api_key.chars().take(10).collect()),
        credits_balance: Set(balance),
        low_credit_threshold: Set(threshold),
        sender_name: Set(input.sender_name.unwrap_or(name)),
        phone_number: Set(phone),
        opt_out_reply: Set(None),
        opt_in_reply: Set(None),
        help_reply: Set(None),
        unsubscribe_mailbox: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await
    .map_err(|e| {
        if crate::core::db::is_unique_violation(&e) {
            AdminError::Invalid("that phone number already belongs to a workspace".into())
        } else {
            AdminError::Db(e)
        }
    })?;
    if balance > 0 {
        grant_row(&txn, now, id, balance).await?;
    }
    txn.commit().await?;
    Ok(CreatedWorkspace {
        workspace: ws,
        api_key,
    })
}

async fn grant_row<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    workspace_id: Uuid,
    amount: i64,
) -> Result<(), sea_orm::DbErr> {
    ledger_entry::Entity::insert(ledger_entry::ActiveModel {
        id: Set(Uuid::new_v4()),
        workspace_id: Set(workspace_id),
        message_id: Set(None),
        amount: Set(amount),
        reason: Set("grant".into()),
        created_at: Set(now),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// Adds credits to a workspace; returns the new balance in hundredths.
pub async fn add_credits(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    workspace_id: Uuid,
    credits_text: &str,
) -> Result<i64, AdminError> {
    let amount = credits(credits_text, "credits")?;
    let txn = crate::core::db::begin_write(db).await?;
    let res = workspace::Entity::update_many()
        .col_expr(
            workspace::Column::CreditsBalance,
            Expr::col(workspace::Column::CreditsBalance).add(amount),
        )
        .col_expr(workspace::Column::UpdatedAt, Expr::value(now))
        .filter(workspace::Column::Id.eq(workspace_id))
        .exec(&txn)
        .await?;
    if res.rows_affected != 1 {
        return Err(AdminError::Invalid("no such workspace".into()));
    }
    grant_row(&txn, now, workspace_id, amount).await?;
    let ws = workspace::Entity::find_by_id(workspace_id)
        .one(&txn)
        .await?
        .ok_or_else(|| AdminError::Invalid("no such workspace".into()))?;
    txn.commit().await?;
    Ok(ws.credits_balance)
}
