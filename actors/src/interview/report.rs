//! The final report, computed from the scored answers alone (no model call), so it is
//! reproducible and available even when the AI provider is down.

use super::evidence::{Element, STRONG};
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

/// The elements a category line speaks for: "Strong technical knowledge" and "Named no
/// techniques…" would contradict each other.
fn key_elements(category: &str) -> &'static [Element] {
    match category {
        "technical" => &[Element::Techniques],
        "problem_solving" => &[Element::TradeOffs],
        "communication" => &[Element::Situation, Element::Result],
        _ => &[Element::Collaboration],
    }
}

/// Findings tallied over the answers that carry evidence.
struct Findings {
    /// (element, answers showing it, answers it applied to), in element order.
    counts: Vec<(Element, usize, usize)>,
    strong: Vec<Element>,
    weak: Vec<Element>,
}

impl Findings {
    fn tally(answered: &[Answered]) -> Self {
        let counts: Vec<(Element, usize, usize)> = Element::ALL
            .into_iter()
            .map(|e| {
                let (mut found, mut applied) = (0, 0);
                for ev in answered.iter().filter_map(|a| a.score.evidence.as_ref()) {
                    if ev.found.contains(&e) {
                        found += 1;
                        applied += 1;
                    } else if ev.missing.contains(&e) {
                        applied += 1;
                    }
                }
                (e, found, applied)
            })
            .filter(|c| c.2 > 0)
            .collect();
        let strong = counts
            .iter()
            .filter(|c| 2 * c.1 > c.2)
            .map(|c| c.0)
            .collect();
        let weak = counts
            .iter()
            .filter(|c| 2 * c.1 <= c.2)
            .map(|c| c.0)
            .collect();
        Self {
            counts,
            strong,
            weak,
        }
    }

    fn any(&self) -> bool {
        !self.counts.is_empty()
    }

    /// The analysis lines of one side, with how many answers they rest on.
    fn detail(&self, strengths: bool) -> Vec<String> {
        self.counts
            .iter()
            .filter(|c| (2 * c.1 > c.2) == strengths)
            .map(|&(e, found, applied)| {
                let (text, k) = if strengths {
                    (e.strength(), found)
                } else {
                    (e.gap(), applied - found)
                };
                format!("{text} ({k} of {applied} answers)")
            })
            .collect()
    }

    /// One sentence naming both sides.
    fn sentence(&self) -> String {
        let join = Element::list;
        match (self.strong.is_empty(), self.weak.is_empty()) {
            (false, false) => format!(
                "Most answers showed {}; most left out {}.",
                join(&self.strong),
                join(&self.weak)
            ),
            (false, true) => format!("Most answers showed {}.", join(&self.strong)),
            (true, false) => format!("Most answers left out {}.", join(&self.weak)),
            (true, true) => String::new(),
        }
    }
}

