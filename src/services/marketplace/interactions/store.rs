//! What anyone does with a listing: like it, view it, comment on and rate it, like and reply
//! to comments, share it, ask for a test drive. Each writes its row and moves the car's
//! counter in one transaction.

use crate::core::db::begin_write;
use crate::core::page::{self, Page, Window};
use crate::services::marketplace::auth::Caller;
use crate::services::marketplace::cars::store::{find, owned};
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::interactions::counters::{bump, day_of, insert_once, toggle};
use crate::services::marketplace::interactions::domain::TestDriveSlot;
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, Set,
};
use serde::Serialize;
use switchboard_entities::marketplace::{
    car, car_comment, car_like, car_share, car_view, comment_like, test_drive, user,
};
use utoipa::ToSchema;
use uuid::Uuid;

/// Whether the caller now likes the thing, and how many do.
#[derive(Debug, Clone, Copy)]
pub struct Toggled {
    pub on: bool,
    pub count: i64,
}

/// Something to tell one user once the change is committed (the handlers publish it to their live events).
#[derive(Debug, Clone)]
pub struct Notice<T> {
    pub to: Uuid,
    pub event: T,
}

/// The `car_viewed` event, for the car's owner.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarViewed {
    pub car_id: String,
    pub view_count: i64,
}

pub struct ViewRecorded {
    pub counted: bool,
    pub view_count: i64,
    /// Present when the view was counted.
    pub notice: Option<Notice<CarViewed>>,
}

/// Who looks at a car: a signed-in user, or an address already hashed.
pub enum Viewer {
    User(Uuid),
    Address(String),
}

impl MarketplaceState {
    /// Client addresses are stored only as a keyed hash (derived, so no second secret).
    pub fn address_hash(&self, ip: &str) -> String {
        let key = crate::core::secrets::hmac_sha256(
            self.core.settings.auth.jwt_secret.as_bytes(),
            b"marketplace-viewer",
        );
        crate::core::secrets::hmac_sha256_hex(&key, ip.as_bytes())
    }
}

pub async fn toggle_like(st: &MarketplaceState, user: Uuid, car_id: Uuid) -> Result<Toggled> {
    let now = st.core.now();
    let txn = begin_write(&st.core.db).await?;
    find(&txn, car_id).await?;
    let existing = car_like::Entity::delete_many()
        .filter(car_like::Column::CarId.eq(car_id))
        .filter(car_like::Column::UserId.eq(user));
    let row = car_like::ActiveModel {
        car_id: Set(car_id),
        user_id: Set(user),
        day: Set(day_of(now)),
        created_at: Set(now),
    };
    let change = toggle(&txn, existing, row).await?;
    let car = bump(&txn, car_id, car::Column::LikeCount, change).await?;
    txn.commit().await?;
    Ok(Toggled {
        on: change >= 0,
        count: car.like_count,
    })
}

/// Counts a view once per car, viewer and UTC day; the owner's own views are not counted.
pub async fn record_view(
    st: &MarketplaceState,
    car_id: Uuid,
    viewer: Viewer,
) -> Result<ViewRecorded> {
    let now = st.core.now();
    let (key, user_id) = match viewer {
        Viewer::User(id) => (format!("u:{id}"), Some(id)),
        Viewer::Address(hash) => (format!("a:{hash}"), None),
    };
    let txn = begin_write(&st.core.db).await?;
    let car = find(&txn, car_id).await?;
    if user_id == Some(car.seller_id) {
        return Ok(ViewRecorded {
            counted: false,
            view_count: car.view_count,
            notice: None,
        });
    }
    let day = day_of(now);
    let row = car_view::ActiveModel {
        car_id: Set(car_id),
        viewer: Set(key.clone()),
        day: Set(day.clone()),
        user_id: Set(user_id),
        viewed_at: Set(now),
    };
    let counted = insert_once(&txn, row).await?;
    if !counted {
        // The history lists cars by their latest view.
        car_view::Entity::update_many()
            .col_expr(car_view::Column::ViewedAt, Expr::value(now))
            .filter(car_view::Column::CarId.eq(car_id))
            .filter(car_view::Column::Viewer.eq(key))
            .filter(car_view::Column::Day.eq(day))
            .exec(&txn)
            .await?;
    }
    let car = bump(&txn, car_id, car::Column::ViewCount, i64::from(counted)).await?;
    txn.commit().await?;
    Ok(ViewRecorded {
        counted,
        view_count: car.view_count,
        notice: counted.then(|| Notice {
            to: car.seller_id,
            event: CarViewed {
                car_id: car.id.to_string(),
                view_count: car.view_count,
            },
        }),
    })
}

