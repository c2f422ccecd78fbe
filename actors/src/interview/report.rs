//! The final report, computed from the scored answers alone (no model call), so it is
//! reproducible and available even when the AI provider is down.

use super::model::{AnswerScore, Categories, Highlight, Report};
use chrono::{DateTime, Utc};
use switchboard_entities::interview::session;

/// One answered question with its rubric score.
#[derive(Debug, Clone)]
pub struct Answered {
    pub question: String,
    pub category: String,
    pub answer: String,
    pub score: AnswerScore,
}

/// Grade bands over the 0–100 overall score.
pub fn grade(score: f64) -> &'static str {
    match score {
        s if s >= 85.0 => "A",
        s if s >= 70.0 => "B",
        s if s >= 55.0 => "C",
        s if s >= 40.0 => "D",
        _ => "F",
    }
}

/// Recommendation value and its label.
pub fn recommendation(score: f64, answered: usize) -> (&'static str, &'static str) {
    if answered == 0 {
        return ("no_hire", "Not recommended (no answers given)");
    }
    match score {
        s if s >= 80.0 => ("strong_hire", "Strongly recommended"),
        s if s >= 65.0 => ("hire", "Recommended"),
        s if s >= 50.0 => ("consider", "Consider with reservations"),
        _ => ("no_hire", "Not recommended"),
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn label(category: &str) -> &'static str {
    match category {
        "technical" => "technical knowledge",
        "communication" => "communication",
        "problem_solving" => "problem solving",
        _ => "cultural fit",
    }
}

/// Models sometimes fill an empty list with a placeholder ("None noted.", "N/A"); an empty
/// list says that already, and readers print their own "None noted." for it.
fn is_placeholder(item: &str) -> bool {
    let t = item
        .trim()
        .trim_end_matches(['.', '!'])
        .trim()
        .to_ascii_lowercase();
    t.is_empty()
        || matches!(
            t.as_str(),
            "none" | "none noted" | "none identified" | "none observed" | "n/a" | "na" | "-"
        )
}

fn push_unique(list: &mut Vec<String>, item: &str, cap: usize) {
    if list.len() < cap
        && !is_placeholder(item)
        && !list.iter().any(|x| x.eq_ignore_ascii_case(item))
    {
        list.push(item.trim().to_owned());
    }
}

pub struct Input<'a> {
    pub session: &'a session::Model,
    pub answered: &'a [Answered],
    pub required_skills: &'a [String],
    pub duration_minutes: i64,
    pub reason: &'a str,
    pub now: DateTime<Utc>,
}

