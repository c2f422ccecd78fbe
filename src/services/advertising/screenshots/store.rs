//! Screenshots' rows. Submission reserves the ad's payout in the same transaction that
//! writes the row and queues its check; a decision moves that reservation exactly once:
//! approval to spent (and the poster's balance), rejection back to the free budget.

use super::super::ads::store as ads;
use super::super::error::{AdvertisingError, Record, Result};
use super::super::money::ledger::{self, Account, Movement, TransactionKind, TransactionStatus};
use super::super::state::AdvertisingState;
use super::super::support::notify::{self, Notice};
use super::jobs::{VerifyJob, VERIFY};
use crate::core::jobs::NewJob;
use crate::providers::screenshot::{DetailPrint, Neighbour, PerceptualHash};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Set,
    SqlErr,
};
use switchboard_entities::advertising::ad::AdStatus;
pub use switchboard_entities::advertising::screenshot::ScreenshotStatus;
use switchboard_entities::advertising::subscription::SubscriptionStatus;
use switchboard_entities::advertising::{ad, screenshot, subscription};
use uuid::Uuid;

/// The eight bytes of a hash, as the band columns hold them.
pub fn bands(hash: PerceptualHash) -> [i32; 8] {
    let b = hash.0.to_be_bytes();
    b.map(i32::from)
}

/// A screenshot as uploaded, checked and stored, ready to be written.
pub struct Upload {
    pub id: Uuid,
    pub image_key: String,
    pub content_type: &'static str,
    pub width: u32,
    pub height: u32,
    pub hash: PerceptualHash,
}

/// Writes the screenshot of the poster's ready subscription, reserving the ad's payout.
pub async fn submit(
    st: &AdvertisingState,
    poster_id: Uuid,
    subscription_id: Uuid,
    up: Upload,
) -> Result<screenshot::Model> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    super::limit::check(st, &*txn, poster_id).await?;
    let sub = subscription::Entity::find_by_id(subscription_id)
        .filter(subscription::Column::PosterId.eq(poster_id))
        .one(&*txn)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::Subscription))?;
    if sub.status != SubscriptionStatus::Ready {
        return Err(AdvertisingError::VideoNotReady.into());
    }
    let open: Vec<ScreenshotStatus> = screenshot::Entity::find()
        .select_only()
        .column(screenshot::Column::Status)
        .filter(screenshot::Column::SubscriptionId.eq(sub.id))
        .filter(screenshot::Column::Status.is_in([
            ScreenshotStatus::Pending,
            ScreenshotStatus::NeedsReview,
            ScreenshotStatus::Approved,
        ]))
        .into_tuple()
        .all(&*txn)
        .await?;
    if open.contains(&ScreenshotStatus::Approved) {
        return Err(AdvertisingError::ScreenshotApproved.into());
    }
    if !open.is_empty() {
        return Err(AdvertisingError::ScreenshotPending.into());
    }
    let a = ad::Entity::find_by_id(sub.ad_id)
        .one(&*txn)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::Ad))?;
    if a.status != AdStatus::Approved || !ads::reserve(&*txn, a.id, a.payout_cents, now).await? {
        return Err(AdvertisingError::BudgetExhausted.into());
    }
    let [b0, b1, b2, b3, b4, b5, b6, b7] = bands(up.hash);
    let row = screenshot::ActiveModel {
        id: Set(up.id),
        poster_id: Set(poster_id),
        subscription_id: Set(sub.id),
        ad_id: Set(a.id),
        image_key: Set(up.image_key),
        content_type: Set(up.content_type.into()),
        width: Set(i32::try_from(up.width).unwrap_or(i32::MAX)),
        height: Set(i32::try_from(up.height).unwrap_or(i32::MAX)),
        phash: Set(up.hash.to_i64()),
        band0: Set(b0),
        band1: Set(b1),
        band2: Set(b2),
        band3: Set(b3),
        band4: Set(b4),
        band5: Set(b5),
        band6: Set(b6),
        band7: Set(b7),
        status: Set(ScreenshotStatus::Pending),
        reason: Set(None),
        reason_code: Set(None),
        evidence: Set(None),
        detail_print: Set(None),
        payout_cents: Set(a.payout_cents),
        open_subscription_id: Set(Some(sub.id)),
        approved_subscription_id: Set(None),
        decided_by: Set(None),
        decided_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&*txn)
    .await
    .map_err(|e| match e.sql_err() {
        // Two uploads at once: the second meets the unique open subscription.
        Some(SqlErr::UniqueConstraintViolation(_)) => AdvertisingError::ScreenshotPending.into(),
        _ => crate::core::error::ApiError::from(e),
    })?;
    let job = serde_json::to_value(VerifyJob {
        screenshot_id: up.id,
    })
    .unwrap_or_default();
    st.core
        .jobs
        .enqueue(
            &*txn,
            NewJob::new(VERIFY, job).key(format!("{VERIFY}:{}", up.id)),
        )
        .await?;
    txn.commit().await?;
    st.core.jobs.wake();
    Ok(row)
}

