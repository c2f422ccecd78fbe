//! Rate limits: sign-in requests per address, uploads and subscriptions per poster,
//! everything else per caller (per address when anonymous). Declared here, applied by the
//! core middleware; health and the API documents are never limited.

use super::state::AdvertisingState;
use crate::core::rate_limit::{Limits, Per, Rule};
use actix_web::http::Method;

const AUTH_ROUTES: [&str; 2] = ["/auth/request-otp", "/auth/verify-otp"];
/// Administrators' sign-in and TOTP codes: a password hash or a code to guess each, and the
/// most powerful accounts to guess.
const ADMIN_AUTH_ROUTES: [&str; 4] = [
    "/admin/auth/login",
    "/admin/auth/totp/enrol",
    "/admin/auth/totp/confirm",
    "/admin/auth/totp/disable",
];
/// Advertisers' sign-in and mailed-link requests: each costs a password hash or a mail.
const ADVERTISER_AUTH_ROUTES: [&str; 5] = [
    "/advertisers/signup",
    "/advertisers/login",
    "/advertisers/verify-email",
    "/advertisers/forgot-password",
    "/advertisers/reset-password",
];
/// Uploads and work queued per caller: screenshots, subscriptions and new campaigns (each
/// starts a video job), and edits of an ad (`PUT /ads/{id}`).
const UPLOAD_ROUTES: [&str; 4] = [
    "/screenshots",
    "/subscriptions",
    "/advertisers/campaigns",
    "/ads",
];

pub fn limits(st: &AdvertisingState) -> Limits {
    let l = &st.cfg.rate_limits;
    let auth = AUTH_ROUTES.iter().map(|path| {
        Rule::new(Method::POST, path, "auth", l.auth, Per::Ip).refused_when_unreachable()
    });
    let uploads = UPLOAD_ROUTES
        .iter()
        .map(|path| Rule::new(Method::POST, path, "uploads", l.uploads, Per::Caller));
    let advertiser_auth = ADVERTISER_AUTH_ROUTES.iter().map(|path| {
        Rule::new(Method::POST, path, "advertiser-auth", l.auth, Per::Ip).refused_when_unreachable()
    });
    let admin_auth = ADMIN_AUTH_ROUTES.iter().map(|path| {
        Rule::new(Method::POST, path, "admin-auth", l.auth, Per::Ip).refused_when_unreachable()
    });
    // An edit may carry a new video: a file too.
    let edits = std::iter::once(Rule::new(
        Method::PUT,
        "/ads/{id}",
        "uploads",
        l.uploads,
        Per::Caller,
    ));
    let rules = auth
        .chain(advertiser_auth)
        .chain(admin_auth)
        .chain(uploads)
        .chain(edits);
    Limits::of_service("advertising", &st.core)
        .rules(rules)
        // Video links carry their own signature and are fetched in many ranges.
        .exempt("/media/videos/{token}")
        // The payment provider's deliveries are signed and must not be turned away in a burst.
        .exempt("/api/campaign-payments/webhook")
        .default_limit(l.general, Per::Caller)
}
