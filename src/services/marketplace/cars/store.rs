//! Car listings: create, read, change and remove them (owner or administrator), and the
//! seller's own list. Every write notes its make and model for the catalogue in its
//! transaction.

use crate::core::db::begin_write;
use crate::core::page::{self, Page, Window};
use crate::services::marketplace::auth::Caller;
use crate::services::marketplace::cars::domain::{
    CarStatus, Listing, Patch, BODY_TYPE, CONDITION, FUEL_TYPE, TRANSMISSION,
};
use crate::services::marketplace::cars::filters::Sort;
use crate::services::marketplace::catalogue::store as catalogue;
use crate::services::marketplace::dealers::profiles::store as profiles;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use serde_json::json;
use switchboard_entities::marketplace::{car, user};
use uuid::Uuid;

/// A listing id from a path; a malformed one is a listing that does not exist.
pub fn car_id(raw: &str) -> Result<Uuid> {
    Ok(Uuid::parse_str(raw).map_err(|_| MarketplaceError::CarNotFound)?)
}

pub async fn find(db: &impl ConnectionTrait, id: Uuid) -> Result<car::Model> {
    Ok(car::Entity::find_by_id(id)
        .one(db)
        .await?
        .ok_or(MarketplaceError::CarNotFound)?)
}

fn strings(v: &[String]) -> serde_json::Value {
    json!(v)
}

/// The listing a stored row describes (stored values were checked when written).
fn listing_of(m: &car::Model) -> Result<Listing> {
    let list = |v: &serde_json::Value| -> Vec<String> {
        serde_json::from_value(v.clone()).unwrap_or_default()
    };
    Ok(Listing {
        make: m.make.clone(),
        model: m.model.clone(),
        year: m.year,
        mileage: m.mileage,
        fuel_type: FUEL_TYPE.parse(&m.fuel_type)?,
        transmission: TRANSMISSION.parse(&m.transmission)?,
        body_type: BODY_TYPE.parse(&m.body_type)?,
        color: m.color.clone(),
        description: m.description.clone(),
        condition: CONDITION.parse(&m.condition)?,
        price: m.price,
        images: list(&m.images),
        videos: list(&m.videos),
        features: list(&m.features),
        status: m.status,
    })
}

pub async fn create(st: &MarketplaceState, seller: Uuid, listing: Listing) -> Result<car::Model> {
    let now = st.core.now();
    let txn = begin_write(&st.core.db).await?;
    let account = user::Entity::find_by_id(seller)
        .one(&txn)
        .await?
        .ok_or(MarketplaceError::AccountGone)?;
    // A dealer's listings are the dealership's; everyone else sells privately.
    let seller_type = if account.role == "dealer" {
        "dealer"
    } else {
        "private"
    };
    let lister = catalogue::Lister {
        seller,
        admin: account.role == "admin",
    };
    let grew = catalogue::note_listing(&txn, st, lister, &listing.make, &listing.model).await?;
    if listing.status.is_sold() {
        profiles::count_sale(&txn, seller, 1).await?;
    }
    let created = car::ActiveModel {
        id: Set(Uuid::new_v4()),
        seller_id: Set(seller),
        seller_type: Set(seller_type.into()),
        make_key: Set(listing.make.to_lowercase()),
        model_key: Set(listing.model.to_lowercase()),
        features_text: Set(listing.features_text()),
        year: Set(listing.year),
        price: Set(listing.price),
        mileage: Set(listing.mileage),
        fuel_type: Set(listing.fuel_type.into()),
        transmission: Set(listing.transmission.into()),
        body_type: Set(listing.body_type.into()),
        color: Set(listing.color.clone()),
        description: Set(listing.description.clone()),
        images: Set(strings(&listing.images)),
        videos: Set(strings(&listing.videos)),
        features: Set(strings(&listing.features)),
        condition: Set(listing.condition.into()),
        status: Set(listing.status),
        sold_at: Set(listing.status.is_sold().then_some(now)),
        make: Set(listing.make),
        model: Set(listing.model),
        view_count: Set(0),
        like_count: Set(0),
        comment_count: Set(0),
        share_count: Set(0),
        favorite_count: Set(0),
        inquiry_count: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    if grew {
        catalogue::names_changed(st);
    }
    Ok(created)
}

/// A listing the caller may change: its owner's, or any for an administrator.
pub async fn owned(db: &impl ConnectionTrait, caller: Caller, id: Uuid) -> Result<car::Model> {
    let car = find(db, id).await?;
    if car.seller_id != caller.id && !caller.admin {
        return Err(MarketplaceError::NotOwner.into());
    }
    Ok(car)
}

pub async fn update(
    st: &MarketplaceState,
    caller: Caller,
    id: Uuid,
    patch: Patch,
) -> Result<car::Model> {
    let now = st.core.now();
    let txn = begin_write(&st.core.db).await?;
    let current = owned(&txn, caller, id).await?;
    let was = current.status;
    let listing = listing_of(&current)?.apply(patch);
    let lister = catalogue::Lister {
        seller: current.seller_id,
        admin: caller.admin,
    };
    let grew = catalogue::note_listing(&txn, st, lister, &listing.make, &listing.model).await?;
    let sales = was.sales_change(listing.status);
    if sales != 0 {
        profiles::count_sale(&txn, current.seller_id, sales).await?;
    }
    let sold_at = was.sold_at(listing.status, current.sold_at, now);
    let mut row: car::ActiveModel = current.into();
    row.make_key = Set(listing.make.to_lowercase());
    row.model_key = Set(listing.model.to_lowercase());
    row.features_text = Set(listing.features_text());
    row.year = Set(listing.year);
    row.price = Set(listing.price);
    row.mileage = Set(listing.mileage);
    row.fuel_type = Set(listing.fuel_type.into());
    row.transmission = Set(listing.transmission.into());
    row.body_type = Set(listing.body_type.into());
    row.images = Set(strings(&listing.images));
    row.videos = Set(strings(&listing.videos));
    row.features = Set(strings(&listing.features));
    row.condition = Set(listing.condition.into());
    row.status = Set(listing.status);
    row.sold_at = Set(sold_at);
    row.color = Set(listing.color);
    row.description = Set(listing.description);
    row.make = Set(listing.make);
    row.model = Set(listing.model);
    row.updated_at = Set(now);
    let updated = row.update(&txn).await?;
    txn.commit().await?;
    if grew {
        catalogue::names_changed(st);
    }
    Ok(updated)
}

pub async fn delete(st: &MarketplaceState, caller: Caller, id: Uuid) -> Result<()> {
    let txn = begin_write(&st.core.db).await?;
    let car = owned(&txn, caller, id).await?;
    if car.status.is_sold() {
        profiles::count_sale(&txn, car.seller_id, -1).await?;
    }
    car::Entity::delete_by_id(id).exec(&txn).await?;
    txn.commit().await?;
    Ok(())
}

/// The seller's listings, newest first, of one status or all.
pub async fn mine(
    st: &MarketplaceState,
    seller: Uuid,
    status: Option<CarStatus>,
    window: Window,
) -> Result<Page<car::Model>> {
    let mut select = car::Entity::find().filter(car::Column::SellerId.eq(seller));
    if let Some(s) = status {
        select = select.filter(car::Column::Status.eq(s));
    }
    page::fetch(Sort::default().apply(select), &st.core.db, window).await
}