/// A question about what answer `number` left out, quoting at most a short phrase of it.
fn follow_up_for(number: usize, a: &Answered) -> Option<String> {
    const ORDER: [Element; 6] = [
        Element::Result,
        Element::Actions,
        Element::Situation,
        Element::Techniques,
        Element::TradeOffs,
        Element::Collaboration,
    ];
    let ask = match &a.score.evidence {
        Some(ev) => ORDER
            .into_iter()
            .find(|e| ev.missing.contains(e))?
            .follow_up(),
        None => "Can you give a concrete example: what you did and what changed?",
    };
    let quote = a
        .score
        .evidence
        .as_ref()
        .and_then(|ev| ev.quote.as_deref())
        .map(|q| {
            q.split_whitespace()
                .take(6)
                .collect::<Vec<_>>()
                .join(" ")
                .replace('"', "")
        });
    Some(match quote.filter(|q| q.split_whitespace().count() >= 2) {
        Some(q) => format!("You mentioned \"{q}\". {ask}"),
        None => {
            let mut ask = ask.chars();
            let first = ask.next().map(|c| c.to_lowercase().to_string());
            format!(
                "About your answer to question {number}: {}{}",
                first.unwrap_or_default(),
                ask.as_str()
            )
        }
    })
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

    // The findings of every answer that has them, tallied per element: an element is a
    // strength when more than half of the answers it applied to show it, otherwise an area to
    // improve — never both. Category lines join only where they agree with those findings.
    let findings = Findings::tally(answered);
    let mut strengths = Vec::new();
    let mut improvements = Vec::new();
    if n > 0 {
        for (cat, s) in by_cat {
            let keys = key_elements(cat);
            if s >= 70.0 && !keys.iter().any(|e| findings.weak.contains(e)) {
                strengths.push(format!("Strong {} ({s:.0}/100)", label(cat)));
            } else if s < 60.0 && !keys.iter().any(|e| findings.strong.contains(e)) {
                improvements.push(format!("Develop {} ({s:.0}/100)", label(cat)));
            }
        }
        strengths.extend(findings.strong.iter().map(|e| e.strength().to_owned()));
        improvements.extend(findings.weak.iter().map(|e| e.gap().to_owned()));
    } else {
        improvements.push("No questions were answered".to_owned());
    }

    let mut strengths_analysis = findings.detail(true);
    let mut weaknesses_analysis = findings.detail(false);
    let mut demonstrated = Vec::new();
    let mut red_flags = Vec::new();
    for a in answered {
        // Free-text findings only from scores without structured evidence (a model's reply
        // that gave none); the others are already in the tally.
        if a.score.evidence.is_none() {
            for s in &a.score.strengths {
                push_unique(&mut strengths_analysis, s, 8);
            }
            for w in &a.score.weaknesses {
                push_unique(&mut weaknesses_analysis, w, 8);
            }
        }
        // What only imitated evidence, once per kind however many answers did it (issue 37).
        for f in a.score.evidence.iter().flat_map(|ev| &ev.flaws) {
            push_unique(&mut weaknesses_analysis, f.report_line(), 8);
        }
        for k in &a.score.skills {
            push_unique(&mut demonstrated, k, 20);
        }
        for f in &a.score.red_flags {
            push_unique(&mut red_flags, f, 10);
        }
    }
    // A free-text line on both sides says nothing; drop it from both.
    let both: Vec<String> = strengths_analysis
        .iter()
        .filter(|s| {
            weaknesses_analysis
                .iter()
                .any(|w| w.eq_ignore_ascii_case(s))
        })
        .cloned()
        .collect();
    strengths_analysis.retain(|s| !both.contains(s));
    weaknesses_analysis.retain(|w| !both.iter().any(|b| b.eq_ignore_ascii_case(w)));
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
    // The weakest answers, each asked about what it left out.
    let mut weakest: Vec<(usize, &Answered)> = answered.iter().enumerate().collect();
    weakest.sort_by(|a, b| {
        a.1.score
            .composite_score
            .total_cmp(&b.1.score.composite_score)
    });
    for (i, a) in weakest
        .into_iter()
        .filter(|(_, a)| a.score.composite_score < STRONG)
        .take(2)
    {
        if let Some(q) = follow_up_for(i + 1, a) {
            follow_up.push(q);
        }
    }
    if n > 0 && follow_up.is_empty() {
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
                "How would you diagnose a problem you have never seen before?".to_owned()
            }
            _ => "What kind of team culture helps you do your best work?".to_owned(),
        });
    }

    let best = by_cat.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let worst = by_cat.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let opening = format!(
        "{} answered {} of {} questions for the {} role in {} minutes, scoring {:.1}/100 overall (grade {}).",
        session.candidate_name,
        n,
        session.max_questions,
        session.job_title,
        duration_minutes,
        overall,
        grade(overall),
    );
    let executive_summary = match (n, best, worst) {
        (0, ..) => format!(
            "{} did not answer any of the {} questions for the {} role; no assessment is possible.",
            session.candidate_name, session.max_questions, session.job_title
        ),
        _ if findings.any() => format!(
            "{opening} {} Recommendation: {rec_label}.",
            findings.sentence()
        ),
        (_, Some(b), Some(w)) => format!(
            "{opening} Strongest area: {} ({:.0}); weakest: {} ({:.0}). Recommendation: {rec_label}.",
            label(b.0),
            b.1,
            label(w.0),
            w.1,
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
            if findings.any() {
                findings.sentence()
            } else if scores.communication >= 70.0 {
                "Answers were clear and well structured.".to_owned()
            } else if scores.communication >= 50.0 {
                "Answers were understandable but could be more structured and specific.".to_owned()
            } else {
                "Answers were brief or hard to follow.".to_owned()
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
