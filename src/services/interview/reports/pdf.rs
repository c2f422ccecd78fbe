//! The report as a PDF (A4), written by the providers' PDF writer in embedded Unicode fonts,
//! so a candidate's name prints in whatever script it is written in.

use crate::providers::pdf::{Document, PdfWriter, MARGIN, PAGE_W};
use switchboard_actors::interview::Report;

/// Score bars: where the bar starts after its label, and its length at 100/100 (mm).
const BAR_X: f32 = MARGIN + 38.0;
const BAR_W: f32 = 100.0;
const BAR_H: f32 = 3.6;
/// Body text, in points.
const BODY: f32 = 10.0;

fn heading(w: &mut Document<'_>, text: &str) {
    w.gap(3.0);
    w.line(text, 13.0, true);
}

/// One bulleted list from several sources; "None noted." only when all are empty.
fn bullets(w: &mut Document<'_>, lists: &[&[String]]) {
    let mut shown: Vec<&str> = Vec::new();
    // The text width less the bullet's indent (mm).
    let width = PAGE_W - 2.0 * MARGIN - 4.0;
    for item in lists.iter().flat_map(|l| l.iter()) {
        // The analysis repeats a summary line with its answer count; print it once.
        if shown.iter().any(|s| item.starts_with(s)) {
            continue;
        }
        shown.push(item);
        for (i, l) in w.wrap(item, BODY, width).into_iter().enumerate() {
            let prefix = if i == 0 { "- " } else { "  " };
            w.line(&format!("{prefix}{l}"), BODY, false);
        }
    }
    if shown.is_empty() {
        w.paragraph("None noted.", BODY);
    }
}

/// A labelled bar: a light track for 100 and a dark bar for `value`, then the number.
fn bar(w: &mut Document<'_>, name: &str, value: f64) {
    w.line(name, BODY, false);
    let y = w.y();
    let v = value.clamp(0.0, 100.0) as f32;
    w.fill(0.88, BAR_X, y, BAR_W, BAR_H);
    w.fill(0.25, BAR_X, y, BAR_W * v / 100.0, BAR_H);
    w.text_at(
        BAR_X + BAR_W + 3.0,
        y,
        &format!("{value:.1}/100"),
        BODY,
        false,
    );
}

pub fn render(pdf: &PdfWriter, r: &Report) -> Vec<u8> {
    let mut w = pdf.document(&format!("Interview report - {}", r.candidate_name));
    w.line("Interview report", 20.0, true);
    w.line(&format!("Candidate: {}", r.candidate_name), 12.0, false);
    w.line(&format!("Position: {}", r.job_title), 12.0, false);
    w.line(
        &format!(
            "Overall score: {:.1}/100   Grade: {}   Recommendation: {}",
            r.overall_score, r.grade, r.recommendation_label
        ),
        12.0,
        true,
    );
    w.line(
        &format!(
            "Questions answered: {}   Duration: {} min   Date: {}",
            r.questions_answered,
            r.duration_minutes,
            r.created_at.format("%Y-%m-%d %H:%M UTC")
        ),
        10.0,
        false,
    );
    heading(&mut w, "Scores");
    for (name, v) in [
        ("Technical", r.scores.technical),
        ("Communication", r.scores.communication),
        ("Problem solving", r.scores.problem_solving),
        ("Cultural fit", r.scores.cultural_fit),
    ] {
        bar(&mut w, name, v);
    }
    heading(&mut w, "Executive summary");
    w.paragraph(&r.executive_summary, BODY);
    heading(&mut w, "Strengths");
    bullets(&mut w, &[&r.strengths, &r.strengths_analysis]);
    heading(&mut w, "Areas to improve");
    bullets(&mut w, &[&r.improvements, &r.weaknesses_analysis]);
    heading(&mut w, "Technical assessment");
    w.paragraph(&r.technical_assessment, BODY);
    heading(&mut w, "Behavioural assessment");
    w.paragraph(&r.behavioral_assessment, BODY);
    heading(&mut w, "Demonstrated skills");
    bullets(&mut w, &[&r.demonstrated_skills]);
    heading(&mut w, "Skill gaps");
    bullets(&mut w, &[&r.skill_gaps]);
    heading(&mut w, "Highlights");
    let highlights: Vec<String> = r
        .interview_highlights
        .iter()
        .map(|h| format!("{} - \"{}\"", h.question, h.highlight))
        .collect();
    bullets(&mut w, &[&highlights]);
    heading(&mut w, "Red flags");
    bullets(&mut w, &[&r.red_flags]);
    heading(&mut w, "Follow-up questions");
    bullets(&mut w, &[&r.follow_up_questions]);
    w.finish()
}
