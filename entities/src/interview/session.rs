use sea_orm::entity::prelude::*;

/// One candidate interview. Timing: while `in_progress`, the session has been running since
/// `running_since` on top of `elapsed_secs` accumulated before; pausing folds the running
/// span into `elapsed_secs` and clears `running_since`.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "interview_sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub session_token: String,
    pub candidate_name: String,
    pub candidate_phone: Option<String>,
    pub candidate_email: Option<String>,
    pub job_title: String,
    pub job_category: Option<String>,
    pub job_description: Option<String>,
    pub experience_level: Option<String>,
    pub user_id: Option<String>,
    pub application_id: Option<String>,
    pub cv_url: Option<String>,
    pub cv_text: Option<String>,
    pub max_questions: i32,
    pub time_limit_minutes: i32,
    pub webhook_url: Option<String>,
    pub webhook_secret: Option<String>,
    pub send_sms: bool,
    pub metadata: Json,
    pub status: String,
    pub questions_asked: i32,
    pub elapsed_secs: i64,
    pub running_since: Option<DateTimeUtc>,
    pub started_at: Option<DateTimeUtc>,
    pub completed_at: Option<DateTimeUtc>,
    pub completion_reason: Option<String>,
    pub created_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
