//! STOP, START and HELP texted to a workspace's number: the consent change (if any) and one
//! answer in the workspace's words, written in the transaction that stores the inbound
//! message, so a carrier's repeated callback (refused by the inbound message's unique
//! provider id) neither changes nor answers anything twice. Answers are never charged and
//! go to an opted-out number too (the confirmation is the one text the rules allow).

use super::super::messages::dispatch_job as dispatch;
use super::super::messages::domain::{sms_segments, Channel, Draft};
use super::super::messages::store::outbound;
use super::super::webhooks::events::Emitted;
use super::domain::{
    Address, Keyword, DEFAULT_HELP_REPLY, DEFAULT_OPT_IN_REPLY, DEFAULT_OPT_OUT_REPLY,
};
use super::store::{self, Cause};
use crate::core::jobs::Jobs;
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DbErr, EntityTrait};
use serde_json::json;
use switchboard_entities::messaging::message;
use switchboard_entities::messaging::suppression::ConsentSource;
use switchboard_entities::messaging::workspace;
use uuid::Uuid;

/// The metadata key that marks a message as the service's own answer to a keyword: the
/// dispatcher sends it even to a suppressed number.
pub const AUTO_REPLY: &str = "auto_reply";

/// What a keyword did: the customer events to hand over after the commit, and whether an
/// answer was queued (the caller wakes the job queue).
#[derive(Default)]
pub struct Answered {
    pub emitted: Emitted,
    pub replied: bool,
}

/// Acts on `body` if it is a keyword from `from` to the workspace's number.
pub async fn on_inbound<C: ConnectionTrait>(
    db: &C,
    jobs: &Jobs,
    now: DateTime<Utc>,
    ws: &workspace::Model,
    from: &str,
    body: &str,
    inbound_id: Uuid,
) -> Result<Answered, DbErr> {
    let Some(keyword) = Keyword::of(body) else {
        return Ok(Answered::default());
    };
    let Ok(contact) = Address::parse(Channel::Sms, from) else {
        // A short code or an alphanumeric sender: nothing to suppress or answer.
        tracing::info!("keyword from a sender that is no phone number; not acted on");
        return Ok(Answered::default());
    };
    let cause = Cause {
        source: ConsentSource::Keyword,
        reason: body.trim().to_uppercase(),
        message_id: Some(inbound_id),
    };
    let (emitted, text, kind) = match keyword {
        Keyword::OptOut => {
            let changed = store::opt_out(db, now, ws.id, &contact, &cause).await?;
            let text = ws.opt_out_reply.as_deref().unwrap_or(DEFAULT_OPT_OUT_REPLY);
            (changed.map(|(_, e)| e), text, "opt_out")
        }
        Keyword::OptIn => {
            let changed = store::opt_in(db, now, ws.id, &contact, &cause).await?;
            let text = ws.opt_in_reply.as_deref().unwrap_or(DEFAULT_OPT_IN_REPLY);
            (changed, text, "opt_in")
        }
        Keyword::Help => {
            let text = ws.help_reply.as_deref().unwrap_or(DEFAULT_HELP_REPLY);
            (None, text, "help")
        }
    };
    let (_, segments) = sms_segments(text);
    let reply = Draft {
        channel: Channel::Sms,
        recipient: contact.address.clone(),
        sender: None,
        subject: None,
        text: Some(text.to_owned()),
        html: None,
        metadata: Some(json!({ AUTO_REPLY: kind, "in_reply_to": inbound_id })),
        cost: 0,
        segments: i32::try_from(segments).unwrap_or(i32::MAX),
    };
    let id = Uuid::new_v4();
    message::Entity::insert(outbound(id, ws.id, &reply, None, now))
        .exec_without_returning(db)
        .await?;
    dispatch::enqueue(jobs, db, &[id]).await?;
    Ok(Answered {
        emitted: emitted.unwrap_or_default(),
        replied: true,
    })
}

/// Whether a stored message is the service's own answer to a keyword (uncharged, and so
/// never a customer's message carrying the same metadata key).
pub fn is_auto_reply(m: &message::Model) -> bool {
    m.cost == 0
        && m.metadata
            .as_ref()
            .is_some_and(|v| v.get(AUTO_REPLY).is_some())
}
