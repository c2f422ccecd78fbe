//! One voice: every report built from the labelled set says each thing once, on one side.

use super::labelled::{cases, Case};
use super::*;
use chrono::Utc;
use switchboard_actors::interview::evidence::STRONG;
use switchboard_actors::interview::report::{self, Answered};
use switchboard_actors::interview::{Interviewer, Report};
use switchboard_entities::interview::session;

fn session(job: &JobProfile, n: usize) -> session::Model {
    let now = Utc::now();
    session::Model {
        id: uuid::Uuid::nil(),
        session_token: "t".into(),
        candidate_name: "Candidate".into(),
        candidate_phone: None,
        candidate_email: None,
        job_title: job.job_title.clone(),
        job_category: job.job_category.clone(),
        job_description: job.job_description.clone(),
        experience_level: job.experience_level.clone(),
        user_id: None,
        application_id: None,
        cv_url: None,
        cv_text: None,
        max_questions: i32::try_from(n).unwrap_or(1),
        time_limit_minutes: 30,
        webhook_url: None,
        webhook_secret: None,
        send_sms: false,
        metadata: serde_json::json!({}),
        status: session::SessionStatus::Completed,
        questions_asked: i32::try_from(n).unwrap_or(1),
        elapsed_secs: 600,
        running_since: None,
        started_at: Some(now),
        completed_at: Some(now),
        completion_reason: Some("all_questions_answered".into()),
        created_at: now,
        expires_at: now,
        updated_at: now,
    }
}

fn build(group: &[&Case]) -> Report {
    let job = &group[0].job;
    let answered: Vec<Answered> = group
        .iter()
        .map(|c| Answered {
            question: c.question.content.clone(),
            category: c.question.category.clone(),
            answer: c.answer.clone(),
            score: c.score.clone(),
        })
        .collect();
    let required = crate::providers::ai::BuiltinInterviewer.required_skills(job);
    report::build(report::Input {
        session: &session(job, group.len()),
        answered: &answered,
        required_skills: &required,
        duration_minutes: 10,
        reason: "all_questions_answered",
        now: Utc::now(),
    })
}

/// The findings a line states: an element, or a category and the elements it speaks for.
fn families(line: &str) -> Vec<String> {
    if let Some((e, _)) = Element::of_text(line) {
        return vec![format!("{e:?}")];
    }
    let cat = [
        ("technical knowledge", vec!["technical", "Techniques"]),
        ("problem solving", vec!["problem_solving", "TradeOffs"]),
        (
            "communication",
            vec!["communication", "Situation", "Result"],
        ),
        ("cultural fit", vec!["cultural_fit", "Collaboration"]),
    ];
    cat.iter()
        .find(|(label, _)| line.contains(label))
        .map(|(_, f)| f.iter().map(|s| (*s).to_owned()).collect())
        .unwrap_or_else(|| vec![line.to_lowercase()])
}

fn check(r: &Report, group: &[&Case]) {
    let ids: Vec<&str> = group.iter().map(|c| c.id.as_str()).collect();
    let side = |lists: [&Vec<String>; 2]| -> Vec<String> {
        lists
            .iter()
            .flat_map(|l| l.iter())
            .flat_map(|l| families(l))
            .collect()
    };
    let good = side([&r.strengths, &r.strengths_analysis]);
    let bad = side([&r.improvements, &r.weaknesses_analysis]);
    for f in &good {
        assert!(!bad.contains(f), "{f} on both sides for {ids:?}: {r:#?}");
    }
    // Skill gaps are skills not shown.
    for g in &r.skill_gaps {
        assert!(!r.demonstrated_skills.contains(g), "{g} for {ids:?}");
    }
    // The recommendation follows the overall score, which the answers' scores make.
    let (rec, label) = report::recommendation(r.overall_score, group.len());
    assert_eq!(
        (r.recommendation.as_str(), r.recommendation_label.as_str()),
        (rec, label)
    );
    assert!(r.executive_summary.contains(label), "{ids:?}");
    // Per-answer feedback: the verdict fits the score, and it names each finding once.
    for c in group {
        let s = &c.score;
        let ev = s.evidence.as_ref().expect("evidence");
        assert!(
            s.summary.starts_with(verdict(s.composite_score)),
            "{}",
            c.id
        );
        assert!(ev.found.iter().all(|e| !ev.missing.contains(e)), "{}", c.id);
        assert_eq!(s.strengths, ev.strengths(), "{}", c.id);
        assert_eq!(s.weaknesses, ev.weaknesses(), "{}", c.id);
    }
    for q in &r.follow_up_questions {
        assert_follow_up(q, group, r);
    }
}

/// Grammatical, quotes at most a short phrase, and asks about something left out.
fn assert_follow_up(q: &str, group: &[&Case], r: &Report) {
    assert!(q.ends_with('?'), "{q}");
    assert!(q.starts_with(|c: char| c.is_uppercase()), "{q}");
    for bad in [" ?", "??", "?\" ?", "? ?", "..", "\"\""] {
        assert!(!q.contains(bad), "{q}");
    }
    let quoted: Vec<&str> = q.split('"').skip(1).step_by(2).collect();
    assert!(quoted.len() <= 1, "{q}");
    for phrase in quoted {
        assert!(phrase.split_whitespace().count() <= 6, "{q}");
        let phrase = phrase.trim_end_matches('…');
        assert!(
            group.iter().any(|c| c.answer.contains(phrase)),
            "quotes the answer: {q}"
        );
    }
    let about_gap = r.skill_gaps.iter().any(|g| q.contains(g.as_str()));
    let about_missing = group.iter().any(|c| {
        c.score.composite_score < STRONG
            && c.score.evidence.as_ref().is_some_and(|ev| {
                ev.missing
                    .iter()
                    .any(|e| q.to_lowercase().ends_with(&e.follow_up().to_lowercase()))
            })
    });
    let fallback = !group
        .iter()
        .any(|c| c.score.composite_score < STRONG && !c.score.weaknesses.is_empty());
    assert!(about_gap || about_missing || fallback, "{q}");
}

#[test]
fn no_report_of_the_labelled_set_contradicts_itself() {
    let cases = cases();
    let mut groups: Vec<Vec<&Case>> = cases.iter().map(|c| vec![c]).collect();
    let mut keys: Vec<&str> = cases.iter().map(|c| c.job_key.as_str()).collect();
    keys.dedup();
    for k in keys {
        let all: Vec<&Case> = cases.iter().filter(|c| c.job_key == k).collect();
        for label in 0..=2 {
            let one: Vec<&Case> = all.iter().copied().filter(|c| c.label == label).collect();
            if !one.is_empty() {
                groups.push(one);
            }
        }
        groups.push(all);
    }
    for g in &groups {
        let r = build(g);
        check(&r, g);
    }
}

#[test]
fn the_issue_interview_is_recommended_and_praised_once() {
    let cases = cases();
    let issue: Vec<&Case> = cases
        .iter()
        .filter(|c| c.job_key == "backend-senior" && c.label == 2)
        .take(3)
        .collect();
    let r = build(&issue);
    println!("{r:#?}");
    assert!(r.overall_score >= STRONG, "{r:#?}");
    assert!(
        matches!(r.recommendation.as_str(), "hire" | "strong_hire"),
        "{r:#?}"
    );
    assert!(
        !r.improvements.iter().any(|i| i.contains("concrete")),
        "{r:#?}"
    );
}
