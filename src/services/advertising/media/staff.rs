//! The links the admin views hand staff: `/media/staff/{token}` on the host the request came
//! to, each opening one stored object until `staff_link_ttl_secs` after the view was read.
//! Posters' and advertisers' views never carry them.

use super::super::state::AdvertisingState;
use super::links::LinkKey;
use crate::providers::storage::StorageKey;
use actix_web::HttpRequest;
use chrono::{DateTime, Duration, Utc};

pub struct StaffLinks {
    base: String,
    key: LinkKey,
    expires: DateTime<Utc>,
}

impl StaffLinks {
    /// Links for the view answered to `req`, all expiring together.
    pub fn new(req: &HttpRequest, st: &AdvertisingState) -> Self {
        let ci = req.connection_info();
        Self {
            base: format!("{}://{}/media/staff/", ci.scheme(), ci.host()),
            key: st.media.staff_links.clone(),
            expires: st.core.now() + Duration::seconds(st.cfg.staff_link_ttl_secs),
        }
    }

    /// The link to the object stored under `key`; None for no key (or one that is not a
    /// storage key, which the service never writes).
    pub fn url(&self, key: Option<&str>) -> Option<String> {
        let key = StorageKey::parse(key?).ok()?;
        Some(format!(
            "{}{}",
            self.base,
            self.key.object_token(&key, self.expires)
        ))
    }

    pub fn expires(&self) -> DateTime<Utc> {
        self.expires
    }
}
