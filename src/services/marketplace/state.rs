//! The marketplace's state, shared by every feature: the core context, the providers and the
//! service's settings, the catalogue's readiness and names, the VIN decoder, the conversation
//! actors, the live feed and the sessions.

use crate::core::session::Sessions;
use crate::core::CoreContext;
use crate::providers::Providers;
use crate::services::marketplace::catalogue::names::NamesCache;
use crate::services::marketplace::settings::MarketplaceSettings;
use crate::services::marketplace::vin::provider::VinDecoder;
use std::sync::Arc;
use switchboard_actors::marketplace::{Conversations, UserFeed};

#[derive(Clone)]
pub struct MarketplaceState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<MarketplaceSettings>,
    /// Set once the catalogue is filled (`catalogue::store::ready`).
    pub catalogue: Arc<tokio::sync::OnceCell<()>>,
    /// The catalogue's names the search corrects words to (`catalogue::store::names`).
    pub catalogue_names: NamesCache,
    /// Where VIN lookups are answered from (`[services.marketplace.vin]`).
    pub vin: Arc<dyn VinDecoder>,
    /// The conversation actors, which write messages and receipts.
    pub conversations: Conversations,
    /// Live events to a user's sockets.
    pub feed: Arc<dyn UserFeed>,
    /// Which sessions are live (every bearer request and socket asks; every change announces).
    pub sessions: Arc<Sessions>,
}

impl MarketplaceState {
    /// The key one-time codes are hashed with (derived, so no second secret to configure).
    pub fn otp_key(&self) -> Vec<u8> {
        crate::core::secrets::hmac_sha256(
            self.core.settings.auth.jwt_secret.as_bytes(),
            b"marketplace-otp",
        )
    }
}