pub fn build(input: Input<'_>) -> Report {
    let Input {
        session,
        answered,
        required_skills,
        duration_minutes,
        reason,
        now,
    } = input;
    let n = answered.len();
    let mean = |f: fn(&AnswerScore) -> f64| {
        if n == 0 {
            0.0
        } else {
            round1(answered.iter().map(|a| f(&a.score)).sum::<f64>() / n as f64)
        }
    };
    let scores = Categories {
        technical: mean(|s| s.technical),
        communication: mean(|s| s.communication),
        problem_solving: mean(|s| s.problem_solving),
        cultural_fit: mean(|s| s.cultural_fit),
    };
    let overall = mean(|s| s.composite_score);
    let (rec, rec_label) = recommendation(overall, n);
    let by_cat = [
        ("technical", scores.technical),
        ("communication", scores.communication),
        ("problem_solving", scores.problem_solving),
        ("cultural_fit", scores.cultural_fit),
    ];

    let mut strengths = Vec::new();
    let mut improvements = Vec::new();
    if n > 0 {
        for (cat, s) in by_cat {
            if s >= 70.0 {
                strengths.push(format!("Strong {} ({s:.0}/100)", label(cat)));
            } else if s < 60.0 {
                improvements.push(format!("Develop {} ({s:.0}/100)", label(cat)));
            }
        }
    } else {
        improvements.push("No questions were answered".to_owned());
    }

    let mut strengths_analysis = Vec::new();
    let mut weaknesses_analysis = Vec::new();
    let mut demonstrated = Vec::new();
    let mut red_flags = Vec::new();
    for a in answered {
        for s in &a.score.strengths {
            push_unique(&mut strengths_analysis, s, 8);
        }
        for w in &a.score.weaknesses {
            push_unique(&mut weaknesses_analysis, w, 8);
        }
        for k in &a.score.skills {
            push_unique(&mut demonstrated, k, 20);
        }
        for f in &a.score.red_flags {
            push_unique(&mut red_flags, f, 10);
        }
    }
    let gaps: Vec<String> = required_skills
        .iter()
        .filter(|r| !demonstrated.iter().any(|d| d.eq_ignore_ascii_case(r)))
        .cloned()
        .collect();

    let mut ranked: Vec<&Answered> = answered.iter().collect();
    ranked.sort_by(|a, b| b.score.composite_score.total_cmp(&a.score.composite_score));
    let highlights: Vec<Highlight> = ranked
        .iter()
        .filter_map(|a| {
            a.score.highlight.as_ref().map(|h| Highlight {
                question: a.question.clone(),
                highlight: h.clone(),
            })
        })
        .take(3)
        .collect();

    let mut follow_up = Vec::new();
    for g in gaps.iter().take(2) {
        follow_up.push(format!(
            "Can you walk us through hands-on work you have done with {g}?"
        ));
    }
    for a in ranked.iter().rev().take(2) {
        if a.score.composite_score < 60.0 {
            follow_up.push(format!(
                "Earlier you were asked: \"{}\" — can you give a more concrete example?",
                a.question
            ));
        }
    }
    if n > 0 {
        let weakest = by_cat
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|c| c.0)
            .unwrap_or("technical");
        follow_up.push(match weakest {
            "technical" => format!(
                "Which tools would you pick first as a {}, and why?",
                session.job_title
            ),
            "communication" => {
                "How would you explain a recent piece of your work to someone outside your field?"
                    .to_owned()
            }
            "problem_solving" => {
                "Describe how you would diagnose a problem you have never seen before.".to_owned()
            }
            _ => "What kind of team culture helps you do your best work?".to_owned(),
        });
    }

    let best = by_cat.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let worst = by_cat.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let executive_summary = match (n, best, worst) {
        (0, ..) => format!(
            "{} did not answer any of the {} questions for the {} role; no assessment is possible.",
            session.candidate_name, session.max_questions, session.job_title
        ),
        (_, Some(b), Some(w)) => format!(
            "{} answered {} of {} questions for the {} role in {} minutes, scoring {:.1}/100 overall (grade {}). Strongest area: {} ({:.0}); weakest: {} ({:.0}). Recommendation: {}.",
            session.candidate_name,
            n,
            session.max_questions,
            session.job_title,
            duration_minutes,
            overall,
            grade(overall),
            label(b.0),
            b.1,
            label(w.0),
            w.1,
            rec_label
        ),
        _ => String::new(),
    };
    let technical_assessment = if n == 0 {
        "Not assessed.".to_owned()
    } else {
        format!(
            "Technical knowledge {:.0}/100 and problem solving {:.0}/100. {}{}",
            scores.technical,
            scores.problem_solving,
            if demonstrated.is_empty() {
                "No specific skills were named in the answers.".to_owned()
            } else {
                format!("Skills shown: {}.", demonstrated.join(", "))
            },
            if gaps.is_empty() {
                String::new()
            } else {
                format!(" Not evidenced: {}.", gaps.join(", "))
            }
        )
    };
    let behavioral_assessment = if n == 0 {
        "Not assessed.".to_owned()
    } else {
        format!(
            "Communication {:.0}/100 and cultural fit {:.0}/100. {}",
            scores.communication,
            scores.cultural_fit,
            if scores.communication >= 70.0 {
                "Answers were clear and well structured."
            } else if scores.communication >= 50.0 {
                "Answers were understandable but could be more structured and specific."
            } else {
                "Answers were brief or hard to follow."
            }
        )
    };

    Report {
        session_id: session.id,
        candidate_name: session.candidate_name.clone(),
        job_title: session.job_title.clone(),
        overall_score: overall,
        grade: grade(overall).to_owned(),
        recommendation: rec.to_owned(),
        recommendation_label: rec_label.to_owned(),
        scores,
        executive_summary,
        strengths,
        improvements,
        strengths_analysis,
        weaknesses_analysis,
        technical_assessment,
        behavioral_assessment,
        demonstrated_skills: demonstrated,
        skill_gaps: gaps,
        interview_highlights: highlights,
        red_flags,
        follow_up_questions: follow_up,
        duration_minutes,
        questions_answered: n as i64,
        completion_reason: reason.to_owned(),
        created_at: now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_not_list_items() {
        let mut list = Vec::new();
        for item in [
            "None noted.",
            " none ",
            "N/A",
            "",
            "Clear examples",
            "clear examples",
        ] {
            push_unique(&mut list, item, 8);
        }
        assert_eq!(list, vec!["Clear examples".to_owned()]);
    }
}
