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
    pub status: SessionStatus,
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

states! {
    /// An interview's state: pending → in_progress ⇄ paused → completed (from either of the
    /// two). The time limit runs only while in_progress.
    pub enum SessionStatus {
        Pending = "pending",
        InProgress = "in_progress",
        Paused = "paused",
        Completed = "completed",
    }
}

/// A command on a session, and where it may be taken from: the session's state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, EnumIter)]
pub enum SessionMove {
    Start,
    Pause,
    Resume,
    /// Take the candidate's answer (the session stays in progress; the last answer
    /// completes it through [`SessionMove::Complete`]).
    Answer,
    Complete,
}

impl SessionMove {
    /// As a refusal names it: "cannot {verb} a session that is {status}".
    pub const fn verb(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Pause => "pause",
            Self::Resume => "resume",
            Self::Answer => "answer in",
            Self::Complete => "complete",
        }
    }

    /// The move a verb names (a refusal relayed from another node carries the verb).
    pub fn parse(verb: &str) -> Option<Self> {
        <Self as sea_orm::Iterable>::iter().find(|m| m.verb() == verb)
    }

    /// The states the move is taken from.
    pub const fn from(self) -> &'static [SessionStatus] {
        use SessionStatus::*;
        match self {
            Self::Start => &[Pending],
            Self::Pause | Self::Answer => &[InProgress],
            Self::Resume => &[Paused],
            Self::Complete => &[InProgress, Paused],
        }
    }

    /// The state the move leaves the session in.
    pub const fn to(self) -> SessionStatus {
        match self {
            Self::Start | Self::Resume | Self::Answer => SessionStatus::InProgress,
            Self::Pause => SessionStatus::Paused,
            Self::Complete => SessionStatus::Completed,
        }
    }
}

impl SessionStatus {
    pub fn allows(self, m: SessionMove) -> bool {
        m.from().contains(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::Iterable;
    use SessionStatus::*;

    #[test]
    fn the_moves_of_a_session() {
        let allowed = |m| {
            SessionStatus::iter()
                .filter(|s| s.allows(m))
                .collect::<Vec<_>>()
        };
        assert_eq!(allowed(SessionMove::Start), [Pending]);
        assert_eq!(allowed(SessionMove::Pause), [InProgress]);
        assert_eq!(allowed(SessionMove::Resume), [Paused]);
        assert_eq!(allowed(SessionMove::Answer), [InProgress]);
        assert_eq!(allowed(SessionMove::Complete), [InProgress, Paused]);
        for m in SessionMove::iter() {
            assert!(!Completed.allows(m), "completed is final");
            assert_eq!(SessionMove::parse(m.verb()), Some(m));
        }
        assert_eq!(SessionMove::parse("change"), None);
    }
}
