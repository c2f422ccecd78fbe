//! Interactions that span the store and the owner's sockets.

use crate::services::marketplace::error::Result;
use crate::services::marketplace::interactions::store::{self, ViewRecorded, Viewer};
use crate::services::marketplace::socket::CAR_VIEWED;
use crate::services::marketplace::state::MarketplaceState;
use uuid::Uuid;

/// Records a view of car `id` (once per viewer and UTC day) and tells its owner.
pub async fn view(st: &MarketplaceState, id: Uuid, viewer: Viewer) -> Result<ViewRecorded> {
    let seen = store::record_view(st, id, viewer).await?;
    if let Some(notice) = &seen.notice {
        st.notify(CAR_VIEWED, notice);
    }
    Ok(seen)
}