/// The car's counted views, and how many viewers it had today (UTC).
pub async fn views(st: &MarketplaceState, car_id: Uuid) -> Result<(i64, u64)> {
    let db = &st.core.db;
    let car = find(db, car_id).await?;
    let today = car_view::Entity::find()
        .filter(car_view::Column::CarId.eq(car_id))
        .filter(car_view::Column::Day.eq(day_of(st.core.now())))
        .count(db)
        .await?;
    Ok((car.view_count, today))
}

async fn find_comment(db: &impl ConnectionTrait, id: Uuid) -> Result<car_comment::Model> {
    Ok(car_comment::Entity::find_by_id(id)
        .one(db)
        .await?
        .ok_or(MarketplaceError::CommentNotFound)?)
}

/// A new comment or reply, with its author.
pub type Posted = (car_comment::Model, Option<user::Model>);

async fn insert_comment(
    st: &MarketplaceState,
    db: &impl ConnectionTrait,
    row: car_comment::ActiveModel,
) -> Result<Posted> {
    let created = car_comment::ActiveModel {
        id: Set(Uuid::new_v4()),
        like_count: Set(0),
        created_at: Set(st.core.now()),
        ..row
    }
    .insert(db)
    .await?;
    bump(db, created.car_id, car::Column::CommentCount, 1).await?;
    let author = user::Entity::find_by_id(created.user_id).one(db).await?;
    Ok((created, author))
}

/// A rated comment; an owner does not rate their own listing.
pub async fn comment(
    st: &MarketplaceState,
    user: Uuid,
    car_id: Uuid,
    text: String,
    rating: Option<i16>,
) -> Result<Posted> {
    let txn = begin_write(&st.core.db).await?;
    let car = find(&txn, car_id).await?;
    if car.seller_id == user {
        return Err(MarketplaceError::OwnCar.into());
    }
    let row = car_comment::ActiveModel {
        car_id: Set(car_id),
        user_id: Set(user),
        parent_id: Set(None),
        text: Set(text),
        rating: Set(rating.map(i32::from)),
        ..Default::default()
    };
    let created = insert_comment(st, &txn, row).await?;
    txn.commit().await?;
    Ok(created)
}

/// A reply joins the thread of the comment it answers (threads are one level deep).
pub async fn reply(
    st: &MarketplaceState,
    user: Uuid,
    comment_id: Uuid,
    text: String,
) -> Result<Posted> {
    let txn = begin_write(&st.core.db).await?;
    let target = find_comment(&txn, comment_id).await?;
    let row = car_comment::ActiveModel {
        car_id: Set(target.car_id),
        user_id: Set(user),
        parent_id: Set(Some(target.parent_id.unwrap_or(target.id))),
        text: Set(text),
        rating: Set(None),
        ..Default::default()
    };
    let created = insert_comment(st, &txn, row).await?;
    txn.commit().await?;
    Ok(created)
}

pub async fn toggle_comment_like(
    st: &MarketplaceState,
    user: Uuid,
    comment_id: Uuid,
) -> Result<Toggled> {
    let txn = begin_write(&st.core.db).await?;
    find_comment(&txn, comment_id).await?;
    let existing = comment_like::Entity::delete_many()
        .filter(comment_like::Column::CommentId.eq(comment_id))
        .filter(comment_like::Column::UserId.eq(user));
    let row = comment_like::ActiveModel {
        comment_id: Set(comment_id),
        user_id: Set(user),
        created_at: Set(st.core.now()),
    };
    let change = toggle(&txn, existing, row).await?;
    if change != 0 {
        car_comment::Entity::update_many()
            .col_expr(
                car_comment::Column::LikeCount,
                Expr::col(car_comment::Column::LikeCount).add(change),
            )
            .filter(car_comment::Column::Id.eq(comment_id))
            .exec(&txn)
            .await?;
    }
    let comment = find_comment(&txn, comment_id).await?;
    txn.commit().await?;
    Ok(Toggled {
        on: change >= 0,
        count: comment.like_count,
    })
}

