//! Carrier callbacks (Twilio's form fields and signature algorithm).

use super::super::consent::keywords;
use super::super::messages::domain::{from_carrier, Status};
use super::super::messages::status::{adopt_provider_id, apply_status};
use super::super::messages::store;
use super::super::state::MessagingState;
use super::super::webhooks::events::{self, Emitted};
use crate::core::db::is_unique_violation;
use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter};
use serde_json::json;
use sha1::Sha1;
use std::collections::BTreeMap;
use switchboard_entities::messaging::{message, workspace};
use uuid::Uuid;

/// Twilio's request signature: HMAC-SHA1 keyed with the auth token over the full URL
/// followed by every POST parameter as name then value, sorted by name; base64.
pub fn signature(token: &str, url: &str, params: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = params.iter().collect();
    sorted.sort();
    #[expect(
        clippy::expect_used,
        reason = "HMAC accepts keys of any length (RFC 2104)"
    )]
    let mut mac =
        <Hmac<Sha1> as KeyInit>::new_from_slice(token.as_bytes()).expect("HMAC takes any key");
    mac.update(url.as_bytes());
    for (k, v) in sorted {
        mac.update(k.as_bytes());
        mac.update(v.as_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// Constant-time check of a presented signature.
pub fn verify(token: &str, url: &str, params: &[(String, String)], presented: &str) -> bool {
    let expected = signature(token, url, params);
    crate::core::secrets::constant_time_eq(expected.as_bytes(), presented.trim().as_bytes())
}

pub type Form = BTreeMap<String, String>;

fn field<'a>(form: &'a Form, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| form.get(*n))
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// A status callback for a message (MessageSid/MessageStatus) or a voice call
/// (CallSid/CallStatus). Unknown ids and intermediate statuses are acknowledged and ignored.
/// `message_id` comes from the callback URL (signed with it): it finds a message whose
/// provider id is not stored yet, because the callback overtook the hand-over's commit.
pub async fn status(
    st: &MessagingState,
    message_id: Option<Uuid>,
    form: &Form,
) -> Result<bool, DbErr> {
    let Some(sid) = field(form, &["MessageSid", "SmsSid", "CallSid"]) else {
        return Ok(false);
    };
    if let Some(id) = message_id {
        adopt_provider_id(st, id, sid).await?;
    }
    let Some(word) = field(form, &["MessageStatus", "SmsStatus", "CallStatus"]) else {
        return Ok(false);
    };
    let Some(status) = from_carrier(word) else {
        return Ok(false);
    };
    let code = field(form, &["ErrorCode"]).map(str::to_owned);
    let text = field(form, &["ErrorMessage"])
        .map(str::to_owned)
        .or_else(|| code.as_ref().map(|c| format!("carrier error {c} ({word})")))
        .or_else(|| (status == Status::Failed).then(|| format!("carrier reported {word}")));
    apply_status(st, sid, status, code.as_deref(), text.as_deref()).await
}

/// An inbound SMS: stored for the workspace that owns the `To` number, then message.received;
/// a keyword (STOP, START, HELP, …) also changes consent and is answered.
/// Returns the stored message id (None for unknown numbers and repeated callbacks).
pub async fn inbound(st: &MessagingState, form: &Form) -> Result<Option<Uuid>, DbErr> {
    let (Some(from), Some(to)) = (field(form, &["From"]), field(form, &["To"])) else {
        return Ok(None);
    };
    let body = form.get("Body").cloned().unwrap_or_default();
    let sid = field(form, &["MessageSid", "SmsSid"]).map(str::to_owned);
    let db = &st.core.db;
    let Some(ws) = workspace::Entity::find()
        .filter(workspace::Column::PhoneNumber.eq(to))
        .one(db)
        .await?
    else {
        tracing::info!("inbound message for a number no workspace owns; ignored");
        return Ok(None);
    };
    let now = st.core.now();
    let id = Uuid::new_v4();
    let txn = crate::core::db::begin_write(db).await?;
    // Carriers retry callbacks, sometimes at once: one message per carrier id, decided by
    // the unique index on inbound provider ids, not by a look-up that a twin can overtake.
    let inserted =
        message::Entity::insert(store::inbound_sms(id, ws.id, from, to, &body, sid, now))
            .exec_without_returning(&txn)
            .await;
    match inserted {
        Ok(_) => {}
        Err(e) if is_unique_violation(&e) => {
            txn.rollback().await?;
            tracing::debug!("repeated inbound callback ignored");
            return Ok(None);
        }
        Err(e) => return Err(e),
    }
    let mut emitted: Emitted = events::emit(
        &txn,
        now,
        ws.id,
        "message.received",
        events::message_data(
            id,
            "sms",
            to,
            Status::Received,
            None,
            now,
            json!({ "from": from, "to": to, "content": body }),
        ),
    )
    .await?;
    let answered = keywords::on_inbound(&txn, &st.core.jobs, now, &ws, from, &body, id).await?;
    emitted.extend(answered.emitted);
    txn.commit().await?;
    emitted.notify(st);
    if answered.replied {
        st.core.jobs.wake();
    }
    Ok(Some(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twilio_signature_vector() {
        let params: Vec<(String, String)> = [
            ("CallSid", "CA1234567890ABCDE"),
            ("Caller", "+12349013030"),
            ("Digits", "1234"),
            ("From", "+12349013030"),
            ("To", "+18005551212"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let url = "https://mycompany.com/myapp.php?foo=1&bar=2";
        assert_eq!(
            signature("12345", url, &params),
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
        );
        let mut reversed = params.clone();
        reversed.reverse();
        assert!(verify(
            "12345",
            url,
            &reversed,
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
        ));
        assert!(!verify(
            "12345",
            url,
            &params,
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ"
        ));
        assert!(!verify(
            "54321",
            url,
            &params,
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
        ));
    }
}
