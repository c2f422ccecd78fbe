//! /admin/users: moderators list, read and change posters, ban and unban them (a ban ends
//! every session of theirs at once and for good; signing in again is refused until an
//! unban), and read their transactions.

use super::super::error::Result;
use super::super::money::dto::{TransactionView, TransactionsQuery};
use super::super::money::ledger::{TransactionKind, TransactionStatus};
use super::super::money::store as money;
use super::super::openapi::Errors;
use super::super::screenshots::limit::{self as rejections, ProofRejections};
use super::super::sessions;
use super::super::staff::invalid_transition;
use super::super::state::AdvertisingState;
use super::super::wire::{self, ok, word, Data, List};
use super::domain;
use super::dto::PosterView;
use crate::core::auth::{Bearer, ModeratorRole};
use crate::core::json_body::Json;
use crate::core::session::{Change, EndReason};
use actix_web::{get, post, put, web, HttpResponse};
use sea_orm::sea_query::{Expr, ExprTrait, Func, LikeExpr};
use sea_orm::{ActiveModelTrait, ColumnTrait, Condition, EntityTrait, QueryFilter, Set};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::poster::{self, KycStatus, PosterStatus};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct UsersQuery {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// Part of the name, phone number or email (any case).
    pub search: Option<String>,
    /// A country's id or alpha-2 code.
    pub country_id: Option<String>,
    /// `active` or `banned`.
    pub status: Option<String>,
    /// `none`, `pending`, `verified` or `rejected`.
    pub kyc_status: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserUpdate {
    /// 1 to 80 characters.
    pub name: Option<String>,
    pub email: Option<String>,
    /// `active` or `banned` (a ban ends the poster's sessions, as ban does).
    pub status: Option<String>,
    /// `none`, `pending`, `verified` or `rejected`.
    pub kyc_status: Option<String>,
}

fn user_not_found() -> crate::core::error::ApiError {
    super::super::error::AdvertisingError::NotFound(super::super::error::Record::User).into()
}

fn user_id(raw: &str) -> Result<Uuid> {
    Uuid::parse_str(raw.trim()).map_err(|_| user_not_found())
}

async fn find(st: &AdvertisingState, id: Uuid) -> Result<poster::Model> {
    poster::Entity::find_by_id(id)
        .one(&st.core.db)
        .await?
        .ok_or_else(user_not_found)
}

/// `%term%` for LIKE, with the term's own wildcards taken literally.
fn contains(term: &str) -> LikeExpr {
    let escaped: String = term
        .to_lowercase()
        .chars()
        .flat_map(|c| match c {
            '%' | '_' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    LikeExpr::new(format!("%{escaped}%")).escape('\\')
}

/// Posters, newest first, narrowed by the query.
#[utoipa::path(tag = "admin", params(UsersQuery),
    responses((status = 200, body = Data<List<PosterView>>), Errors), security(("bearer" = [])))]
#[get("/admin/users")]
pub async fn list_users(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    q: web::Query<UsersQuery>,
) -> Result<HttpResponse> {
    let window = wire::window(q.page, q.limit)?;
    let mut select = poster::Entity::find();
    if let Some(s) = word::<PosterStatus>("status", q.status.as_deref())? {
        select = select.filter(poster::Column::Status.eq(s));
    }
    if let Some(k) = word::<KycStatus>("kycStatus", q.kyc_status.as_deref())? {
        select = select.filter(poster::Column::KycStatus.eq(k));
    }
    if let Some(c) = q.country_id.as_deref().filter(|c| !c.trim().is_empty()) {
        let country = domain::country("countryId", c)?;
        select = select.filter(poster::Column::Country.eq(country.alpha2.to_string()));
    }
    if let Some(term) = q.search.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        let mut any = Condition::any();
        for col in [
            poster::Column::Name,
            poster::Column::Phone,
            poster::Column::Email,
        ] {
            any = any.add(Expr::expr(Func::lower(Expr::col(col))).like(contains(term)));
        }
        select = select.filter(any);
    }
    let page = wire::newest_first(
        &st.core.db,
        select,
        poster::Column::CreatedAt,
        poster::Column::Id,
        window,
    )
    .await?;
    Ok(ok(List::from(page.map(|p| PosterView::from(&p)))))
}

/// A poster as staff see them: the profile and how many of their screenshots were recently
/// rejected as not showing their video.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUserView {
    #[serde(flatten)]
    pub user: PosterView,
    pub proof_rejections: ProofRejections,
}