/// A top-level comment with its replies (oldest first) and the authors' names.
pub struct Thread {
    pub comment: car_comment::Model,
    pub replies: Vec<car_comment::Model>,
}

/// The car's comments, newest first, each with its replies; and the authors' names by id.
pub async fn comments(
    st: &MarketplaceState,
    car_id: Uuid,
    window: Window,
) -> Result<(Page<Thread>, Vec<user::Model>)> {
    let db = &st.core.db;
    find(db, car_id).await?;
    let top = car_comment::Entity::find()
        .filter(car_comment::Column::CarId.eq(car_id))
        .filter(car_comment::Column::ParentId.is_null())
        .order_by_desc(car_comment::Column::CreatedAt)
        .order_by_desc(car_comment::Column::Id);
    let page = page::fetch(top, db, window).await?;
    let ids: Vec<Uuid> = page.items.iter().map(|c| c.id).collect();
    let replies = car_comment::Entity::find()
        .filter(car_comment::Column::ParentId.is_in(ids))
        .order_by_asc(car_comment::Column::CreatedAt)
        .order_by_asc(car_comment::Column::Id)
        .all(db)
        .await?;
    let mut authors: Vec<Uuid> = page
        .items
        .iter()
        .chain(&replies)
        .map(|c| c.user_id)
        .collect();
    authors.sort();
    authors.dedup();
    let users = user::Entity::find()
        .filter(user::Column::Id.is_in(authors))
        .all(db)
        .await?;
    let threads = page.map(|comment| {
        let replies = replies
            .iter()
            .filter(|r| r.parent_id == Some(comment.id))
            .cloned()
            .collect();
        Thread { comment, replies }
    });
    Ok((threads, users))
}

/// Counts a share, by a signed-in user or anonymously, on a channel if named.
pub async fn share(
    st: &MarketplaceState,
    car_id: Uuid,
    user: Option<Uuid>,
    channel: Option<String>,
) -> Result<i64> {
    let txn = begin_write(&st.core.db).await?;
    find(&txn, car_id).await?;
    car_share::ActiveModel {
        id: Set(Uuid::new_v4()),
        car_id: Set(car_id),
        user_id: Set(user),
        channel: Set(channel),
        created_at: Set(st.core.now()),
    }
    .insert(&txn)
    .await?;
    let car = bump(&txn, car_id, car::Column::ShareCount, 1).await?;
    txn.commit().await?;
    Ok(car.share_count)
}

/// Checks that `customer` may ask about the car: not their own, not sold.
pub fn may_ask(car: &car::Model, customer: Uuid) -> Result<()> {
    if car.seller_id == customer {
        return Err(MarketplaceError::OwnCar.into());
    }
    if car.status.is_sold() {
        return Err(MarketplaceError::CarNotAvailable.into());
    }
    Ok(())
}

pub async fn request_test_drive(
    st: &MarketplaceState,
    user: Uuid,
    car_id: Uuid,
    slot: TestDriveSlot,
    message: String,
) -> Result<test_drive::Model> {
    let txn = begin_write(&st.core.db).await?;
    let car = find(&txn, car_id).await?;
    may_ask(&car, user)?;
    let created = test_drive::ActiveModel {
        id: Set(Uuid::new_v4()),
        car_id: Set(car_id),
        user_id: Set(user),
        preferred_date: Set(slot.date_text()),
        preferred_time: Set(slot.time),
        message: Set(message),
        status: Set(test_drive::TestDriveStatus::Pending),
        created_at: Set(st.core.now()),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// The car's test-drive requests, newest first, for its owner or an administrator.
pub async fn test_drives(
    st: &MarketplaceState,
    caller: Caller,
    car_id: Uuid,
    window: Window,
) -> Result<Page<test_drive::Model>> {
    let db = &st.core.db;
    owned(db, caller, car_id).await?;
    let select = test_drive::Entity::find()
        .filter(test_drive::Column::CarId.eq(car_id))
        .order_by_desc(test_drive::Column::CreatedAt)
        .order_by_desc(test_drive::Column::Id);
    page::fetch(select, db, window).await
}
