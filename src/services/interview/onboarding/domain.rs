//! What the onboarding chat asks and how it reads answers: each answer is mined for every
//! profile field it mentions; the next question asks for the first one missing.

use crate::providers::skills::find_skills;
use serde_json::{json, Map, Value};

/// The profile fields, in the order they are asked for.
pub const FIELDS: [&str; 5] = [
    "skills",
    "years_experience",
    "service_area",
    "availability",
    "hourly_rate",
];

pub fn question_for(field: &str) -> &'static str {
    match field {
        "skills" => "What kind of work do you do? Tell me your main skills or trades (for example plumbing, electrical, cleaning).",
        "years_experience" => "How many years of experience do you have in this work?",
        "service_area" => "Which city or area do you serve?",
        "availability" => "When are you usually available (for example weekdays, evenings, weekends)?",
        _ => "What hourly rate do you charge?",
    }
}

pub const GREETING: &str = "Hi! I'll help you set up your worker profile with a few quick questions. What kind of work do you do? Tell me your main skills or trades.";

fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.trim_matches('.').parse::<f64>().ok())
        .collect()
}

const DAYS: [&str; 14] = [
    "weekdays",
    "weekends",
    "evenings",
    "mornings",
    "afternoons",
    "nights",
    "full-time",
    "part-time",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

const LANGUAGES: [&str; 10] = [
    "english",
    "spanish",
    "french",
    "german",
    "portuguese",
    "arabic",
    "swahili",
    "hindi",
    "chinese",
    "italian",
];

/// Updates `data` with whatever `text` says; `asking` is the field the last reply asked
/// for, which lets a bare answer ("5", "Berlin") count.
pub fn extract(data: &mut Map<String, Value>, text: &str, asking: Option<&str>) {
    let lower = text.to_lowercase();
    let mut skills = find_skills(text);
    if skills.is_empty() && asking == Some("skills") {
        skills = lower
            .split([',', ';', '\n'])
            .flat_map(|p| p.split(" and "))
            .map(|s| {
                s.trim()
                    .trim_start_matches("i do ")
                    .trim_start_matches("i am a ")
                    .trim()
            })
            .filter(|s| !s.is_empty() && s.len() <= 40)
            .map(str::to_owned)
            .take(10)
            .collect();
    }
    if !skills.is_empty() {
        let mut all: Vec<String> = data
            .get("skills")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        for s in skills {
            if !all.contains(&s) {
                all.push(s);
            }
        }
        data.insert("skills".into(), json!(all));
    }

    let nums = numbers(&lower);
    let mentions_years = lower.contains("year") || lower.contains("yr");
    let mentions_rate = lower.contains('$')
        || lower.contains('€')
        || lower.contains('£')
        || lower.contains("per hour")
        || lower.contains("an hour")
        || lower.contains("/h")
        || lower.contains("hourly");
    if mentions_years || (asking == Some("years_experience") && !mentions_rate) {
        if let Some(n) = nums.first().filter(|n| (0.0..=70.0).contains(*n)) {
            data.insert("years_experience".into(), json!(n.round() as i64));
        }
    }
    if mentions_rate || (asking == Some("hourly_rate") && !mentions_years) {
        let rate = if mentions_years && nums.len() > 1 {
            nums.last()
        } else {
            nums.first()
        };
        if let Some(r) = rate.filter(|r| **r > 0.0 && **r < 100_000.0) {
            data.insert("hourly_rate".into(), json!(r));
        }
    }

    let days: Vec<&str> = DAYS.iter().copied().filter(|d| lower.contains(d)).collect();
    if !days.is_empty() {
        data.insert("availability".into(), json!(days.join(", ")));
    } else if asking == Some("availability") && !text.trim().is_empty() {
        data.insert(
            "availability".into(),
            json!(text.trim().chars().take(100).collect::<String>()),
        );
    }
    let area = ["serve ", "based in ", "work in ", "around ", "live in "]
        .iter()
        .find_map(|m| lower.find(m).map(|i| &text[i + m.len()..]))
        .map(|rest| {
            rest.split(['.', ',', '\n'])
                .next()
                .unwrap_or("")
                .trim()
                .to_owned()
        })
        .filter(|a| !a.is_empty());
    if let Some(a) = area {
        data.insert(
            "service_area".into(),
            json!(a.chars().take(100).collect::<String>()),
        );
    } else if asking == Some("service_area") && !text.trim().is_empty() {
        data.insert(
            "service_area".into(),
            json!(text.trim().chars().take(100).collect::<String>()),
        );
    }
    let langs: Vec<&str> = LANGUAGES
        .iter()
        .copied()
        .filter(|l| lower.contains(l))
        .collect();
    if !langs.is_empty() {
        data.insert("languages".into(), json!(langs));
    }
}

pub fn missing(data: &Map<String, Value>) -> Option<&'static str> {
    FIELDS.iter().copied().find(|f| !data.contains_key(*f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_a_profile_from_free_text() {
        let mut d = Map::new();
        extract(
            &mut d,
            "I do plumbing and electrical work, 7 years now",
            Some("skills"),
        );
        assert_eq!(d["skills"], json!(["plumbing", "electrical"]));
        assert_eq!(d["years_experience"], json!(7));
        extract(&mut d, "Nairobi", Some("service_area"));
        extract(&mut d, "weekdays and saturday", Some("availability"));
        extract(&mut d, "25", Some("hourly_rate"));
        assert_eq!(d["hourly_rate"], json!(25.0));
        assert!(missing(&d).is_none());
    }
}