#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<AdminUserView>), Errors), security(("bearer" = [])))]
#[get("/admin/users/{id}")]
pub async fn one_user(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let p = find(&st, user_id(&id)?).await?;
    Ok(ok(AdminUserView {
        proof_rejections: rejections::of(&st, &st.core.db, p.id).await?,
        user: PosterView::from(&p),
    }))
}

/// Changes the given fields; `status: banned` bans as `/ban` does.
#[utoipa::path(tag = "admin", params(("id" = String, Path)), request_body = UserUpdate,
    responses((status = 200, body = Data<PosterView>), Errors), security(("bearer" = [])))]
#[put("/admin/users/{id}")]
pub async fn update_user(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
    body: Json<UserUpdate>,
) -> Result<HttpResponse> {
    let current = find(&st, user_id(&id)?).await?;
    let status = word::<PosterStatus>("status", body.status.as_deref())?;
    let kyc = word::<KycStatus>("kycStatus", body.kyc_status.as_deref())?;
    let mut row: poster::ActiveModel = current.clone().into();
    if let Some(name) = body.name.as_deref() {
        row.name = Set(Some(domain::name(name)?));
    }
    if let Some(email) = body.email.as_deref() {
        row.email = Set(Some(domain::email(email)?));
    }
    if let Some(k) = kyc {
        row.kyc_status = Set(k);
    }
    if let Some(s) = status {
        row.status = Set(s);
    }
    row.updated_at = Set(st.core.now());
    let updated = row.update(&st.core.db).await?;
    if updated.status == PosterStatus::Banned && current.status != PosterStatus::Banned {
        sessions::end_all(&st, updated.id, EndReason::Banned).await?;
    } else {
        st.sessions
            .changed(Change::AccountChanged {
                account: updated.id,
            })
            .await;
    }
    Ok(ok(PosterView::from(&updated)))
}

/// Moves the poster from `from` to `to` status; 409 when they are not in `from`.
async fn set_status(
    st: &AdvertisingState,
    raw: &str,
    from: PosterStatus,
    to: PosterStatus,
) -> Result<poster::Model> {
    let id = user_id(raw)?;
    let moved = poster::Entity::update_many()
        .col_expr(poster::Column::Status, Expr::value(to))
        .col_expr(poster::Column::UpdatedAt, Expr::value(st.core.now()))
        .filter(poster::Column::Id.eq(id))
        .filter(poster::Column::Status.eq(from))
        .exec(&st.core.db)
        .await?;
    let now = find(st, id).await?;
    if moved.rows_affected != 1 {
        return Err(invalid_transition(format!(
            "this user is already {}",
            now.status
        )));
    }
    Ok(now)
}

/// Bans the poster: every token of theirs stops working at once, and signing in again is
/// refused until they are unbanned.
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<PosterView>), Errors), security(("bearer" = [])))]
#[post("/admin/users/{id}/ban")]
pub async fn ban_user(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let p = set_status(&st, &id, PosterStatus::Active, PosterStatus::Banned).await?;
    sessions::end_all(&st, p.id, EndReason::Banned).await?;
    Ok(ok(PosterView::from(&p)))
}

/// Lifts a ban: the poster may sign in again (their old tokens stay ended).
#[utoipa::path(tag = "admin", params(("id" = String, Path)),
    responses((status = 200, body = Data<PosterView>), Errors), security(("bearer" = [])))]
#[post("/admin/users/{id}/unban")]
pub async fn unban_user(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let p = set_status(&st, &id, PosterStatus::Banned, PosterStatus::Active).await?;
    st.sessions
        .changed(Change::AccountChanged { account: p.id })
        .await;
    Ok(ok(PosterView::from(&p)))
}

/// The poster's transactions, newest first.
#[utoipa::path(tag = "admin", params(("id" = String, Path), TransactionsQuery),
    responses((status = 200, body = Data<List<TransactionView>>), Errors), security(("bearer" = [])))]
#[get("/admin/users/{id}/transactions")]
pub async fn user_transactions(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<ModeratorRole>,
    id: web::Path<String>,
    q: web::Query<TransactionsQuery>,
) -> Result<HttpResponse> {
    let p = find(&st, user_id(&id)?).await?;
    let window = wire::window(q.page, q.limit)?;
    let filter = money::TransactionFilter {
        kind: word::<TransactionKind>("type", q.kind.as_deref())?,
        status: word::<TransactionStatus>("status", q.status.as_deref())?,
    };
    let page = money::transactions(&st, p.id, filter, window).await?;
    Ok(ok(List::from(page.map(|t| TransactionView::from(&t)))))
}
