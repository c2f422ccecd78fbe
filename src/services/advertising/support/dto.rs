//! Support tickets' wire shapes.

use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::{support_message, support_ticket};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateTicket {
    /// 1 to 200 characters, one line.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200, pattern = r"\S")]
    pub subject: Option<String>,
    /// What the ticket is about (`payments`, `videos`, …): 1 to 50 characters.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 50, pattern = r"\S")]
    pub category: Option<String>,
    /// The first message: 1 to 5000 characters.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 5000, pattern = r"\S")]
    pub message: Option<String>,
    /// An https link to a screenshot of the problem.
    #[schema(nullable, pattern = r"^https://\S+$", max_length = 2048)]
    pub screenshot_url: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddMessage {
    /// 1 to 5000 characters.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 5000, pattern = r"\S")]
    pub message: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketView {
    pub id: String,
    pub subject: String,
    pub category: String,
    pub screenshot_url: Option<String>,
    /// `open` or `closed`.
    pub status: String,
    pub closed_at: Option<chrono::DateTime<chrono::Utc>>,
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// The last message or change.
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

impl From<&support_ticket::Model> for TicketView {
    fn from(t: &support_ticket::Model) -> Self {
        Self {
            id: t.id.to_string(),
            subject: t.subject.clone(),
            category: t.category.clone(),
            screenshot_url: t.screenshot_url.clone(),
            status: t.status.as_str().to_owned(),
            closed_at: t.closed_at,
            created_at: t.created_at,
            updated_at: t.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    pub id: String,
    /// `poster` (the ticket's owner) or `admin` (the platform's support).
    pub author_kind: String,
    pub message: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

impl From<&support_message::Model> for MessageView {
    fn from(m: &support_message::Model) -> Self {
        Self {
            id: m.id.to_string(),
            author_kind: m.author_kind.as_str().to_owned(),
            message: m.body.clone(),
            created_at: m.created_at,
        }
    }
}

/// A ticket with its messages, oldest first.
#[derive(Serialize, ToSchema)]
pub struct TicketDetail {
    #[serde(flatten)]
    pub ticket: TicketView,
    pub messages: Vec<MessageView>,
}

impl TicketDetail {
    pub fn new(t: &support_ticket::Model, messages: &[support_message::Model]) -> Self {
        Self {
            ticket: TicketView::from(t),
            messages: messages.iter().map(MessageView::from).collect(),
        }
    }
}