/// How a screenshot was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Approved,
    Rejected,
    NeedsReview,
}

impl Verdict {
    /// The verdict a status is (None for pending, which decides nothing).
    pub fn of(status: ScreenshotStatus) -> Option<Self> {
        match status {
            ScreenshotStatus::Approved => Some(Self::Approved),
            ScreenshotStatus::Rejected => Some(Self::Rejected),
            ScreenshotStatus::NeedsReview => Some(Self::NeedsReview),
            ScreenshotStatus::Pending => None,
        }
    }

    /// The verdict a finding's status word names (`needs_review` for anything but approved
    /// and rejected).
    pub fn from_status(word: &str) -> Self {
        ScreenshotStatus::parse(word)
            .and_then(Self::of)
            .unwrap_or(Self::NeedsReview)
    }

    pub fn status(self) -> ScreenshotStatus {
        match self {
            Self::Approved => ScreenshotStatus::Approved,
            Self::Rejected => ScreenshotStatus::Rejected,
            Self::NeedsReview => ScreenshotStatus::NeedsReview,
        }
    }
}

/// A decision and what it rests on.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub verdict: Verdict,
    /// What the poster reads.
    pub reason: Option<String>,
    /// The reason's stable name (see the entity).
    pub reason_code: Option<String>,
    /// The verifier's evidence (JSON); None keeps what is there (a person's decision keeps
    /// the verifier's).
    pub evidence: Option<String>,
}

impl Outcome {
    /// A person's decision.
    pub fn staff(verdict: Verdict, reason: Option<String>) -> Self {
        Self {
            verdict,
            reason,
            reason_code: Some("staff".into()),
            evidence: None,
        }
    }
}

/// Applies the outcome to the screenshot if its status is one of `from` (the verifier decides
/// only `pending` ones; an administrator also `needs_review`). Answers the decided row, or
/// None when it was decided meanwhile: one conditional update decides, so two deciders at
/// once move the money once.
pub async fn decide(
    st: &AdvertisingState,
    id: Uuid,
    outcome: Outcome,
    by: &str,
    from: &[ScreenshotStatus],
) -> Result<Option<screenshot::Model>> {
    let Outcome {
        verdict,
        reason,
        reason_code,
        evidence,
    } = outcome;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let Some(shot) = screenshot::Entity::find_by_id(id).one(&*txn).await? else {
        return Err(AdvertisingError::NotFound(Record::Screenshot).into());
    };
    let mut update = screenshot::Entity::update_many()
        .col_expr(screenshot::Column::Status, Expr::value(verdict.status()))
        .col_expr(screenshot::Column::Reason, Expr::value(reason))
        .col_expr(screenshot::Column::ReasonCode, Expr::value(reason_code))
        .col_expr(screenshot::Column::UpdatedAt, Expr::value(now))
        .filter(screenshot::Column::Id.eq(id))
        .filter(screenshot::Column::Status.is_in(from.iter().copied()));
    if let Some(evidence) = evidence {
        update = update.col_expr(screenshot::Column::Evidence, Expr::value(evidence));
    }
    if verdict != Verdict::NeedsReview {
        update = update
            .col_expr(
                screenshot::Column::OpenSubscriptionId,
                Expr::value(Option::<Uuid>::None),
            )
            .col_expr(screenshot::Column::DecidedBy, Expr::value(by))
            .col_expr(screenshot::Column::DecidedAt, Expr::value(now));
    }
    if verdict == Verdict::Approved {
        update = update.col_expr(
            screenshot::Column::ApprovedSubscriptionId,
            Expr::value(shot.subscription_id),
        );
    }
    if update.exec(&*txn).await?.rows_affected != 1 {
        return Ok(None);
    }
    match verdict {
        Verdict::Approved => credit(&*txn, &shot, now).await?,
        Verdict::Rejected => ads::settle(&*txn, shot.ad_id, shot.payout_cents, false, now).await?,
        Verdict::NeedsReview => {}
    }
    let decided = screenshot::Entity::find_by_id(id).one(&*txn).await?;
    if let Some(notice) = decided.as_ref().and_then(notice_of) {
        notify::poster(st, &*txn, shot.poster_id, notice).await?;
    }
    txn.commit().await?;
    st.core.jobs.wake();
    Ok(decided)
}

