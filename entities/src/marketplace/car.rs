use sea_orm::entity::prelude::*;

/// A car listing. `make_key`/`model_key` are the lowercased make and model the exact filters
/// compare; `features_text` is the features as words, for the full-text index; the counters are kept on the row
/// by the interactions that move them.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_cars")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub seller_id: Uuid,
    /// dealer or private.
    pub seller_type: String,
    pub make: String,
    pub model: String,
    pub make_key: String,
    pub model_key: String,
    pub year: i32,
    pub price: f64,
    pub mileage: i64,
    pub fuel_type: String,
    pub transmission: String,
    pub body_type: String,
    pub color: String,
    pub description: String,
    pub images: Json,
    pub videos: Json,
    pub features: Json,
    pub condition: String,
    pub status: CarStatus,
    pub features_text: String,
    pub view_count: i64,
    pub like_count: i64,
    pub comment_count: i64,
    pub share_count: i64,
    pub favorite_count: i64,
    pub inquiry_count: i64,
    /// When the status last became sold (dealer statistics count sales by month).
    pub sold_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A listing's state, as its owner (or an administrator) sets it; any state may follow any
    /// other. Only an active listing is for sale: the lists, searches, recommendations and
    /// price comparisons show active listings unless a status is asked for. A sold listing
    /// counts as one of its dealer's sales.
    pub enum CarStatus {
        Active = "active",
        Sold = "sold",
        Reserved = "reserved",
    }
}

impl CarStatus {
    /// What a listing created (or a list asked) without a status has: the listing is for sale.
    pub const DEFAULT: Self = Self::Active;

    pub const fn is_sold(self) -> bool {
        matches!(self, Self::Sold)
    }

    /// How a move from `self` to `next` changes the seller's count of sales: +1 into sold,
    /// -1 out of it, else 0.
    pub const fn sales_change(self, next: Self) -> i32 {
        match (self.is_sold(), next.is_sold()) {
            (false, true) => 1,
            (true, false) => -1,
            _ => 0,
        }
    }

    /// When a listing moved from `self` to `next` at `now` was sold (`sold_at`, before the
    /// move): set as it enters sold, kept while it stays sold, cleared as it leaves.
    pub fn sold_at(
        self,
        next: Self,
        sold_at: Option<DateTimeUtc>,
        now: DateTimeUtc,
    ) -> Option<DateTimeUtc> {
        match (self.is_sold(), next.is_sold()) {
            (false, true) => Some(now),
            (true, true) => sold_at.or(Some(now)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CarStatus::{self, *};
    use chrono::{TimeZone, Utc};

    #[test]
    fn a_sale_is_counted_and_dated_as_the_listing_enters_sold() {
        let (then, now) = (
            Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(2026, 2, 1, 0, 0, 0).unwrap(),
        );
        for was in CarStatus::ALL.iter().copied() {
            for next in CarStatus::ALL.iter().copied() {
                let change = was.sales_change(next);
                let sold_at = was.sold_at(next, was.is_sold().then_some(then), now);
                match (was, next) {
                    (Sold, Sold) => assert_eq!((change, sold_at), (0, Some(then))),
                    (_, Sold) => assert_eq!((change, sold_at), (1, Some(now))),
                    (Sold, _) => assert_eq!((change, sold_at), (-1, None)),
                    _ => assert_eq!((change, sold_at), (0, None)),
                }
            }
        }
        assert_eq!(
            Sold.sold_at(Sold, None, now),
            Some(now),
            "a sale without a date"
        );
    }
}
