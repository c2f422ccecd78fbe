//! The identity service's state, handed to every handler and job, and the key its OTP digests use.

use super::settings::IdentitySettings;
use crate::core::session::Sessions;
use crate::core::CoreContext;
use crate::providers::Providers;
use std::sync::Arc;

#[derive(Clone)]
pub struct IdentityState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<IdentitySettings>,
    /// Which sessions are live (every bearer request asks; every change announces).
    pub sessions: Arc<Sessions>,
}

impl IdentityState {
    /// Key for OTP digests, derived from the server secret.
    pub fn otp_key(&self) -> Vec<u8> {
        crate::core::secrets::hmac_sha256(
            self.core.settings.auth.jwt_secret.as_bytes(),
            b"identity-otp",
        )
    }
}
