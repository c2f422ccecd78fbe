//! What every advertising handler and job reaches: the core context, the providers, the
//! service's settings, its live sessions and its media ports.

use super::media;
use super::settings::AdvertisingSettings;
use crate::core::session::Sessions;
use crate::core::CoreContext;
use crate::providers::Providers;
use std::sync::Arc;

#[derive(Clone)]
pub struct AdvertisingState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<AdvertisingSettings>,
    /// Which sessions are live (every bearer request asks; every change announces).
    pub sessions: Arc<Sessions>,
    pub media: media::Media,
}
