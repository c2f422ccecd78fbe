//! Dealer applications: one open (pending) application per user; an administrator's approval
//! makes the applicant a dealer and takes the application off the pending list.

use crate::core::page::{self, Page, Window};
use crate::core::session::Change;
use crate::services::marketplace::accounts::store::users_by_id;
use crate::services::marketplace::dealers::dto::{
    ApplicationStatus, ApplicationSummary, Audience, Dealer,
};
use crate::services::marketplace::dealers::profiles::store as profiles;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set,
};
use switchboard_entities::marketplace::{dealer_application, dealer_profile, user};
use uuid::Uuid;

use switchboard_entities::marketplace::dealer_application::ApplicationStatus as Review;

pub struct NewApplication {
    pub business_name: String,
    pub location: String,
    pub business_phone: Option<String>,
    pub website: Option<String>,
    pub description: Option<String>,
}

async fn account(db: &impl ConnectionTrait, user_id: Uuid) -> Result<user::Model> {
    Ok(user::Entity::find_by_id(user_id)
        .one(db)
        .await?
        .ok_or(MarketplaceError::AccountGone)?)
}

async fn latest(
    db: &impl ConnectionTrait,
    user_id: Uuid,
) -> Result<Option<dealer_application::Model>> {
    Ok(dealer_application::Entity::find()
        .filter(dealer_application::Column::UserId.eq(user_id))
        .order_by_desc(dealer_application::Column::SubmittedAt)
        .order_by_desc(dealer_application::Column::Id)
        .one(db)
        .await?)
}

pub async fn apply(
    st: &MarketplaceState,
    user_id: Uuid,
    new: NewApplication,
) -> Result<ApplicationSummary> {
    let now = st.core.now();
    // One writer at a time, so two concurrent applications cannot both pass the check.
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    if account(&txn, user_id).await?.role != "user" {
        return Err(MarketplaceError::AlreadyDealer.into());
    }
    if latest(&txn, user_id)
        .await?
        .is_some_and(|a| a.status.can_approve())
    {
        return Err(MarketplaceError::ApplicationExists.into());
    }
    let created = dealer_application::ActiveModel {
        id: Set(Uuid::new_v4()),
        user_id: Set(user_id),
        business_name: Set(new.business_name),
        location: Set(new.location),
        business_phone: Set(new.business_phone),
        website: Set(new.website),
        description: Set(new.description),
        status: Set(Review::Pending),
        submitted_at: Set(now),
        reviewed_at: Set(None),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    Ok(ApplicationSummary::from(&created))
}

pub async fn status(st: &MarketplaceState, user_id: Uuid) -> Result<ApplicationStatus> {
    let db = &st.core.db;
    let is_dealer = account(db, user_id).await?.role == "dealer";
    let application = latest(db, user_id).await?;
    let pending = application.as_ref().is_some_and(|a| a.status.can_approve());
    Ok(ApplicationStatus {
        has_application: application.is_some(),
        application_status: application
            .as_ref()
            // `none` is the answer's word for no application; it is never stored.
            .map_or_else(|| "none".to_owned(), |a| a.status.to_string()),
        is_dealer,
        can_apply: !is_dealer && !pending,
        application: application.as_ref().map(ApplicationSummary::from),
    })
}

/// Approves the pending application of user `dealer_id`; the user becomes a dealer (an
/// administrator keeps the admin role) with a profile seeded from the application.
pub async fn approve(st: &MarketplaceState, dealer_id: Uuid) -> Result<Dealer> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let Some(app) = dealer_application::Entity::find()
        .filter(dealer_application::Column::UserId.eq(dealer_id))
        .filter(dealer_application::Column::Status.eq(Review::Pending))
        .one(&txn)
        .await?
    else {
        // Approving twice is a conflict with the state, not a missing dealer.
        let approved = dealer_profile::Entity::find_by_id(dealer_id)
            .one(&txn)
            .await?
            .is_some();
        return Err(if approved {
            MarketplaceError::DealerAlreadyApproved
        } else {
            MarketplaceError::DealerNotFound
        }
        .into());
    };
    // Applications from before phone verification gated writes may be unverified.
    if !account(&txn, dealer_id).await?.is_phone_verified {
        return Err(MarketplaceError::ApplicantPhoneNotVerified.into());
    }
    dealer_application::Entity::update_many()
        .col_expr(
            dealer_application::Column::Status,
            Expr::value(Review::Approved),
        )
        .col_expr(dealer_application::Column::ReviewedAt, Expr::value(now))
        .filter(dealer_application::Column::Id.eq(app.id))
        .exec(&txn)
        .await?;
    user::Entity::update_many()
        .col_expr(user::Column::Role, Expr::value("dealer"))
        .col_expr(user::Column::UpdatedAt, Expr::value(now))
        .filter(user::Column::Id.eq(dealer_id))
        .filter(user::Column::Role.eq("user"))
        .exec(&txn)
        .await?;
    let profile = profiles::create(&txn, &app, now).await?;
    let u = account(&txn, dealer_id).await?;
    txn.commit().await?;
    // The dealer's current tokens act as a dealer from the next request.
    st.sessions
        .changed(Change::AccountChanged { account: dealer_id })
        .await;
    Ok(Dealer::approved(u, profile, Audience::OwnerOrAdmin))
}

/// Pending applications, oldest first, as dealers awaiting approval.
pub async fn pending(st: &MarketplaceState, window: Window) -> Result<Page<Dealer>> {
    let db = &st.core.db;
    let select = dealer_application::Entity::find()
        .filter(dealer_application::Column::Status.eq(Review::Pending))
        .order_by_asc(dealer_application::Column::SubmittedAt)
        .order_by_asc(dealer_application::Column::Id);
    let page = page::fetch(select, db, window).await?;
    let ids: Vec<Uuid> = page.items.iter().map(|a| a.user_id).collect();
    let mut users = users_by_id(db, ids).await?;
    let Page {
        items,
        total,
        window,
    } = page;
    // An application's user is there (the foreign key cascades), so none is skipped.
    let dealers = items
        .into_iter()
        .filter_map(|a| users.remove(&a.user_id).map(|u| Dealer::new(u, a)))
        .collect();
    Ok(Page {
        items: dealers,
        total,
        window,
    })
}

/// A dealer id of a path: what is not an id names no dealer.
pub fn dealer_id(raw: &str) -> Result<Uuid> {
    Ok(Uuid::parse_str(raw).map_err(|_| MarketplaceError::DealerNotFound)?)
}
