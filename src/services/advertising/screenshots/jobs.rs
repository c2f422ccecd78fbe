//! The names and the first payload of the screenshot jobs (`verify` runs them; `store`
//! queues the first when a screenshot is uploaded).

use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub const VERIFY: &str = "screenshot-verify";
pub const PROCESSED: &str = "screenshot-processed";

/// Who decided, as screenshots record it.
pub const VERIFIER: &str = "verifier";
/// The reason code of a duplicate.
pub const DUPLICATE: &str = "duplicate";

#[derive(Debug, Serialize, Deserialize)]
pub struct VerifyJob {
    pub screenshot_id: Uuid,
}
