//! Dealer profiles: created by the approval from the application, read by anyone, changed
//! by their dealer (name, location, description, business info and hours).

use crate::core::page::{self, Page, Window};
use crate::services::marketplace::accounts::store::users_by_id;
use crate::services::marketplace::dealers::dto::{Audience, Dealer};
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, PaginatorTrait,
    QueryFilter, QueryOrder, Set,
};
use switchboard_entities::marketplace::{car, dealer_application, dealer_profile, user};
use uuid::Uuid;

/// What a dealer changes of their profile; `None` keeps the stored value.
#[derive(Debug, Default)]
pub struct ProfileChanges {
    pub name: Option<String>,
    pub location: Option<String>,
    pub description: Option<String>,
    pub website: Option<String>,
    pub business_phone: Option<String>,
    pub publish_login_phone: Option<bool>,
    pub business_hours: Option<serde_json::Value>,
}

impl ProfileChanges {
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.location.is_none()
            && self.description.is_none()
            && self.website.is_none()
            && self.business_phone.is_none()
            && self.publish_login_phone.is_none()
            && self.business_hours.is_none()
    }
}

/// The profile of a newly approved dealer, seeded from their application (inside the
/// approval's transaction). An existing profile (a dealer approved again) is kept. Sales
/// start at the listings already sold, so one later taken back never goes below zero.
pub async fn create(
    txn: &impl ConnectionTrait,
    app: &dealer_application::Model,
    now: DateTime<Utc>,
) -> Result<dealer_profile::Model> {
    if let Some(existing) = dealer_profile::Entity::find_by_id(app.user_id)
        .one(txn)
        .await?
    {
        return Ok(existing);
    }
    let sold = car::Entity::find()
        .filter(car::Column::SellerId.eq(app.user_id))
        .filter(car::Column::Status.eq(car::CarStatus::Sold))
        .count(txn)
        .await?;
    Ok(dealer_profile::ActiveModel {
        user_id: Set(app.user_id),
        name: Set(app.business_name.clone()),
        location: Set(app.location.clone()),
        business_hours: Set(None),
        website: Set(app.website.clone()),
        description: Set(app.description.clone()),
        business_phone: Set(app.business_phone.clone()),
        publish_login_phone: Set(false),
        rating_sum: Set(0),
        review_count: Set(0),
        total_sales: Set(i32::try_from(sold).unwrap_or(i32::MAX)),
        joined_date: Set(now),
        updated_at: Set(now),
    }
    .insert(txn)
    .await?)
}

/// Moves a dealer's sales count with a listing entering (+1) or leaving (-1) the sold status
/// (created sold, changed, deleted while sold), in the listing's transaction, so it is the
/// number of their sold listings; a private seller has no profile and nothing moves.
pub async fn count_sale(txn: &impl ConnectionTrait, seller: Uuid, delta: i32) -> Result<()> {
    dealer_profile::Entity::update_many()
        .col_expr(
            dealer_profile::Column::TotalSales,
            Expr::col(dealer_profile::Column::TotalSales).add(delta),
        )
        .filter(dealer_profile::Column::UserId.eq(seller))
        .exec(txn)
        .await?;
    Ok(())
}

/// The approved dealer `id` with their account.
pub async fn dealer(db: &impl ConnectionTrait, id: Uuid, audience: Audience) -> Result<Dealer> {
    let profile = dealer_profile::Entity::find_by_id(id)
        .one(db)
        .await?
        .ok_or(MarketplaceError::DealerNotFound)?;
    let account = user::Entity::find_by_id(id)
        .one(db)
        .await?
        .ok_or(MarketplaceError::DealerNotFound)?;
    Ok(Dealer::approved(account, profile, audience))
}

/// Approved dealers, longest-standing first.
pub async fn list(st: &MarketplaceState, window: Window) -> Result<Page<Dealer>> {
    let db = &st.core.db;
    let select = dealer_profile::Entity::find()
        .order_by_asc(dealer_profile::Column::JoinedDate)
        .order_by_asc(dealer_profile::Column::UserId);
    let Page {
        items,
        total,
        window,
    } = page::fetch(select, db, window).await?;
    let ids: Vec<Uuid> = items.iter().map(|p| p.user_id).collect();
    let mut users = users_by_id(db, ids).await?;
    // A profile's user is there (the foreign key cascades), so none is skipped.
    let dealers = items
        .into_iter()
        .filter_map(|p| {
            users
                .remove(&p.user_id)
                .map(|u| Dealer::approved(u, p, Audience::Public))
        })
        .collect();
    Ok(Page {
        items: dealers,
        total,
        window,
    })
}

/// Applies `changes` to the caller's profile and answers it.
pub async fn update(
    st: &MarketplaceState,
    dealer_id: Uuid,
    changes: ProfileChanges,
) -> Result<Dealer> {
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let profile = dealer_profile::Entity::find_by_id(dealer_id)
        .one(&txn)
        .await?
        .ok_or(MarketplaceError::DealerNotFound)?;
    let mut row = profile.into_active_model();
    let ProfileChanges {
        name,
        location,
        description,
        website,
        business_phone,
        publish_login_phone,
        business_hours,
    } = changes;
    if let Some(v) = name {
        row.name = Set(v);
    }
    if let Some(v) = location {
        row.location = Set(v);
    }
    if let Some(v) = description {
        row.description = Set(Some(v));
    }
    if let Some(v) = website {
        row.website = Set(Some(v));
    }
    if let Some(v) = business_phone {
        row.business_phone = Set(Some(v));
    }
    if let Some(v) = publish_login_phone {
        row.publish_login_phone = Set(v);
    }
    if let Some(v) = business_hours {
        row.business_hours = Set(Some(v));
    }
    row.updated_at = Set(st.core.now());
    row.update(&txn).await?;
    let answer = dealer(&txn, dealer_id, Audience::OwnerOrAdmin).await?;
    txn.commit().await?;
    Ok(answer)
}
