//! One-click unsubscribe from bulk mail (RFC 8058): every bulk email names
//! `/unsubscribe/{token}`, a signed token whose subject is the workspace, the message and the
//! recipient. A POST (the mailbox provider's one click, or the page's button) suppresses the
//! address for that workspace with no login; a GET only shows what the button will do, so a
//! link scanner that follows links unsubscribes nobody.

use super::super::error::Result;
use super::super::messages::domain::Channel;
use super::super::state::MessagingState;
use super::domain::Address;
use super::store::{self, Cause};
use crate::core::markup::escape;
use crate::core::signed_link::{LinkError, LinkKey};
use crate::providers::email::ListUnsubscribe;
use actix_web::{get, post, web, HttpResponse};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{DbErr, EntityTrait};
use switchboard_entities::messaging::suppression::ConsentSource;
use switchboard_entities::messaging::{message, workspace};
use uuid::Uuid;

/// How long an unsubscribe link in a mail keeps working: mail is read years later.
const LINK_DAYS: i64 = 5 * 365;

pub fn key(secret: &str) -> LinkKey {
    LinkKey::for_purpose(secret, b"messaging-unsubscribe", "unsubscribe")
}

/// Who a link unsubscribes: from which workspace, the mail it came in, the address.
#[derive(Debug, PartialEq, Eq)]
struct Subject {
    workspace_id: Uuid,
    message_id: Uuid,
    address: String,
}

fn token(key: &LinkKey, s: &Subject, expires: DateTime<Utc>) -> String {
    let raw = format!(
        "{}|{}|{}",
        s.workspace_id.simple(),
        s.message_id.simple(),
        s.address
    );
    key.signed(&URL_SAFE_NO_PAD.encode(raw), expires)
}

fn open(key: &LinkKey, token: &str, now: DateTime<Utc>) -> Result<Subject, LinkError> {
    let raw = URL_SAFE_NO_PAD
        .decode(key.opened(token, now)?)
        .map_err(|_| LinkError::Invalid)?;
    let raw = String::from_utf8(raw).map_err(|_| LinkError::Invalid)?;
    let mut parts = raw.splitn(3, '|');
    let (Some(ws), Some(msg), Some(address)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(LinkError::Invalid);
    };
    Ok(Subject {
        workspace_id: ws.parse().map_err(|_| LinkError::Invalid)?,
        message_id: msg.parse().map_err(|_| LinkError::Invalid)?,
        address: address.to_owned(),
    })
}

/// The unsubscribe headers of a bulk email `m`.
pub async fn headers(st: &MessagingState, m: &message::Model) -> Result<ListUnsubscribe, DbErr> {
    let mailbox = workspace::Entity::find_by_id(m.workspace_id)
        .one(&st.core.db)
        .await?
        .and_then(|ws| ws.unsubscribe_mailbox);
    let subject = Subject {
        workspace_id: m.workspace_id,
        message_id: m.id,
        address: Address::of_recipient(Channel::Email, &m.recipient).address,
    };
    let token = token(
        &st.unsubscribe,
        &subject,
        m.created_at + Duration::days(LINK_DAYS),
    );
    Ok(ListUnsubscribe {
        url: format!(
            "{}/unsubscribe/{token}",
            st.cfg.public_url.trim_end_matches('/')
        ),
        mailto: mailbox,
    })
}

/// A short page in the service's own words; nothing from the request is echoed but the
/// address and the workspace's name, escaped.
fn page(status: actix_web::http::StatusCode, title: &str, body: &str) -> HttpResponse {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title></head><body style=\"font-family:sans-serif;max-width:32rem;\
         margin:3rem auto;padding:0 1rem;color:#1a1a1a\"><h1>{title}</h1>{body}</body></html>"
    );
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ))
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(html)
}

fn refused(e: &LinkError) -> HttpResponse {
    use actix_web::http::StatusCode;
    match e {
        LinkError::Expired => page(
            StatusCode::GONE,
            "This link has expired",
            "<p>Use the unsubscribe link of a newer message, or reply to the sender.</p>",
        ),
        LinkError::Invalid => page(
            StatusCode::NOT_FOUND,
            "This link is not valid",
            "<p>Check that the whole link was copied from the message.</p>",
        ),
    }
}

