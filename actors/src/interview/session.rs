//! The state of one interview session and the commands on it: what the `InterviewSession`
//! actor runs, one command at a time.

use super::model::{JobProfile, MessageView, Question, Report, ReportSummary, ScoreView, Turn};
use super::ports::Deps;
use super::report::{self, Answered};
use super::{SessionMove, SessionStatus};
use chrono::{DateTime, Duration as ChronoDuration, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel,
    QueryFilter, QueryOrder, Set,
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::Arc;
use switchboard_entities::interview::{message, report as report_entity, session};
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum ActorError {
    #[error("interview session not found")]
    NotFound,
    #[error("cannot {action} a session that is {status}")]
    InvalidState {
        action: &'static str,
        status: SessionStatus,
        allowed: &'static [SessionStatus],
    },
    #[error("the interview session expired at {expires_at}")]
    Expired { expires_at: DateTime<Utc> },
    #[error("database: {0}")]
    Db(#[from] DbErr),
    #[error("the session is busy; try again")]
    Unavailable,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StartOutcome {
    pub session: session::Model,
    pub greeting: MessageView,
    pub question: MessageView,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AnswerOutcome {
    pub session: session::Model,
    pub answer: MessageView,
    pub score: ScoreView,
    /// The next question, or the closing message when this answer ended the interview.
    pub next_message: MessageView,
    pub report: Option<ReportSummary>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CompleteOutcome {
    pub session: session::Model,
    pub closing_message: MessageView,
    pub report: ReportSummary,
}

pub(crate) const REASON_TIME: &str = "time_limit";
const REASON_ALL: &str = "all_questions_answered";
const REASON_REQUEST: &str = "requested";

pub(crate) struct Session {
    deps: Arc<Deps>,
    session: session::Model,
    job: JobProfile,
    next_seq: i32,
    /// The question asked and not yet answered, with its number.
    open_question: Option<(i32, Question)>,
}

/// The refusal of `m` in status `s`.
pub(crate) fn invalid(m: SessionMove, s: SessionStatus) -> ActorError {
    ActorError::InvalidState {
        action: m.verb(),
        status: s,
        allowed: m.from(),
    }
}

/// The fields of a new message row.
struct NewMessage<'a> {
    role: &'a str,
    kind: &'a str,
    content: &'a str,
    question_number: Option<i32>,
    question: Option<&'a Question>,
}

impl Session {
    /// Reads the session and finishes a step a crash interrupted; `None` for an unknown id.
    pub(crate) async fn restore(deps: Arc<Deps>, id: Uuid) -> Result<Option<Self>, DbErr> {
        let Some(mut loaded) = Self::load(deps, id).await? else {
            return Ok(None);
        };
        if let Err(e) = loaded.repair().await {
            tracing::error!(session = %id, error = %e, "restoring interview session failed");
        }
        Ok(Some(loaded))
    }

    async fn load(deps: Arc<Deps>, id: Uuid) -> Result<Option<Self>, DbErr> {
        let db = &deps.db;
        let Some(session) = session::Entity::find_by_id(id).one(db).await? else {
            return Ok(None);
        };
        let messages = message::Entity::find()
            .filter(message::Column::SessionId.eq(id))
            .order_by_asc(message::Column::SequenceNumber)
            .all(db)
            .await?;
        let next_seq = messages.last().map_or(1, |m| m.sequence_number + 1);
        let open_question = match messages.iter().rev().find(|m| m.role == "interviewer") {
            Some(m) if m.message_type == "question" && messages.last() == Some(m) => {
                Some((m.question_number.unwrap_or(1), question_of(m)))
            }
            _ => None,
        };
        Ok(Some(Self {
            job: JobProfile::from_session(&session),
            deps,
            session,
            next_seq,
            open_question,
        }))
    }

    /// After a crash between two steps, a running session may lack its open question.
    async fn repair(&mut self) -> Result<(), ActorError> {
        if self.session.status == SessionStatus::InProgress && self.open_question.is_none() {
            if self.session.questions_asked >= self.session.max_questions {
                self.complete(REASON_ALL).await?;
            } else {
                self.ask_next().await?;
            }
        }
        Ok(())
    }

    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.deps.clock.now()
    }

    fn limit_secs(&self) -> i64 {
        i64::from(self.session.time_limit_minutes) * 60
    }

    /// When the time limit runs out; `None` unless the session is running.
    pub(crate) fn deadline(&self) -> Option<DateTime<Utc>> {
        if self.session.status != SessionStatus::InProgress {
            return None;
        }
        let since = self.session.running_since?;
        Some(since + ChronoDuration::seconds(self.limit_secs() - self.session.elapsed_secs))
    }

    fn elapsed_at(&self, now: DateTime<Utc>) -> i64 {
        let running = self
            .session
            .running_since
            .map_or(0, |s| (now - s).num_seconds().max(0));
        self.session.elapsed_secs + running
    }

    fn emit(&self, event: &str, data: &serde_json::Value) {
        self.deps.broadcast.emit(self.session.id, event, data);
    }

    // Socket payloads carry the spec's field names: `message`, `score`, `report`.
    fn emit_message(&self, m: &MessageView) {
        self.emit("message", &json!({ "message": m }));
    }

    fn emit_status(&self) {
        self.emit(
            "status_update",
            &json!({"session_id": self.session.id, "status": self.session.status}),
        );
    }

    fn emit_typing(&self, on: bool) {
        self.emit("typing", &json!({"is_typing": on, "role": "interviewer"}));
    }

    fn view(&self, m: &message::Model) -> MessageView {
        MessageView::from_model(m, self.session.max_questions)
    }

    fn check_not_expired(&self, now: DateTime<Utc>) -> Result<(), ActorError> {
        if now >= self.session.expires_at {
            return Err(ActorError::Expired {
                expires_at: self.session.expires_at,
            });
        }
        Ok(())
    }

    async fn insert_message(
        &mut self,
        db: &impl ConnectionTrait,
        new: NewMessage<'_>,
        now: DateTime<Utc>,
    ) -> Result<message::Model, DbErr> {
        let seq = self.next_seq;
        let m = message::ActiveModel {
            id: Set(Uuid::new_v4()),
            session_id: Set(self.session.id),
            role: Set(new.role.to_owned()),
            message_type: Set(new.kind.to_owned()),
            content: Set(new.content.to_owned()),
            sequence_number: Set(seq),
            question_number: Set(new.question_number),
            question_category: Set(new.question.map(|q| q.category.clone())),
            suggestions: Set(new
                .question
                .filter(|_| new.kind == "question")
                .map(|q| json!(q.suggestions))),
            score: Set(None),
            created_at: Set(now),
        }
        .insert(db)
        .await?;
        self.next_seq = seq + 1;
        Ok(m)
    }

    /// Writes the changed session row; the actor's copy changes only once it is stored.
    async fn save(
        &mut self,
        db: &impl ConnectionTrait,
        change: impl FnOnce(&mut session::Model),
    ) -> Result<(), DbErr> {
        let mut next = self.session.clone();
        change(&mut next);
        next.updated_at = self.now();
        let am: session::ActiveModel = next.clone().into_active_model().reset_all();
        am.update(db).await?;
        self.session = next;
        Ok(())
    }

    pub(crate) async fn start(&mut self) -> Result<StartOutcome, ActorError> {
        if !self.session.status.allows(SessionMove::Start) {
            return Err(invalid(SessionMove::Start, self.session.status));
        }
        let now = self.now();
        self.check_not_expired(now)?;
        let ai = self.deps.ai.clone();
        let greeting_text = ai.greeting(&self.job).await;
        let total = u32::try_from(self.session.max_questions).unwrap_or(1);
        let q = ai.question(&self.job, 1, total, &[]).await;

        let db = self.deps.db.clone();
        let txn = switchboard_entities::txn::begin_write(&db).await?;
        let seq_before = self.next_seq;
        let result = async {
            let greeting = self
                .insert_message(
                    &txn,
                    NewMessage {
                        role: "interviewer",
                        kind: "greeting",
                        content: &greeting_text,
                        question_number: None,
                        question: None,
                    },
                    now,
                )
                .await?;
            let question = self
                .insert_message(
                    &txn,
                    NewMessage {
                        role: "interviewer",
                        kind: "question",
                        content: &q.content,
                        question_number: Some(1),
                        question: Some(&q),
                    },
                    now,
                )
                .await?;
            self.save(&txn, |s| {
                s.status = SessionMove::Start.to();
                s.started_at = Some(now);
                s.running_since = Some(now);
                s.questions_asked = 1;
            })
            .await?;
            Ok::<_, DbErr>((greeting, question))
        }
        .await;
        let (greeting, question) = match result {
            Ok(v) => {
                txn.commit().await?;
                v
            }
            Err(e) => {
                self.next_seq = seq_before;
                return Err(e.into());
            }
        };
        self.open_question = Some((1, q));
        let (greeting, question) = (self.view(&greeting), self.view(&question));
        self.emit_status();
        self.emit_message(&greeting);
        self.emit_message(&question);
        Ok(StartOutcome {
            session: self.session.clone(),
            greeting,
            question,
        })
    }

    pub(crate) async fn pause(&mut self) -> Result<session::Model, ActorError> {
        if !self.session.status.allows(SessionMove::Pause) {
            return Err(invalid(SessionMove::Pause, self.session.status));
        }
        let now = self.now();
        let elapsed = self.elapsed_at(now).min(self.limit_secs());
        let db = self.deps.db.clone();
        self.save(&db, |s| {
            s.status = SessionMove::Pause.to();
            s.elapsed_secs = elapsed;
            s.running_since = None;
        })
        .await?;
        self.emit_status();
        Ok(self.session.clone())
    }

    pub(crate) async fn resume(&mut self) -> Result<session::Model, ActorError> {
        if !self.session.status.allows(SessionMove::Resume) {
            return Err(invalid(SessionMove::Resume, self.session.status));
        }
        let now = self.now();
        self.check_not_expired(now)?;
        let db = self.deps.db.clone();
        self.save(&db, |s| {
            s.status = SessionMove::Resume.to();
            s.running_since = Some(now);
        })
        .await?;
        self.emit_status();
        Ok(self.session.clone())
    }

    async fn history(&self) -> Result<Vec<Answered>, DbErr> {
        let rows = message::Entity::find()
            .filter(message::Column::SessionId.eq(self.session.id))
            .order_by_asc(message::Column::SequenceNumber)
            .all(&self.deps.db)
            .await?;
        let mut out = Vec::new();
        for m in rows.iter().filter(|m| m.role == "candidate") {
            let Some(score) = m
                .score
                .as_ref()
                .and_then(|s| serde_json::from_value(s.clone()).ok())
            else {
                continue;
            };
            let question = rows
                .iter()
                .find(|q| q.message_type == "question" && q.question_number == m.question_number)
                .map(|q| q.content.clone())
                .unwrap_or_default();
            out.push(Answered {
                question,
                category: m.question_category.clone().unwrap_or_default(),
                answer: m.content.clone(),
                score,
            });
        }
        Ok(out)
    }

    async fn ask_next(&mut self) -> Result<MessageView, ActorError> {
        let number = self.session.questions_asked + 1;
        let turns: Vec<Turn> = self
            .history()
            .await?
            .into_iter()
            .map(|a| Turn {
                question: a.question,
                category: a.category,
                answer: a.answer,
            })
            .collect();
        let total = u32::try_from(self.session.max_questions).unwrap_or(1);
        let q = self
            .deps
            .ai
            .question(&self.job, number as u32, total, &turns)
            .await;
        let now = self.now();
        let db = self.deps.db.clone();
        let txn = switchboard_entities::txn::begin_write(&db).await?;
        let seq_before = self.next_seq;
        let result = async {
            let m = self
                .insert_message(
                    &txn,
                    NewMessage {
                        role: "interviewer",
                        kind: "question",
                        content: &q.content,
                        question_number: Some(number),
                        question: Some(&q),
                    },
                    now,
                )
                .await?;
            self.save(&txn, |s| s.questions_asked = number).await?;
            Ok::<_, DbErr>(m)
        }
        .await;
        let m = match result {
            Ok(m) => {
                txn.commit().await?;
                m
            }
            Err(e) => {
                self.next_seq = seq_before;
                return Err(e.into());
            }
        };
        self.open_question = Some((number, q));
        let view = self.view(&m);
        self.emit_message(&view);
        Ok(view)
    }

    pub(crate) async fn answer(&mut self, content: String) -> Result<AnswerOutcome, ActorError> {
        let now = self.now();
        if self.session.status == SessionStatus::InProgress
            && self.deadline().is_some_and(|d| now >= d)
        {
            self.complete(REASON_TIME).await?;
        }
        if !self.session.status.allows(SessionMove::Answer) {
            return Err(invalid(SessionMove::Answer, self.session.status));
        }
        self.check_not_expired(now)?;
        let (number, question) = match self.open_question.clone() {
            Some(q) => q,
            None => {
                self.repair().await?;
                self.open_question.clone().ok_or(ActorError::Unavailable)?
            }
        };
        let db = self.deps.db.clone();
        let answer = self
            .insert_message(
                &db,
                NewMessage {
                    role: "candidate",
                    kind: "answer",
                    content: &content,
                    question_number: Some(number),
                    question: Some(&question),
                },
                now,
            )
            .await?;
        self.open_question = None;
        self.emit_message(&self.view(&answer));
        self.emit_typing(true);

        let scored = self.deps.ai.score(&self.job, &question, &content).await;
        let mut am = answer.clone().into_active_model();
        am.score = Set(Some(json!(scored)));
        let answer = match am.update(&db).await {
            Ok(a) => a,
            Err(e) => {
                self.emit_typing(false);
                return Err(e.into());
            }
        };
        let score = ScoreView::new(answer.id, &scored);
        self.emit("score", &json!({ "score": score }));

        let outcome = if self.session.questions_asked >= self.session.max_questions {
            self.complete(REASON_ALL)
                .await
                .map(|c| (c.closing_message, Some(c.report)))
        } else {
            self.ask_next().await.map(|q| (q, None))
        };
        self.emit_typing(false);
        let (next_message, report) = outcome?;
        Ok(AnswerOutcome {
            session: self.session.clone(),
            answer: self.view(&answer),
            score,
            next_message,
            report,
        })
    }

    /// The complete command: only a running or paused session can be completed.
    pub(crate) async fn complete_requested(&mut self) -> Result<CompleteOutcome, ActorError> {
        if !self.session.status.allows(SessionMove::Complete) {
            return Err(invalid(SessionMove::Complete, self.session.status));
        }
        self.complete(REASON_REQUEST).await
    }

    /// Ends the session: closing message, report, then the completion hook and events.
    pub(crate) async fn complete(&mut self, reason: &str) -> Result<CompleteOutcome, ActorError> {
        let mut now = self.now();
        if reason == REASON_TIME {
            // The limit ended the session at its stored deadline, however late the timer ran
            // (the process may have been down when it passed).
            now = self.deadline().map_or(now, |deadline| deadline.min(now));
        }
        let mut elapsed = self.elapsed_at(now);
        if reason == REASON_TIME {
            elapsed = elapsed.min(self.limit_secs());
        }
        let answered = self.history().await?;
        let duration_minutes = (elapsed + 30) / 60;
        let required = self.deps.ai.required_skills(&self.job);
        let built: Report = report::build(report::Input {
            session: &self.session,
            answered: &answered,
            required_skills: &required,
            duration_minutes,
            reason,
            now,
        });
        let closing = match reason {
            REASON_TIME => format!(
                "Thank you, {}. We have reached the time limit, so the interview ends here. Your answers have been recorded.",
                self.session.candidate_name
            ),
            REASON_ALL => format!(
                "Thank you, {}. That was the last question. Your answers have been recorded and the hiring team will be in touch.",
                self.session.candidate_name
            ),
            _ => format!(
                "Thank you for your time, {}. The interview is now complete.",
                self.session.candidate_name
            ),
        };

        let db = self.deps.db.clone();
        let txn = switchboard_entities::txn::begin_write(&db).await?;
        let seq_before = self.next_seq;
        let session_before = self.session.clone();
        let result = async {
            let m = self
                .insert_message(
                    &txn,
                    NewMessage {
                        role: "interviewer",
                        kind: "closing",
                        content: &closing,
                        question_number: None,
                        question: None,
                    },
                    now,
                )
                .await?;
            report_entity::ActiveModel {
                session_id: Set(self.session.id),
                overall_score: Set(built.overall_score),
                data: Set(json!(built)),
                created_at: Set(now),
            }
            .insert(&txn)
            .await?;
            let reason = reason.to_owned();
            self.save(&txn, |s| {
                s.status = SessionMove::Complete.to();
                s.completed_at = Some(now);
                s.completion_reason = Some(reason);
                s.elapsed_secs = elapsed;
                s.running_since = None;
            })
            .await?;
            // The completion webhook's row commits with the completion, or neither does.
            let recorded = self.deps.hook.record(&txn, &self.session, &built).await?;
            txn.commit().await?;
            Ok::<_, DbErr>((m, recorded))
        }
        .await;
        let (closing_msg, recorded) = match result {
            Ok(v) => v,
            Err(e) => {
                // Nothing was stored: the actor keeps the session as it was.
                self.next_seq = seq_before;
                self.session = session_before;
                return Err(e.into());
            }
        };
        self.open_question = None;
        self.deps.hook.completed(recorded);
        let summary = ReportSummary::from(&built);
        let closing_view = self.view(&closing_msg);
        self.emit_message(&closing_view);
        self.emit_status();
        // Only session-token holders join a session's room: they get the candidate's summary.
        self.emit(
            "interview_complete",
            &json!({ "report": summary.clone().for_candidate() }),
        );
        Ok(CompleteOutcome {
            session: self.session.clone(),
            closing_message: closing_view,
            report: summary,
        })
    }
}

fn question_of(m: &message::Model) -> Question {
    Question {
        content: m.content.clone(),
        category: m.question_category.clone().unwrap_or_default(),
        suggestions: m
            .suggestions
            .as_ref()
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default(),
    }
}
