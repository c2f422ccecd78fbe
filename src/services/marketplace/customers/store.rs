//! A customer's side of the marketplace: favorites, inquiries to dealers, and the cars they
//! liked and viewed.

use crate::core::db::begin_write;
use crate::core::page::{self, Page, Window};
use crate::services::marketplace::cars::store::find;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::interactions::counters::{bump, day_of, insert_once};
use crate::services::marketplace::interactions::store::{may_ask, Notice};
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use serde::Serialize;
use switchboard_entities::marketplace::{car, car_like, car_view, favorite, inquiry, user};
use utoipa::ToSchema;
use uuid::Uuid;

/// The cars of `ids` in that order (a car deleted meanwhile is left out).
pub async fn cars_in_order(db: &impl ConnectionTrait, ids: &[Uuid]) -> Result<Vec<car::Model>> {
    let mut found = car::Entity::find()
        .filter(car::Column::Id.is_in(ids.to_vec()))
        .all(db)
        .await?;
    Ok(ids
        .iter()
        .filter_map(|id| {
            let at = found.iter().position(|c| c.id == *id)?;
            Some(found.swap_remove(at))
        })
        .collect())
}

async fn page_of_cars(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
    total: u64,
    window: Window,
) -> Result<Page<car::Model>> {
    Ok(Page {
        items: cars_in_order(db, &ids).await?,
        total,
        window,
    })
}

/// Adds the car to the user's favorites: true when it was not there yet; and the count.
pub async fn add_favorite(st: &MarketplaceState, user: Uuid, car_id: Uuid) -> Result<(bool, i64)> {
    let now = st.core.now();
    let txn = begin_write(&st.core.db).await?;
    find(&txn, car_id).await?;
    let row = favorite::ActiveModel {
        user_id: Set(user),
        car_id: Set(car_id),
        day: Set(day_of(now)),
        created_at: Set(now),
    };
    let added = insert_once(&txn, row).await?;
    let car = bump(&txn, car_id, car::Column::FavoriteCount, i64::from(added)).await?;
    txn.commit().await?;
    Ok((added, car.favorite_count))
}

/// Removes the car from the user's favorites if it is there; answers the count.
pub async fn remove_favorite(st: &MarketplaceState, user: Uuid, car_id: Uuid) -> Result<i64> {
    let txn = begin_write(&st.core.db).await?;
    find(&txn, car_id).await?;
    let removed = favorite::Entity::delete_many()
        .filter(favorite::Column::UserId.eq(user))
        .filter(favorite::Column::CarId.eq(car_id))
        .exec(&txn)
        .await?
        .rows_affected;
    let car = bump(&txn, car_id, car::Column::FavoriteCount, -(removed as i64)).await?;
    txn.commit().await?;
    Ok(car.favorite_count)
}

/// The user's favorite cars, the latest favorite first.
pub async fn favorites(
    st: &MarketplaceState,
    user: Uuid,
    window: Window,
) -> Result<Page<car::Model>> {
    let db = &st.core.db;
    let select = favorite::Entity::find()
        .filter(favorite::Column::UserId.eq(user))
        .order_by_desc(favorite::Column::CreatedAt)
        .order_by_desc(favorite::Column::CarId);
    let page = page::fetch(select, db, window).await?;
    let ids = page.items.iter().map(|f| f.car_id).collect();
    page_of_cars(db, ids, page.total, window).await
}

/// The cars the user likes, the latest like first.
pub async fn liked(st: &MarketplaceState, user: Uuid, window: Window) -> Result<Page<car::Model>> {
    let db = &st.core.db;
    let select = car_like::Entity::find()
        .filter(car_like::Column::UserId.eq(user))
        .order_by_desc(car_like::Column::CreatedAt)
        .order_by_desc(car_like::Column::CarId);
    let page = page::fetch(select, db, window).await?;
    let ids = page.items.iter().map(|l| l.car_id).collect();
    page_of_cars(db, ids, page.total, window).await
}

