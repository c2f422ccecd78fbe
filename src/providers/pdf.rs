//! PDF documents (A4) of text lines, wrapped paragraphs and filled bars, written in embedded
//! Unicode fonts (`[providers.pdf]`): DejaVu Sans first, then fallbacks for the scripts it
//! lacks (Chinese, Japanese and Korean; Devanagari), each character in the first font that
//! has it, so a name in any of them prints and is read back as typed. Only the glyphs used
//! are embedded. With no font file readable, the built-in Helvetica prints Latin-1 and `?`
//! for the rest, as the interview reports and invoices did before.

use printpdf::{
    BuiltinFont, Color, FontId, Mm, Op, PaintMode, ParsedFont, PdfDocument, PdfFontHandle, PdfPage,
    PdfSaveOptions, Point, Pt, Rect, Rgb, TextItem,
};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

pub const PAGE_W: f32 = 210.0;
pub const PAGE_H: f32 = 297.0;
pub const MARGIN: f32 = 18.0;
/// Points to millimetres.
const PT: f32 = 0.3528;

/// `[providers.pdf]`: the font files, tried in order for each character.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct PdfSettings {
    /// Regular faces: the first that has a character prints it.
    pub fonts: Vec<String>,
    /// The bold face (headings); characters it lacks come from `fonts`.
    pub bold_font: String,
}

impl Default for PdfSettings {
    fn default() -> Self {
        // Debian's fonts-dejavu-core, fonts-droid-fallback and fonts-lohit-deva.
        Self {
            fonts: vec![
                "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf".into(),
                "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf".into(),
                "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf".into(),
            ],
            bold_font: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf".into(),
        }
    }
}

/// The fonts of every document this process writes, read once on first use.
pub struct PdfWriter {
    settings: PdfSettings,
    faces: OnceLock<Faces>,
}

struct Faces {
    regular: Vec<ParsedFont>,
    bold: Option<ParsedFont>,
}

/// Which face prints a run of text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Face {
    Bold,
    Regular(usize),
    /// No font file could be read.
    Builtin {
        bold: bool,
    },
}

fn read_face(path: &str) -> Option<ParsedFont> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(path, error = %e, "PDF font not readable; skipped");
            return None;
        }
    };
    let face = ParsedFont::from_bytes(&bytes, 0, &mut Vec::new());
    if face.is_none() {
        tracing::warn!(path, "PDF font not parseable; skipped");
    }
    face
}

impl PdfWriter {
    pub fn new(settings: &PdfSettings) -> Self {
        Self {
            settings: settings.clone(),
            faces: OnceLock::new(),
        }
    }

    fn faces(&self) -> &Faces {
        self.faces.get_or_init(|| Faces {
            regular: self
                .settings
                .fonts
                .iter()
                .filter_map(|p| read_face(p))
                .collect(),
            bold: Some(&self.settings.bold_font)
                .filter(|p| !p.is_empty())
                .and_then(|p| read_face(p)),
        })
    }

    /// A new document titled `title`, its first page begun. CPU work: callers run it off the
    /// async executor.
    pub fn document(&self, title: &str) -> Document<'_> {
        let faces = self.faces();
        let title = if faces.regular.is_empty() {
            latin1(title)
        } else {
            title.to_owned()
        };
        Document {
            faces,
            doc: PdfDocument::new(&title),
            ids: HashMap::new(),
            pages: Vec::new(),
            ops: Vec::new(),
            y: PAGE_H - MARGIN,
        }
    }
}

/// Text the built-in fonts can show (Latin-1); anything else becomes `?`.
fn latin1(s: &str) -> String {
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

/// A document being written, top to bottom; `y` is the baseline of the last line (mm from
/// the bottom of the page).
pub struct Document<'a> {
    faces: &'a Faces,
    doc: PdfDocument,
    ids: HashMap<Face, FontId>,
    pages: Vec<PdfPage>,
    ops: Vec<Op>,
    y: f32,
}

