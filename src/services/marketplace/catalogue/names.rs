//! Where the catalogue's names are kept between reads (held by the service's state, filled by
//! `store::names`).

use crate::services::marketplace::cars::search_terms::Names;
use moka::sync::Cache;
use std::sync::Arc;
use std::time::Duration;

/// How long this node answers from the names it read while another node may have grown the
/// catalogue (a change made through this node is seen at once: `store::names_changed`).
pub const NAMES_STALE: Duration = Duration::from_secs(60);

/// The public catalogue's make and model names as last read, one entry.
#[derive(Clone)]
pub struct NamesCache(pub(super) Cache<(), Arc<Names>>);

impl Default for NamesCache {
    fn default() -> Self {
        Self(Cache::builder().time_to_live(NAMES_STALE).build())
    }
}
