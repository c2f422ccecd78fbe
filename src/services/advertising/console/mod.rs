//! The moderation console at `/console/`: one page, its script and its style, compiled into
//! the binary (no build step, no CDN, no third-party script), under a Content-Security-Policy
//! that lets the page load only itself and the service's own media. It signs in through
//! `/admin/auth/login` and keeps the token in the script's memory.

use actix_web::http::header;
use actix_web::{get, HttpResponse};

const INDEX: &str = include_str!("index.html");
const SCRIPT: &str = include_str!("console.js");
const STYLE: &str = include_str!("console.css");

/// Nothing but this origin: scripts and styles from these files (no inline code), pictures
/// and videos from the staff links (an ad played from its own https source too), requests to
/// the API; no framing, no forms posted elsewhere, no `<base>`.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self'; media-src 'self' https:; connect-src 'self'; frame-ancestors 'none'; \
    form-action 'self'; base-uri 'none'";

fn file(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, content_type))
        .insert_header((header::CONTENT_SECURITY_POLICY, POLICY))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .body(body)
}

#[utoipa::path(tag = "console", responses((status = 308, description = "to /console/")))]
#[get("/console")]
pub async fn console_root() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, "/console/"))
        .finish()
}

/// The console's page (sign in with an administrator's email and password).
#[utoipa::path(tag = "console", responses((status = 200, description = "the page", content_type = "text/html")))]
#[get("/console/")]
pub async fn console_page() -> HttpResponse {
    file("text/html; charset=utf-8", INDEX)
}

#[utoipa::path(tag = "console", responses((status = 200, description = "the page's script", content_type = "text/javascript")))]
#[get("/console/console.js")]
pub async fn console_script() -> HttpResponse {
    file("text/javascript; charset=utf-8", SCRIPT)
}

#[utoipa::path(tag = "console", responses((status = 200, description = "the page's style", content_type = "text/css")))]
#[get("/console/console.css")]
pub async fn console_style() -> HttpResponse {
    file("text/css; charset=utf-8", STYLE)
}
