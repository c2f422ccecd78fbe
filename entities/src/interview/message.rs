use sea_orm::entity::prelude::*;

/// One turn of an interview. Candidate answers carry their rubric `score` (JSON).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "interview_messages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub session_id: Uuid,
    pub role: String,
    pub message_type: String,
    pub content: String,
    pub sequence_number: i32,
    pub question_number: Option<i32>,
    pub question_category: Option<String>,
    pub suggestions: Option<Json>,
    pub score: Option<Json>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