/// What the poster is told of a decision (nothing while a person has still to look).
fn notice_of(shot: &screenshot::Model) -> Option<Notice> {
    let notice = match shot.status {
        ScreenshotStatus::Approved => Notice::new(
            "screenshot_approved",
            "Screenshot approved",
            format!(
                "You earned ${}.",
                super::super::wire::usd(shot.payout_cents)
            ),
        )
        .with("amountCents", shot.payout_cents),
        ScreenshotStatus::Rejected => Notice::new(
            "screenshot_rejected",
            "Screenshot rejected",
            match shot.reason.as_deref() {
                Some(why) => format!("Your screenshot was not accepted: {why}."),
                None => "Your screenshot was not accepted.".to_owned(),
            },
        ),
        _ => return None,
    };
    Some(
        notice
            .with("screenshotId", shot.id)
            .with("subscriptionId", shot.subscription_id),
    )
}

/// The approved screenshot's payout: spent on the ad, earned by the poster.
async fn credit(
    db: &impl ConnectionTrait,
    shot: &screenshot::Model,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<()> {
    ads::settle(db, shot.ad_id, shot.payout_cents, true, now).await?;
    ledger::post(
        db,
        Movement {
            kind: TransactionKind::Earning,
            status: TransactionStatus::Completed,
            amount_cents: shot.payout_cents,
            poster_id: Some(shot.poster_id),
            advertiser_id: None,
            ad_id: Some(shot.ad_id),
            screenshot_id: Some(shot.id),
            description: "Screenshot approved".into(),
            idempotency_key: Some(format!("earning:{}", shot.id)),
            legs: vec![
                (Account::Ad(shot.ad_id), -shot.payout_cents),
                (Account::PosterAvailable(shot.poster_id), shot.payout_cents),
            ],
        },
        now,
    )
    .await?;
    Ok(())
}

/// Earlier screenshots that are the same picture: the whole-picture hash within
/// `max_distance` bits and the print of where the code is at least `min_similarity` alike.
/// Rows without a print (decided before there was one) take no part: on the whole-picture
/// hash alone, two posters' screenshots of one frame look the same.
pub async fn near_duplicates(
    st: &AdvertisingState,
    shot: &screenshot::Model,
    detail: &DetailPrint,
    max_distance: u32,
    min_similarity: f32,
) -> Result<Vec<Neighbour>> {
    use screenshot::Column as C;
    // A picture without the video is never paid on its own, and a page that shows this
    // subscription's code is not a copy of one made for another code, though at a whole
    // picture's print the two differ in a few pixels: such prints are compared only with
    // the same subscription's earlier pictures (a re-send).
    let same_subscription = detail.is_whole_picture().then_some(shot.subscription_id);
    let hash = PerceptualHash::from_i64(shot.phash);
    let mut select = screenshot::Entity::find()
        .select_only()
        .column(C::Id)
        .column(C::Phash)
        .column(C::DetailPrint)
        .filter(C::Id.ne(shot.id))
        .filter(C::DetailPrint.is_not_null())
        .filter(C::CreatedAt.lte(shot.created_at));
    if let Some(sub) = same_subscription {
        select = select.filter(C::SubscriptionId.eq(sub));
    }
    // Eight bytes: hashes at most 7 bits apart share one, found through the bands' indexes.
    if max_distance < 8 {
        let b = bands(hash);
        let cols = [
            C::Band0,
            C::Band1,
            C::Band2,
            C::Band3,
            C::Band4,
            C::Band5,
            C::Band6,
            C::Band7,
        ];
        let mut any = sea_orm::Condition::any();
        for (col, v) in cols.into_iter().zip(b) {
            any = any.add(col.eq(v));
        }
        select = select.filter(any);
    }
    let rows: Vec<(Uuid, i64, Option<String>)> = select.into_tuple().all(&st.core.db).await?;
    let mut near: Vec<Neighbour> = rows
        .into_iter()
        .filter_map(|(id, h, d)| {
            let distance = PerceptualHash::from_i64(h).distance(hash);
            if distance > max_distance {
                return None;
            }
            let similarity = d
                .as_deref()
                .and_then(DetailPrint::from_text)?
                .similarity(detail);
            (similarity >= min_similarity).then_some(Neighbour {
                id,
                distance,
                similarity: Some(similarity),
            })
        })
        .collect();
    near.sort_by(|a, b| {
        b.similarity
            .unwrap_or(0.0)
            .total_cmp(&a.similarity.unwrap_or(0.0))
    });
    Ok(near)
}
