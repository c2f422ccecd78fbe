//! Parsing session-creation input into values the service can trust.

use super::super::error::InterviewError;
use super::super::settings::InterviewSettings;
use super::dto::CreateSession;

type Result<T, E = InterviewError> = std::result::Result<T, E>;
use crate::core::outbound_url::is_public_ip;
use crate::core::phone::PhoneNumber;
use serde_json::Value;
use std::net::IpAddr;

/// A creation request that passed every check.
pub struct NewSession {
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
    pub send_sms: bool,
    pub metadata: Value,
}

fn bad(msg: impl Into<String>) -> InterviewError {
    InterviewError::InvalidRequest(msg.into())
}

fn required(field: &str, v: &str, max: usize) -> Result<String> {
    let t = v.trim();
    if t.is_empty() {
        return Err(bad(format!("{field} is required")));
    }
    if t.chars().count() > max {
        return Err(bad(format!("{field} must be at most {max} characters")));
    }
    Ok(t.to_owned())
}

fn optional(field: &str, v: Option<String>, max: usize) -> Result<Option<String>> {
    match v.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) if t.chars().count() > max => {
            Err(bad(format!("{field} must be at most {max} characters")))
        }
        Some(t) => Ok(Some(t.to_owned())),
    }
}

fn bounded(field: &str, v: Option<i64>, default: i32, max: i32) -> Result<i32> {
    match v {
        None => Ok(default),
        Some(n) if (1..=i64::from(max)).contains(&n) => Ok(n as i32),
        Some(_) => Err(bad(format!("{field} must be between 1 and {max}"))),
    }
}

fn http_url(field: &str, v: Option<String>) -> Result<Option<url::Url>> {
    let Some(raw) = optional(field, v, 2048)? else {
        return Ok(None);
    };
    // The one URL parser of outgoing addresses: ASCII only, http(s), a host, at most 2048.
    crate::core::outbound_url::parse_http_url(&raw)
        .map(Some)
        .map_err(|_| bad(format!("{field} must be an http(s) URL")))
}

/// Refuses webhook hosts that are obviously internal, before any DNS lookup; delivery
/// checks the resolved addresses again.
pub fn check_webhook_host(u: &url::Url, allow_private: bool) -> Result<()> {
    if allow_private {
        return Ok(());
    }
    let private = match u.host() {
        Some(url::Host::Ipv4(ip)) => !is_public_ip(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => !is_public_ip(IpAddr::V6(ip)),
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost") || d.ends_with(".local")
        }
        None => true,
    };
    if private {
        return Err(bad(
            "webhook_url points to a loopback or private address, which this server does not call",
        ));
    }
    Ok(())
}

pub fn parse_create(
    input: CreateSession,
    cfg: &InterviewSettings,
    allow_private: bool,
) -> Result<NewSession> {
    let candidate_phone = match optional("candidate_phone", input.candidate_phone, 32)? {
        Some(p) => Some(
            PhoneNumber::parse(&p)
                .map_err(|_| bad("candidate_phone must be in international E.164 format"))?
                .as_str()
                .to_owned(),
        ),
        None => None,
    };
    let candidate_email = optional("candidate_email", input.candidate_email, 254)?;
    if let Some(e) = &candidate_email {
        let ok = e.split_once('@').is_some_and(|(l, d)| {
            !l.is_empty() && d.contains('.') && !e.contains(char::is_whitespace)
        });
        if !ok {
            return Err(bad("candidate_email is not a valid email address"));
        }
    }
    let send_sms = input.send_sms.unwrap_or(false);
    if send_sms && candidate_phone.is_none() {
        return Err(bad("send_sms needs candidate_phone"));
    }
    let webhook = http_url("webhook_url", input.webhook_url)?;
    if let Some(u) = &webhook {
        check_webhook_host(u, allow_private)?;
    }
    let cv_url = http_url("cv_url", input.cv_url)?;
    let metadata = match input.metadata {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(v @ Value::Object(_)) => {
            if v.to_string().len() > 16 * 1024 {
                return Err(bad("metadata must be at most 16 KiB of JSON"));
            }
            v
        }
        Some(_) => return Err(bad("metadata must be a JSON object")),
    };
    Ok(NewSession {
        candidate_name: required("candidate_name", &input.candidate_name, 200)?,
        candidate_phone,
        candidate_email,
        job_title: required("job_title", &input.job_title, 200)?,
        job_category: optional("job_category", input.job_category, 100)?,
        job_description: optional("job_description", input.job_description, 20_000)?,
        experience_level: optional("experience_level", input.experience_level, 100)?,
        user_id: optional("user_id", input.user_id, 128)?,
        application_id: optional("application_id", input.application_id, 128)?,
        cv_url: cv_url.map(|u| u.to_string()),
        cv_text: optional("cv_text", input.cv_text, 100_000)?,
        max_questions: bounded(
            "max_questions",
            input.max_questions,
            cfg.default_max_questions,
            cfg.max_questions_limit,
        )?,
        time_limit_minutes: bounded(
            "time_limit_minutes",
            input.time_limit_minutes,
            cfg.default_time_limit_minutes,
            cfg.time_limit_minutes_limit,
        )?,
        webhook_url: webhook.map(|u| u.to_string()),
        send_sms,
        metadata,
    })
}

/// The candidate's answer: trimmed, 1–10,000 characters.
pub fn parse_answer(content: &str) -> Result<String> {
    let t = content.trim();
    if t.is_empty() {
        return Err(bad("content must not be empty"));
    }
    if t.chars().count() > 10_000 {
        return Err(bad("content must be at most 10000 characters"));
    }
    Ok(t.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_webhook_hosts_are_refused_at_creation() {
        for raw in [
            "http://127.0.0.1/h",
            "http://[::1]/h",
            "http://10.0.0.1/h",
            "http://169.254.169.254/h",
            "http://[::ffff:127.0.0.1]/h",
            "http://localhost/h",
            "http://printer.local/h",
        ] {
            let u = url::Url::parse(raw).unwrap();
            assert!(check_webhook_host(&u, false).is_err(), "{raw}");
            assert!(check_webhook_host(&u, true).is_ok(), "{raw}");
        }
        let u = url::Url::parse("https://hooks.example.com/h").unwrap();
        assert!(check_webhook_host(&u, false).is_ok());
    }
}
