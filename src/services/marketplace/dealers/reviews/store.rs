//! Customers' reviews of dealers: one per customer and dealer, never of oneself; each review
//! moves the dealer's rating sum and count in its own transaction.

use crate::core::db::is_unique_violation;
use crate::core::page::{self, Page, Window};
use crate::services::marketplace::accounts::store::users_by_id;
use crate::services::marketplace::dealers::reviews::dto::Review;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, Set,
};
use switchboard_entities::marketplace::{dealer_profile, dealer_review, user};
use uuid::Uuid;

pub struct NewReview {
    pub rating: i16,
    pub comment: String,
}

async fn require_dealer(db: &impl ConnectionTrait, dealer_id: Uuid) -> Result<()> {
    let found = dealer_profile::Entity::find_by_id(dealer_id)
        .count(db)
        .await?;
    if found == 0 {
        return Err(MarketplaceError::DealerNotFound.into());
    }
    Ok(())
}

pub async fn create(
    st: &MarketplaceState,
    dealer_id: Uuid,
    author_id: Uuid,
    new: NewReview,
) -> Result<Review> {
    if dealer_id == author_id {
        return Err(MarketplaceError::SelfReview.into());
    }
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    require_dealer(&txn, dealer_id).await?;
    let author = user::Entity::find_by_id(author_id)
        .one(&txn)
        .await?
        .ok_or(MarketplaceError::AccountGone)?;
    let inserted = dealer_review::ActiveModel {
        id: Set(Uuid::new_v4()),
        dealer_id: Set(dealer_id),
        author_id: Set(author_id),
        rating: Set(new.rating),
        comment: Set(new.comment),
        created_at: Set(st.core.now()),
    }
    .insert(&txn)
    .await;
    let review = match inserted {
        Ok(r) => r,
        Err(e) if is_unique_violation(&e) => return Err(MarketplaceError::ReviewExists.into()),
        Err(e) => return Err(e.into()),
    };
    // Sum and count move together with the review, so the average never misses one.
    dealer_profile::Entity::update_many()
        .col_expr(
            dealer_profile::Column::RatingSum,
            Expr::col(dealer_profile::Column::RatingSum).add(i64::from(new.rating)),
        )
        .col_expr(
            dealer_profile::Column::ReviewCount,
            Expr::col(dealer_profile::Column::ReviewCount).add(1),
        )
        .filter(dealer_profile::Column::UserId.eq(dealer_id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    Ok(Review::new(review, Some(&author)))
}

/// A dealer's reviews, newest first.
pub async fn list(st: &MarketplaceState, dealer_id: Uuid, window: Window) -> Result<Page<Review>> {
    let db = &st.core.db;
    require_dealer(db, dealer_id).await?;
    let select = dealer_review::Entity::find()
        .filter(dealer_review::Column::DealerId.eq(dealer_id))
        .order_by_desc(dealer_review::Column::CreatedAt)
        .order_by_desc(dealer_review::Column::Id);
    let page = page::fetch(select, db, window).await?;
    let ids: Vec<Uuid> = page.items.iter().map(|r| r.author_id).collect();
    let authors = users_by_id(db, ids).await?;
    Ok(page.map(|r| {
        let author = authors.get(&r.author_id);
        Review::new(r, author)
    }))
}
