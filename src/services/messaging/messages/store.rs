//! Rows of the messages table: those several features write (an accepted outbound message
//! from billing's commit or the answers to STOP, START and HELP; an inbound SMS from the
//! carrier) and a workspace's reads.

use super::domain::{Channel, Draft, Status};
use crate::core::error::ApiError;
use crate::core::page::{self, Page, Window};
use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, Set};
use switchboard_entities::messaging::message;
use uuid::Uuid;

/// A workspace's messages, newest first, of one status and channel when asked. A claimed
/// message (`sending`) is still `queued` to the API.
pub async fn list(
    db: &impl ConnectionTrait,
    workspace: Uuid,
    status: Option<Status>,
    channel: Option<Channel>,
    window: Window,
) -> Result<Page<message::Model>, ApiError> {
    let mut find = message::Entity::find().filter(message::Column::WorkspaceId.eq(workspace));
    if let Some(s) = status {
        find = find.filter(message::Column::Status.is_in(s.stored_as().iter().copied()));
    }
    if let Some(c) = channel {
        find = find.filter(message::Column::Channel.eq(c.as_str()));
    }
    let newest_first = find
        .order_by_desc(message::Column::CreatedAt)
        .order_by_desc(message::Column::Id);
    page::fetch(newest_first, db, window).await
}

/// The workspace's message `id` (another workspace's answers as none).
pub async fn of_workspace(
    db: &impl ConnectionTrait,
    workspace: Uuid,
    id: Uuid,
) -> Result<Option<message::Model>, DbErr> {
    message::Entity::find_by_id(id)
        .filter(message::Column::WorkspaceId.eq(workspace))
        .one(db)
        .await
}

/// `d` as a queued outbound message of the workspace.
pub fn outbound(
    id: Uuid,
    workspace_id: Uuid,
    d: &Draft,
    bulk_id: Option<Uuid>,
    now: DateTime<Utc>,
) -> message::ActiveModel {
    message::ActiveModel {
        direction: Set("outbound".into()),
        channel: Set(d.channel.as_str().into()),
        recipient: Set(d.recipient.clone()),
        sender: Set(d.sender.clone()),
        subject: Set(d.subject.clone()),
        text: Set(d.text.clone()),
        html: Set(d.html.clone()),
        metadata: Set(d.metadata.clone()),
        status: Set(Status::Queued),
        cost: Set(d.cost),
        segments: Set(d.segments),
        provider_message_id: Set(None),
        bulk_id: Set(bulk_id),
        ..untouched(id, workspace_id, now)
    }
}

/// An SMS texted to the workspace's number `to`, as the carrier reported it.
pub fn inbound_sms(
    id: Uuid,
    workspace_id: Uuid,
    from: &str,
    to: &str,
    body: &str,
    provider_message_id: Option<String>,
    now: DateTime<Utc>,
) -> message::ActiveModel {
    message::ActiveModel {
        direction: Set("inbound".into()),
        channel: Set("sms".into()),
        recipient: Set(to.to_owned()),
        sender: Set(Some(from.to_owned())),
        subject: Set(None),
        text: Set(Some(body.to_owned())),
        html: Set(None),
        metadata: Set(None),
        status: Set(Status::Received),
        cost: Set(0),
        segments: Set(0),
        provider_message_id: Set(provider_message_id),
        bulk_id: Set(None),
        ..untouched(id, workspace_id, now)
    }
}

/// The columns no message sets when it is written: no provider outcome, no claim yet.
fn untouched(id: Uuid, workspace_id: Uuid, now: DateTime<Utc>) -> message::ActiveModel {
    message::ActiveModel {
        id: Set(id),
        workspace_id: Set(workspace_id),
        error_code: Set(None),
        error_message: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        sent_at: Set(None),
        delivered_at: Set(None),
        failed_at: Set(None),
        claim_expires_at: Set(None),
        attempts: Set(0),
        claimed_by: Set(None),
        ..Default::default()
    }
}
