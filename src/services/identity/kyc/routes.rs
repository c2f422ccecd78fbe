//! /kyc: status, initiation, and the built-in provider's verification page.

use super::super::error::{IdentityError, Result};
use super::super::openapi::{Errors, PageErrors};
use super::super::sessions::caller::Authenticated;
use super::super::state::IdentityState;
use super::dto::*;
use super::service::{self as kyc, BuiltinKyc};
use crate::core::dto::{ok, Success};
use crate::providers::kyc::KycProvider;
use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpResponse};

#[utoipa::path(tag = "kyc", security(("bearer" = [])),
    responses((status = 200, body = Success<KycStatus>), Errors))]
#[get("/kyc/status")]
pub async fn status(auth: Authenticated, st: web::Data<IdentityState>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(ok(kyc::status(&st, &auth.user).await?)))
}

#[utoipa::path(tag = "kyc", security(("bearer" = [])),
    responses((status = 200, body = Success<KycInitiated>), Errors))]
#[post("/kyc/initiate")]
pub async fn initiate(auth: Authenticated, st: web::Data<IdentityState>) -> Result<HttpResponse> {
    if !auth.user.kyc_status.may_verify() {
        return Err(IdentityError::InvalidRequest("identity is already verified".into()).into());
    }
    let now = st.core.now();
    let started = BuiltinKyc { st: &st }.start(auth.user.id, now).await?;
    Ok(HttpResponse::Ok().json(ok(KycInitiated {
        verification_url: started.verification_url,
        expires_in: (started.expires_at - now).num_seconds(),
    })))
}

/// The page is static HTML with inline styles and a form posting back to itself.
const KYC_PAGE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
     base-uri 'none'; frame-ancestors 'none'";

// `status` is a handler (a route macro makes it a type), hence `code`.
fn html_page(code: StatusCode, title: &str, body: &str) -> HttpResponse {
    HttpResponse::build(code)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .insert_header(("Content-Security-Policy", KYC_PAGE_CSP))
        .body(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:32rem;\
             margin:3rem auto;padding:0 1rem;color:#1f2933}}button{{padding:.6rem 1.2rem;font-size:1rem}}\
             </style></head><body><h1>{title}</h1>{body}</body></html>"
        ))
}

fn expired() -> HttpResponse {
    html_page(
        StatusCode::NOT_FOUND,
        "Link expired",
        "<p>This verification link is invalid, used or expired. Start a new verification in the app.</p>",
    )
}

#[utoipa::path(tag = "kyc",
    params(("token" = String, Path)),
    responses((status = 200, description = "verification page", content_type = "text/html"),
              (status = 404, description = "unknown, used or expired link", content_type = "text/html"),
              PageErrors))]
#[get("/kyc/verify/{token}")]
pub async fn page_handler(
    st: web::Data<IdentityState>,
    token: web::Path<String>,
) -> Result<HttpResponse> {
    Ok(match kyc::open_verification(&st, &token).await? {
        Some(_) => html_page(
            StatusCode::OK,
            "Verify your identity",
            "<p>Confirm the identity document you will present.</p>\
             <form method=\"post\"><label><input type=\"radio\" name=\"document\" value=\"id_card\" checked> \
             National ID card</label><p><button type=\"submit\">Verify</button></p></form>",
        ),
        None => expired(),
    })
}

#[utoipa::path(tag = "kyc",
    params(("token" = String, Path)),
    responses((status = 200, description = "verification completed", content_type = "text/html"),
              (status = 404, description = "unknown, used or expired link", content_type = "text/html"),
              PageErrors))]
#[post("/kyc/verify/{token}")]
pub async fn submit(
    st: web::Data<IdentityState>,
    token: web::Path<String>,
) -> Result<HttpResponse> {
    Ok(if kyc::complete(&st, &token).await? {
        html_page(
            StatusCode::OK,
            "Identity verified",
            "<p>Thank you. Your identity is verified; you can return to the app.</p>",
        )
    } else {
        expired()
    })
}
