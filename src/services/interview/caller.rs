//! Who may call what. The backend holds the API key; a candidate holds only the session
//! token from the interview URL (sent as `X-Session-Token`); deletion needs the admin key.
//! Keys are checked by `core::auth` extractors; every comparison is constant-time.

use super::error::{InterviewError, Result};
use super::settings::InterviewSettings;
use super::state::InterviewState;
use crate::core::auth::{header, Auth, AuthErrors, ServiceKey, ADMIN_KEY_HEADER};
use crate::core::error::ApiError;
use crate::core::secrets::constant_time_eq;
use crate::core::CoreContext;
use actix_web::HttpRequest;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_actors::interview::ReportSummary;
use switchboard_entities::interview::session;
use uuid::Uuid;

pub const SESSION_TOKEN: &str = "X-Session-Token";

/// The credentials policy of the interview listener: the backend's key and the admin key.
pub fn policy(core: &CoreContext, cfg: &InterviewSettings) -> Auth {
    // Interview issues no tokens; no token type of another service matches this one.
    Auth::new(
        core,
        &["interview_none"],
        AuthErrors {
            missing: |_| key_required(),
            invalid_token: |_| key_required(),
            forbidden: |_| key_required(),
            invalid_key: |what| {
                if what == ADMIN_KEY_HEADER {
                    InterviewError::Forbidden(
                        "deleting sessions needs a valid X-Admin-Key header".into(),
                    )
                    .into()
                } else {
                    key_required()
                }
            },
        },
    )
    .with_keys(&cfg.api_key, &cfg.admin_key)
}

fn key_required() -> ApiError {
    InterviewError::Unauthorized("a valid X-API-Key header is required".into()).into()
}

pub fn parse_id(raw: &str) -> Result<Uuid> {
    Uuid::parse_str(raw).map_err(|_| InterviewError::not_found().into())
}

/// Who is calling: the backend (API key) sees everything; the candidate (session token)
/// sees only what is meant for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    Backend,
    Candidate,
}

impl Caller {
    /// The report summary this caller may read.
    pub fn summary(self, summary: ReportSummary) -> ReportSummary {
        match self {
            Self::Backend => summary,
            Self::Candidate => summary.for_candidate(),
        }
    }
}

/// Loads the session when the caller holds the API key or the session's own token.
/// Unknown ids answer NOT_FOUND only to the API key holder, so a token holder learns
/// nothing about other sessions.
pub async fn session_for(
    st: &InterviewState,
    req: &HttpRequest,
    raw_id: &str,
) -> Result<session::Model> {
    Ok(session_and_caller(st, req, raw_id).await?.0)
}

/// [`session_for`], also saying which kind of caller was let in.
pub async fn session_and_caller(
    st: &InterviewState,
    req: &HttpRequest,
    raw_id: &str,
) -> Result<(session::Model, Caller)> {
    let backend = ServiceKey::presented(req);
    let token = header(req, SESSION_TOKEN);
    if !backend && token.is_none() {
        return Err(InterviewError::Unauthorized(
            "send X-API-Key or the session's X-Session-Token".into(),
        )
        .into());
    }
    let found = match Uuid::parse_str(raw_id) {
        Ok(id) => session::Entity::find_by_id(id).one(&st.core.db).await?,
        Err(_) => None,
    };
    match (found, backend, token) {
        (Some(s), true, _) => Ok((s, Caller::Backend)),
        (Some(s), false, Some(t)) if constant_time_eq(t.as_bytes(), s.session_token.as_bytes()) => {
            Ok((s, Caller::Candidate))
        }
        (None, true, _) => Err(InterviewError::not_found().into()),
        _ => Err(InterviewError::Unauthorized(
            "the session token does not belong to this session".into(),
        )
        .into()),
    }
}

pub async fn by_token(st: &InterviewState, token: &str) -> Result<Option<session::Model>> {
    // Tokens are 256-bit random values: looking them up by equality leaks nothing usable.
    if token.is_empty() || token.len() > 128 {
        return Ok(None);
    }
    Ok(session::Entity::find()
        .filter(session::Column::SessionToken.eq(token))
        .one(&st.core.db)
        .await?)
}