/// The cars the user viewed, each once, the most recently viewed first.
pub async fn viewed(st: &MarketplaceState, user: Uuid, window: Window) -> Result<Page<car::Model>> {
    let db = &st.core.db;
    let latest = Expr::col(car_view::Column::ViewedAt).max();
    let select = car_view::Entity::find()
        .select_only()
        .column(car_view::Column::CarId)
        .filter(car_view::Column::UserId.eq(user))
        .group_by(car_view::Column::CarId);
    let total = select.clone().count(db).await?;
    let ids: Vec<Uuid> = select
        .order_by_desc(latest)
        .order_by_desc(car_view::Column::CarId)
        .limit(window.limit)
        .offset(window.offset)
        .into_tuple()
        .all(db)
        .await?;
    page_of_cars(db, ids, total, window).await
}

/// What an inquiry says, parsed.
pub struct NewInquiryInput {
    pub car_id: Uuid,
    pub dealer_id: Uuid,
    pub message: String,
    pub contact_method: &'static str,
}

/// The `new_inquiry` event, for the dealer.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewInquiry {
    pub inquiry_id: String,
    pub car_id: String,
    pub customer_id: String,
    pub message: String,
}

/// Sends an inquiry to the dealer who lists the car: `dealerId` must be that seller, and a
/// dealer; answers the inquiry and the notice for the dealer.
pub async fn create_inquiry(
    st: &MarketplaceState,
    customer: Uuid,
    input: NewInquiryInput,
) -> Result<(inquiry::Model, car::Model, Notice<NewInquiry>)> {
    let now = st.core.now();
    let txn = begin_write(&st.core.db).await?;
    let car = find(&txn, input.car_id).await?;
    let seller = user::Entity::find_by_id(car.seller_id).one(&txn).await?;
    if car.seller_id != input.dealer_id || seller.is_none_or(|s| s.role != "dealer") {
        return Err(MarketplaceError::invalid(
            "dealerId",
            &input.dealer_id.to_string(),
            "dealerId must be the dealer who lists this car",
        )
        .into());
    }
    may_ask(&car, customer)?;
    let created = inquiry::ActiveModel {
        id: Set(Uuid::new_v4()),
        car_id: Set(car.id),
        dealer_id: Set(input.dealer_id),
        customer_id: Set(customer),
        message: Set(input.message),
        contact_method: Set(input.contact_method.into()),
        status: Set(inquiry::InquiryStatus::New),
        day: Set(day_of(now)),
        created_at: Set(now),
    }
    .insert(&txn)
    .await?;
    let car = bump(&txn, car.id, car::Column::InquiryCount, 1).await?;
    txn.commit().await?;
    let notice = Notice {
        to: created.dealer_id,
        event: NewInquiry {
            inquiry_id: created.id.to_string(),
            car_id: created.car_id.to_string(),
            customer_id: created.customer_id.to_string(),
            message: created.message.clone(),
        },
    };
    Ok((created, car, notice))
}

/// The customer's inquiries, newest first, each with its car.
pub async fn inquiries(
    st: &MarketplaceState,
    customer: Uuid,
    window: Window,
) -> Result<Page<(inquiry::Model, Option<car::Model>)>> {
    let db = &st.core.db;
    let select = inquiry::Entity::find()
        .filter(inquiry::Column::CustomerId.eq(customer))
        .order_by_desc(inquiry::Column::CreatedAt)
        .order_by_desc(inquiry::Column::Id);
    let page = page::fetch(select, db, window).await?;
    let ids: Vec<Uuid> = page.items.iter().map(|i| i.car_id).collect();
    let cars = cars_in_order(db, &ids).await?;
    Ok(page.map(|i| {
        let car = cars.iter().find(|c| c.id == i.car_id).cloned();
        (i, car)
    }))
}
