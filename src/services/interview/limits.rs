//! Rate limits per client address, applied by the core middleware: the operations that cost
//! an AI call or a PDF render have their own, everything else shares the default.

use super::state::InterviewState;
use crate::core::rate_limit::{Limits, Per, Rule};
use actix_web::http::Method;

pub fn limits(st: &InterviewState) -> Limits {
    let l = &st.cfg.rate_limits;
    Limits::of_service("interview", &st.core)
        .rule(Rule::new(
            Method::POST,
            "/api/v1/sessions/{session_id}/messages",
            "answer",
            l.answer,
            Per::Ip,
        ))
        .rule(Rule::new(
            Method::POST,
            "/api/v1/onboarding/{session_id}/message",
            "onboarding_message",
            l.onboarding_message,
            Per::Ip,
        ))
        .rule(Rule::new(
            Method::GET,
            "/api/v1/sessions/{session_id}/report/pdf",
            "report_pdf",
            l.report_pdf,
            Per::Ip,
        ))
        // Engine.IO polls are many small requests per socket; sockets have their own limits.
        .exempt("/socket.io")
        .exempt("/socket.io/")
        .default_limit(l.default, Per::Ip)
}
