//! The candidate's page at interview_url: plain HTML and a small Socket.IO client of our
//! own, compiled into the binary (no build step, no third-party files).

use super::super::caller;

use super::super::state::InterviewState;
use actix_web::http::header;
use actix_web::{web, HttpResponse};

const PAGE: &str = include_str!("assets/page.html");
const CLIENT_JS: &str = include_str!("assets/client.js");

/// Socket.IO and the client script come from this origin only ('self' covers ws/wss of it).
const PAGE_CSP: &str = "default-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

pub async fn page(st: web::Data<InterviewState>, token: web::Path<String>) -> HttpResponse {
    let known = matches!(caller::by_token(&st, &token).await, Ok(Some(_)));
    let base = HttpResponse::build(if known {
        actix_web::http::StatusCode::OK
    } else {
        actix_web::http::StatusCode::NOT_FOUND
    })
    .content_type("text/html; charset=utf-8")
    .insert_header((header::CACHE_CONTROL, "no-store"))
    .insert_header((header::REFERRER_POLICY, "no-referrer"))
    .insert_header((header::CONTENT_SECURITY_POLICY, PAGE_CSP))
    .body(if known {
        PAGE
    } else {
        "<!doctype html><title>Interview not found</title><p>This interview link is not valid.</p>"
    });
    base
}

pub async fn client_js() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .body(CLIENT_JS)
}