impl Faces {
    fn font(&self, face: Face) -> Option<&ParsedFont> {
        match face {
            Face::Bold => self.bold.as_ref(),
            Face::Regular(i) => self.regular.get(i),
            Face::Builtin { .. } => None,
        }
    }

    fn has(&self, face: Face, c: char) -> bool {
        self.font(face)
            .is_some_and(|f| f.lookup_glyph_index(c as u32).is_some())
    }

    /// The face that prints `c`: the current one when it can (spaces and combining marks stay
    /// with their run), else the first that has it, else the first face (its empty box).
    fn face_for(&self, c: char, bold: bool, current: Option<Face>) -> Face {
        if let Some(f) = current.filter(|&f| self.has(f, c)) {
            return f;
        }
        if self.regular.is_empty() {
            return Face::Builtin { bold };
        }
        if bold && self.has(Face::Bold, c) {
            return Face::Bold;
        }
        (0..self.regular.len())
            .map(Face::Regular)
            .find(|&f| self.has(f, c))
            .unwrap_or(if bold && self.bold.is_some() {
                Face::Bold
            } else {
                Face::Regular(0)
            })
    }

    /// `text` cut into runs, each printed by one face.
    fn runs(&self, text: &str, bold: bool) -> Vec<(Face, String)> {
        let mut runs: Vec<(Face, String)> = Vec::new();
        for c in text.chars().filter(|c| !c.is_control()) {
            let face = self.face_for(c, bold, runs.last().map(|r| r.0));
            match runs.last_mut() {
                Some((f, run)) if *f == face => run.push(c),
                _ => runs.push((face, c.to_string())),
            }
        }
        if let Some(Face::Builtin { .. }) = runs.first().map(|r| r.0) {
            for (_, run) in &mut runs {
                *run = latin1(run);
            }
        }
        runs
    }

    /// How wide `text` prints at `size` points, in mm.
    fn width(&self, text: &str, size: f32, bold: bool) -> f32 {
        let em: f32 = self
            .runs(text, bold)
            .iter()
            .map(|(face, run)| match self.font(*face) {
                Some(f) => {
                    let units = f32::from(f.units_per_em.max(1));
                    run.chars()
                        .map(|c| {
                            let gid = f.lookup_glyph_index(c as u32).unwrap_or(0);
                            f32::from(f.get_glyph_width(gid).unwrap_or(0)) / units
                        })
                        .sum::<f32>()
                }
                // Helvetica averages about half an em.
                None => run.chars().count() as f32 * 0.5,
            })
            .sum();
        em * size * PT
    }
}

