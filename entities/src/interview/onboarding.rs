use sea_orm::entity::prelude::*;

/// A service worker's onboarding chat: the transcript and what it has gathered so far.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "interview_onboarding_sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub session_token: String,
    pub user_id: String,
    pub session_type: String,
    pub transcript: Json,
    pub extracted_data: Json,
    pub profile_complete: bool,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
