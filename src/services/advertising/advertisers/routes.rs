//! /advertisers/signup, verify-email, login, logout, forgot-password, reset-password.

use super::super::error::Result;
use super::super::openapi::Errors;
use super::super::sessions::{self, AccountKind, AdvertiserBearer};
use super::super::signin_guard;
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data};
use super::domain::{self, required, Password};
use super::dto::*;
use super::mail_queue as mail;
use super::store;
use super::tokens::{self, Purpose};
use crate::core::auth::Role;
use crate::core::json_body::Json;
use crate::core::password;
use crate::core::session::{EndReason, SessionKey};
use actix_web::{get, post, put, web, HttpResponse};

fn message(text: &str) -> HttpResponse {
    ok(Message {
        message: text.to_owned(),
    })
}

/// Makes an advertiser account and mails a link to verify the address (valid 24 hours).
/// No token yet: sign in once the address is verified.
#[utoipa::path(tag = "advertisers", request_body = Signup,
    responses((status = 200, body = Data<AdvertiserData>), Errors))]
#[post("/advertisers/signup")]
pub async fn signup(st: web::Data<AdvertisingState>, body: Json<Signup>) -> Result<HttpResponse> {
    let new = store::NewAdvertiser {
        email: domain::email(required("email", &body.email)?)?,
        password: Password::parse("password", required("password", &body.password)?)?,
        company_name: domain::text(
            "companyName",
            required("companyName", &body.company_name)?,
            120,
        )?,
        country_code: domain::country_code(
            "countryCode",
            required("countryCode", &body.country_code)?,
        )?,
    };
    let a = store::sign_up(&st, new).await?;
    Ok(ok(AdvertiserData {
        advertiser: AdvertiserView::from(&a),
    }))
}

/// Verifies the address with the token from the mailed link (once).
#[utoipa::path(tag = "advertisers", request_body = TokenBody,
    responses((status = 200, body = Data<AdvertiserData>), Errors))]
#[post("/advertisers/verify-email")]
pub async fn verify_email(
    st: web::Data<AdvertisingState>,
    body: Json<TokenBody>,
) -> Result<HttpResponse> {
    let token = required("token", &body.token)?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let id = tokens::consume(&*txn, token, Purpose::VerifyEmail, now).await?;
    let a = store::verified(&st, &*txn, id, now)
        .await?
        .ok_or_else(domain::invalid_token)?;
    txn.commit().await?;
    Ok(ok(AdvertiserData {
        advertiser: AdvertiserView::from(&a),
    }))
}

/// Signs in with email and password: a token and the advertiser. A wrong email and a wrong
/// password answer alike; an unverified address is 403 and the link is mailed again (at
/// most once a minute). After `signin_max_failures` failures in a row for the address (from
/// anywhere) every attempt waits, even with the right password: 429 `account_locked`.
#[utoipa::path(tag = "advertisers", request_body = Login,
    responses((status = 200, body = Data<AdvertiserSignedIn>), Errors))]
#[post("/advertisers/login")]
pub async fn login(st: web::Data<AdvertisingState>, body: Json<Login>) -> Result<HttpResponse> {
    let email = required("email", &body.email)?.trim().to_ascii_lowercase();
    let given = required("password", &body.password)?.to_owned();
    let attempt = signin_guard::begin(&st, AccountKind::Advertiser, &email).await?;
    let found = store::by_email(&st.core.db, &email).await?;
    let stored = found.as_ref().map(|a| a.password_hash.clone());
    let right = password::verify_or_dummy(given, stored).await?;
    let a = match found {
        Some(a) if right => a,
        other => {
            let owner = other.map(|a| (AccountKind::Advertiser, a.id));
            attempt.failed(&st, owner).await?;
            return Err(domain::invalid_credentials());
        }
    };
    attempt.succeeded(&st).await?;
    if a.email_verified_at.is_none() {
        store::resend_verification(&st, &a).await?;
        return Err(domain::email_not_verified());
    }
    let token = sessions::sign_in(&st, AccountKind::Advertiser, a.id, &[Role::Advertiser]).await?;
    Ok(ok(AdvertiserSignedIn {
        token,
        advertiser: AdvertiserView::from(&a),
    }))
}

/// Ends this token's session at once.
#[utoipa::path(tag = "advertisers", operation_id = "advertiser_logout",
    responses((status = 200, body = Data<Message>), Errors), security(("bearer" = [])))]
#[post("/advertisers/logout")]
pub async fn logout(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
) -> Result<HttpResponse> {
    let key = SessionKey::of(&bearer.claims).ok_or_else(|| {
        super::super::error::AdvertisingError::invalid("Authorization", "token names no session")
    })?;
    sessions::end(&st, key, EndReason::LoggedOut).await?;
    Ok(message("Logged out"))
}

/// Mails a link to set a new password (valid 1 hour) when the address has an account;
/// answers the same either way.
#[utoipa::path(tag = "advertisers", request_body = ForgotPassword,
    responses((status = 200, body = Data<Message>), Errors))]