/// Who a token unsubscribes and from which workspace (by name), or the page that says why
/// the link does not open.
async fn opened(
    st: &MessagingState,
    token: &str,
) -> Result<std::result::Result<(Subject, String), HttpResponse>> {
    let s = match open(&st.unsubscribe, token, st.core.now()) {
        Ok(s) => s,
        Err(e) => return Ok(Err(refused(&e))),
    };
    let name = workspace::Entity::find_by_id(s.workspace_id)
        .one(&st.core.db)
        .await?
        .map(|w| w.name);
    Ok(match name {
        Some(name) => Ok((s, name)),
        None => Err(refused(&LinkError::Invalid)),
    })
}

#[utoipa::path(tag = "unsubscribe",
    params(("token" = String, Path, description = "The token of a bulk email's List-Unsubscribe link")),
    responses(
        (status = 200, description = "A page naming the address and a button that unsubscribes it", body = String, content_type = "text/html"),
        (status = 404, description = "Not a link this service made", body = String, content_type = "text/html"),
        (status = 410, description = "The link expired", body = String, content_type = "text/html")))]
#[get("/unsubscribe/{token}")]
pub async fn confirm(
    st: web::Data<MessagingState>,
    token: web::Path<String>,
) -> Result<HttpResponse> {
    let (s, name) = match opened(&st, &token).await? {
        Ok(found) => found,
        Err(page) => return Ok(page),
    };
    let body = format!(
        "<p>Stop email from <strong>{}</strong> to <strong>{}</strong>?</p>\
         <form method=\"post\"><input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\
         <button type=\"submit\" style=\"font-size:1rem;padding:.6rem 1.2rem\">Unsubscribe</button></form>",
        escape(&name),
        escape(&s.address)
    );
    Ok(page(actix_web::http::StatusCode::OK, "Unsubscribe", &body))
}

#[utoipa::path(tag = "unsubscribe",
    params(("token" = String, Path, description = "The token of a bulk email's List-Unsubscribe link")),
    request_body(content = String, content_type = "application/x-www-form-urlencoded",
        description = "List-Unsubscribe=One-Click (RFC 8058); the body is not required"),
    responses(
        (status = 200, description = "Unsubscribed (or already was); contact.opted_out is sent once", body = String, content_type = "text/html"),
        (status = 404, description = "Not a link this service made", body = String, content_type = "text/html"),
        (status = 410, description = "The link expired", body = String, content_type = "text/html")))]
#[post("/unsubscribe/{token}")]
pub async fn one_click(
    st: web::Data<MessagingState>,
    token: web::Path<String>,
) -> Result<HttpResponse> {
    let (s, name) = match opened(&st, &token).await? {
        Ok(found) => found,
        Err(page) => return Ok(page),
    };
    let a = Address::of_recipient(Channel::Email, &s.address);
    let cause = Cause {
        source: ConsentSource::Link,
        reason: "one-click unsubscribe link".into(),
        message_id: Some(s.message_id),
    };
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let changed = store::opt_out(&txn, st.core.now(), s.workspace_id, &a, &cause).await?;
    txn.commit().await?;
    if let Some((_, emitted)) = changed {
        emitted.notify(&st);
    }
    let body = format!(
        "<p><strong>{}</strong> will receive no more bulk email from <strong>{}</strong>.</p>",
        escape(&a.address),
        escape(&name)
    );
    Ok(page(
        actix_web::http::StatusCode::OK,
        "You are unsubscribed",
        &body,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_workspace_message_and_address_and_nothing_else() {
        let k = key("secret-of-at-least-thirty-two-bytes!!");
        let now = Utc::now();
        let s = Subject {
            workspace_id: Uuid::new_v4(),
            message_id: Uuid::new_v4(),
            address: "ann|lee@example.com".into(),
        };
        let t = token(&k, &s, now + Duration::days(1));
        assert_eq!(open(&k, &t, now), Ok(s));
        assert_eq!(
            open(&k, &t, now + Duration::days(2)),
            Err(LinkError::Expired)
        );
        let other = LinkKey::for_purpose("secret-of-at-least-thirty-two-bytes!!", b"x", "video");
        assert_eq!(open(&other, &t, now), Err(LinkError::Invalid));
    }
}
