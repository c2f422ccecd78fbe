//! The report as a PDF (A4, built-in Helvetica). Built-in PDF fonts cover Latin-1 only, so
//! other characters are replaced by `?` rather than dropped silently.

use printpdf::{
    BuiltinFont, Color, Mm, Op, PaintMode, PdfDocument, PdfFontHandle, PdfPage, PdfSaveOptions,
    Point, Pt, Rect, Rgb, TextItem,
};
use switchboard_actors::interview::Report;

const PAGE_W: f32 = 210.0;
const PAGE_H: f32 = 297.0;
const MARGIN: f32 = 18.0;
/// Score bars: where the bar starts after its label, and its length at 100/100 (mm).
const BAR_X: f32 = MARGIN + 38.0;
const BAR_W: f32 = 100.0;
const BAR_H: f32 = 3.6;

struct Writer {
    pages: Vec<PdfPage>,
    ops: Vec<Op>,
    y: f32,
}

/// Text the built-in fonts can show (Latin-1); anything else becomes `?`.
pub(crate) fn latin1(s: &str) -> String {
    s.chars()
        .map(|c| {
            if (c as u32) < 256 && !c.is_control() {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// Greedy word wrap to `width` characters (Helvetica averages ~0.5 em per character).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

impl Writer {
    fn new() -> Self {
        Self {
            pages: Vec::new(),
            ops: Vec::new(),
            y: PAGE_H - MARGIN,
        }
    }

    fn break_page(&mut self) {
        let ops = std::mem::take(&mut self.ops);
        self.pages.push(PdfPage::new(Mm(PAGE_W), Mm(PAGE_H), ops));
        self.y = PAGE_H - MARGIN;
    }

    fn line(&mut self, text: &str, size: f32, bold: bool) {
        let height = size * 0.3528 * 1.45; // points to mm, with leading
        if self.y - height < MARGIN {
            self.break_page();
        }
        self.y -= height;
        let font = if bold {
            BuiltinFont::HelveticaBold
        } else {
            BuiltinFont::Helvetica
        };
        self.ops.extend([
            Op::StartTextSection,
            Op::SetFont {
                font: PdfFontHandle::Builtin(font),
                size: Pt(size),
            },
            Op::SetTextCursor {
                pos: Point::new(Mm(MARGIN), Mm(self.y)),
            },
            Op::ShowText {
                items: vec![TextItem::Text(latin1(text))],
            },
            Op::EndTextSection,
        ]);
    }

    fn paragraph(&mut self, text: &str) {
        for l in wrap(text, 95) {
            self.line(&l, 10.0, false);
        }
    }

    fn heading(&mut self, text: &str) {
        self.y -= 3.0;
        self.line(text, 13.0, true);
    }

    /// One bulleted list from several sources; "None noted." only when all are empty.
    fn bullets(&mut self, lists: &[&[String]]) {
        let mut shown: Vec<&str> = Vec::new();
        for item in lists.iter().flat_map(|l| l.iter()) {
            // The analysis repeats a summary line with its answer count; print it once.
            if shown.iter().any(|s| item.starts_with(s)) {
                continue;
            }
            shown.push(item);
            for (i, l) in wrap(item, 90).into_iter().enumerate() {
                let prefix = if i == 0 { "- " } else { "  " };
                self.line(&format!("{prefix}{l}"), 10.0, false);
            }
        }
        if shown.is_empty() {
            self.paragraph("None noted.");
        }
    }

    fn fill(&mut self, gray: f32, x: f32, y: f32, width: f32) {
        self.ops.extend([
            Op::SetFillColor {
                col: Color::Rgb(Rgb::new(gray, gray, gray, None)),
            },
            Op::DrawRectangle {
                rectangle: Rect {
                    mode: Some(PaintMode::Fill),
                    ..Rect::from_xywh(
                        Mm(x).into(),
                        Mm(y).into(),
                        Mm(width).into(),
                        Mm(BAR_H).into(),
                    )
                },
            },
        ]);
    }

    /// A labelled bar: a light track for 100 and a dark bar for `value`, then the number.
    fn bar(&mut self, name: &str, value: f64) {
        self.line(name, 10.0, false);
        let y = self.y;
        let v = value.clamp(0.0, 100.0) as f32;
        self.ops.push(Op::SaveGraphicsState);
        self.fill(0.88, BAR_X, y, BAR_W);
        self.fill(0.25, BAR_X, y, BAR_W * v / 100.0);
        self.ops.push(Op::RestoreGraphicsState);
        self.ops.extend([
            Op::StartTextSection,
            Op::SetFont {
                font: PdfFontHandle::Builtin(BuiltinFont::Helvetica),
                size: Pt(10.0),
            },
            Op::SetTextCursor {
                pos: Point::new(Mm(BAR_X + BAR_W + 3.0), Mm(y)),
            },
            Op::ShowText {
                items: vec![TextItem::Text(format!("{value:.1}/100"))],
            },
            Op::EndTextSection,
        ]);
    }
}

pub fn render(r: &Report) -> Vec<u8> {
    let mut w = Writer::new();
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
    w.heading("Scores");
    for (name, v) in [
        ("Technical", r.scores.technical),
        ("Communication", r.scores.communication),
        ("Problem solving", r.scores.problem_solving),
        ("Cultural fit", r.scores.cultural_fit),
    ] {
        w.bar(name, v);
    }
    w.heading("Executive summary");
    w.paragraph(&r.executive_summary);
    w.heading("Strengths");
    w.bullets(&[&r.strengths, &r.strengths_analysis]);
    w.heading("Areas to improve");
    w.bullets(&[&r.improvements, &r.weaknesses_analysis]);
    w.heading("Technical assessment");
    w.paragraph(&r.technical_assessment);
    w.heading("Behavioural assessment");
    w.paragraph(&r.behavioral_assessment);
    w.heading("Demonstrated skills");
    w.bullets(&[&r.demonstrated_skills]);
    w.heading("Skill gaps");
    w.bullets(&[&r.skill_gaps]);
    w.heading("Highlights");
    let highlights: Vec<String> = r
        .interview_highlights
        .iter()
        .map(|h| format!("{} - \"{}\"", h.question, h.highlight))
        .collect();
    w.bullets(&[&highlights]);
    w.heading("Red flags");
    w.bullets(&[&r.red_flags]);
    w.heading("Follow-up questions");
    w.bullets(&[&r.follow_up_questions]);
    w.break_page();

    let mut doc = PdfDocument::new(&latin1(&format!("Interview report - {}", r.candidate_name)));
    let mut warnings = Vec::new();
    doc.with_pages(w.pages)
        .save(&PdfSaveOptions::default(), &mut warnings)
}