#[post("/advertisers/forgot-password")]
pub async fn forgot_password(
    st: web::Data<AdvertisingState>,
    body: Json<ForgotPassword>,
) -> Result<HttpResponse> {
    let email = domain::email(required("email", &body.email)?)?;
    if let Some(a) = store::by_email(&st.core.db, &email).await? {
        mail::enqueue(&st, &st.core.db, a.id, mail::Kind::Reset).await?;
    }
    Ok(message(
        "If an account uses this address, a link to reset its password is on its way",
    ))
}

/// Sets a new password with the token from the mailed link (once, within an hour). Every
/// session of the advertiser ends, every other reset link stops working, and a sign-in lock
/// on the address is lifted.
#[utoipa::path(tag = "advertisers", request_body = ResetPassword,
    responses((status = 200, body = Data<Message>), Errors))]
#[post("/advertisers/reset-password")]
pub async fn reset_password(
    st: web::Data<AdvertisingState>,
    body: Json<ResetPassword>,
) -> Result<HttpResponse> {
    let token = required("token", &body.token)?.to_owned();
    let new = Password::parse("password", required("password", &body.password)?)?;
    let hash = password::hash(new.expose()).await?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let id = tokens::consume(&*txn, &token, Purpose::ResetPassword, now).await?;
    store::set_password(&*txn, id, hash, now).await?;
    // The mail reached the address: it is verified too.
    store::verified(&st, &*txn, id, now).await?;
    txn.commit().await?;
    sessions::end_all(&st, id, EndReason::CredentialsReset).await?;
    // The mailed link proved the owner: a lock set by someone guessing ends here.
    if let Some(a) = store::by_id(&st.core.db, id).await? {
        signin_guard::clear(&st, AccountKind::Advertiser, &a.email).await?;
    }
    Ok(message("Password changed; sign in with the new one"))
}

/// The signed-in advertiser's profile.
#[utoipa::path(tag = "advertisers", operation_id = "advertiser_profile",
    responses((status = 200, body = Data<AdvertiserView>), Errors), security(("bearer" = [])))]
#[get("/advertisers/profile")]
pub async fn profile(bearer: AdvertiserBearer) -> Result<HttpResponse> {
    Ok(ok(AdvertiserView::from(
        sessions::advertiser(&bearer)?.as_ref(),
    )))
}

/// Changes the given fields; `null` clears `contactName`, `phone` or `website`. The email is
/// read-only (an unknown key, `email` included, is 400 naming it).
#[utoipa::path(tag = "advertisers", operation_id = "update_advertiser_profile",
    request_body = UpdateAdvertiserProfile,
    responses((status = 200, body = Data<AdvertiserView>), Errors), security(("bearer" = [])))]
#[put("/advertisers/profile")]
pub async fn update_profile(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    body: Json<UpdateAdvertiserProfile>,
) -> Result<HttpResponse> {
    let current = sessions::advertiser(&bearer)?;
    let body = body.into_inner();
    let optional = |v: Option<Option<String>>, parse: &dyn Fn(&str) -> Result<String>| {
        v.map(|v| v.as_deref().map(parse).transpose()).transpose()
    };
    let change = store::ProfileChange {
        company_name: body
            .company_name
            .as_deref()
            .map(|n| domain::text("companyName", n, 120))
            .transpose()?,
        country_code: body
            .country_code
            .as_deref()
            .map(|c| domain::country_code("countryCode", c))
            .transpose()?,
        contact_name: optional(body.contact_name, &|n| domain::text("contactName", n, 80))?,
        phone: optional(body.phone, &domain::phone)?,
        website: optional(body.website, &domain::website)?,
    };
    let updated = store::update_profile(&st, &current, change).await?;
    Ok(ok(AdvertiserView::from(&updated)))
}

/// Deposits, spent on approved screenshots, reserved, and the unspent budget of deleted ads.
#[utoipa::path(tag = "advertisers", operation_id = "advertiser_balance",
    responses((status = 200, body = Data<AdvertiserBalanceView>), Errors), security(("bearer" = [])))]
#[get("/advertisers/balance")]
pub async fn balance(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
) -> Result<HttpResponse> {
    let a = sessions::advertiser(&bearer)?;
    let b = store::balance(&st.core.db, a.id).await?;
    let usd = super::super::wire::usd;
    Ok(ok(AdvertiserBalanceView {
        deposits_cents: b.deposits,
        deposits_usd: usd(b.deposits),
        spent_cents: b.spent,
        spent_usd: usd(b.spent),
        reserved_cents: b.reserved,
        reserved_usd: usd(b.reserved),
        unspent_deleted_cents: b.unspent_deleted,
        unspent_deleted_usd: usd(b.unspent_deleted),
        refunded_cents: b.refunded,
        refunded_usd: usd(b.refunded),
        disputed_cents: b.disputed,
        disputed_usd: usd(b.disputed),
        owed_cents: b.owed,
        owed_usd: usd(b.owed),
    }))
}