impl Document<'_> {
    /// The baseline of the last line, in mm from the bottom.
    pub fn y(&self) -> f32 {
        self.y
    }

    pub fn gap(&mut self, mm: f32) {
        self.y -= mm;
    }

    pub fn break_page(&mut self) {
        let ops = std::mem::take(&mut self.ops);
        self.pages.push(PdfPage::new(Mm(PAGE_W), Mm(PAGE_H), ops));
        self.y = PAGE_H - MARGIN;
    }

    fn handle(&mut self, face: Face) -> PdfFontHandle {
        match (face, self.faces.font(face)) {
            (Face::Builtin { bold: true }, _) | (_, None) => {
                PdfFontHandle::Builtin(BuiltinFont::HelveticaBold)
            }
            (Face::Builtin { bold: false }, _) => PdfFontHandle::Builtin(BuiltinFont::Helvetica),
            (_, Some(font)) => {
                let doc = &mut self.doc;
                let id = self.ids.entry(face).or_insert_with(|| doc.add_font(font));
                PdfFontHandle::External(id.clone())
            }
        }
    }

    /// `text` on one line with its baseline at (`x`, `y`) mm.
    pub fn text_at(&mut self, x: f32, y: f32, text: &str, size: f32, bold: bool) {
        self.ops.extend([
            Op::StartTextSection,
            Op::SetTextCursor {
                pos: Point::new(Mm(x), Mm(y)),
            },
        ]);
        // Each run continues where the one before it ended (the text position advances).
        for (face, run) in self.faces.runs(text, bold) {
            let font = self.handle(face);
            self.ops.extend([
                Op::SetFont {
                    font,
                    size: Pt(size),
                },
                Op::ShowText {
                    items: vec![TextItem::Text(run)],
                },
            ]);
        }
        self.ops.push(Op::EndTextSection);
    }

    /// The next line at the left margin, on a new page when this one is full.
    pub fn line(&mut self, text: &str, size: f32, bold: bool) {
        let height = size * PT * 1.45; // with leading
        if self.y - height < MARGIN {
            self.break_page();
        }
        self.y -= height;
        self.text_at(MARGIN, self.y, text, size, bold);
    }

    /// `text` cut into lines no wider than `width` mm, at word boundaries (a word wider than
    /// the line stands alone).
    pub fn wrap(&self, text: &str, size: f32, width: f32) -> Vec<String> {
        let mut lines = Vec::new();
        let mut line = String::new();
        for word in text.split_whitespace() {
            let candidate = if line.is_empty() {
                word.to_owned()
            } else {
                format!("{line} {word}")
            };
            if !line.is_empty() && self.faces.width(&candidate, size, false) > width {
                lines.push(std::mem::replace(&mut line, word.to_owned()));
            } else {
                line = candidate;
            }
        }
        if !line.is_empty() {
            lines.push(line);
        }
        lines
    }

    /// `text` wrapped to the page's width, a line each.
    pub fn paragraph(&mut self, text: &str, size: f32) {
        for l in self.wrap(text, size, PAGE_W - 2.0 * MARGIN) {
            self.line(&l, size, false);
        }
    }

    /// A filled rectangle of gray `gray` (0 black, 1 white), `x`, `y`, `w`, `h` in mm.
    pub fn fill(&mut self, gray: f32, x: f32, y: f32, w: f32, h: f32) {
        self.ops.extend([
            Op::SaveGraphicsState,
            Op::SetFillColor {
                col: Color::Rgb(Rgb::new(gray, gray, gray, None)),
            },
            Op::DrawRectangle {
                rectangle: Rect {
                    mode: Some(PaintMode::Fill),
                    ..Rect::from_xywh(Mm(x).into(), Mm(y).into(), Mm(w).into(), Mm(h).into())
                },
            },
            Op::RestoreGraphicsState,
        ]);
    }

    /// The finished file: the fonts carry only the glyphs used.
    pub fn finish(mut self) -> Vec<u8> {
        if !self.ops.is_empty() || self.pages.is_empty() {
            self.break_page();
        }
        let mut warnings = Vec::new();
        self.doc
            .with_pages(self.pages)
            .save(&PdfSaveOptions::default(), &mut warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_fonts() -> PdfWriter {
        PdfWriter::new(&PdfSettings {
            fonts: vec!["/nonexistent/a.ttf".into()],
            bold_font: String::new(),
        })
    }

    #[test]
    fn without_fonts_latin1_prints_and_the_rest_is_marked() {
        let w = no_fonts();
        let runs = w.faces().runs("Zoë 王", false);
        assert_eq!(
            runs,
            vec![(Face::Builtin { bold: false }, "Zoë ?".to_owned())]
        );
    }

    #[test]
    fn wrapping_keeps_words_whole_and_lines_within_the_width() {
        let w = no_fonts();
        let d = w.document("t");
        let text = "one two three four five six seven eight nine ten";
        let lines = d.wrap(text, 10.0, 30.0);
        assert!(lines.len() > 1, "{lines:?}");
        assert_eq!(lines.join(" "), text);
        for l in &lines {
            assert!(
                d.faces.width(l, 10.0, false) <= 30.0 || !l.contains(' '),
                "{l}"
            );
        }
    }
}
