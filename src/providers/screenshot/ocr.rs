//! The built-in verifier: the subscription's key frames are looked for in the picture
//! (`video_match`), and Debian's tesseract reads the code where the found frame carries it
//! (its box, enlarged and inverted to dark on light), else anywhere in the picture.

use super::video_match::{self, KeyFrames, Located};
use super::{decode, Evidence, Finding, ProofRequest, ScreenshotSettings, Verdict};
use crate::providers::tool;
use async_trait::async_trait;
use image::{DynamicImage, GrayImage, ImageFormat};
use std::io::Cursor;
use std::time::{Duration, Instant};

pub struct TesseractVerifier {
    program: String,
    lang: String,
    timeout: Duration,
    video_min_score: f32,
    code_box_min_score: f32,
}

impl TesseractVerifier {
    pub fn new(s: &ScreenshotSettings) -> Self {
        Self {
            program: s.tesseract_path.clone(),
            lang: s.tesseract_lang.clone(),
            timeout: Duration::from_secs(s.timeout_secs.max(1)),
            video_min_score: s.video_min_score,
            code_box_min_score: s.code_box_min_score,
        }
    }
}

/// Page segmentation modes for a whole picture, tried in turn until one reads the code:
/// automatic layout, then sparse text (scattered UI labels), then one uniform block.
const PICTURE_MODES: [&str; 3] = ["3", "11", "6"];
/// … and for the code's box: one line, then one block.
const BOX_MODES: [&str; 2] = ["7", "6"];

/// One thread per pass: tesseract's OpenMP threads cost more than they give on small
/// pictures (a pass took 0.27 s with them, 0.11 s without, on this 2-core machine).
const OCR_ENV: &[(&str, &str)] = &[("OMP_THREAD_LIMIT", "1")];

/// OCR reads small text badly: pictures are enlarged until their shorter side reaches this.
const OCR_MIN_SHORT_SIDE: u32 = 1000;
/// The code's box is read at this height (its text about 60 % of it).
const BOX_HEIGHT: u32 = 110;

/// The picture, decoded and grey, and what matching found in it.
struct Looked {
    grey: GrayImage,
    located: Option<Located>,
    frames_note: Option<String>,
}

fn look(req: &ProofRequest) -> Result<Looked, String> {
    let (_, img) = decode(&req.image).map_err(|e| e.to_string())?;
    let grey = img.into_luma8();
    let Some(video) = &req.video else {
        return Ok(Looked {
            grey,
            located: None,
            frames_note: Some("the subscription's video has no key frames".into()),
        });
    };
    let frames = match video.frames() {
        Ok(f) => f,
        Err(e) => {
            return Ok(Looked {
                grey,
                located: None,
                frames_note: Some(format!("unreadable key frames: {e}")),
            })
        }
    };
    let key = KeyFrames {
        frames: frames.into_iter().map(|f| f.into_luma8()).collect(),
        code_box: video.code_box,
    };
    let located = video_match::locate(&grey, &key);
    Ok(Looked {
        grey,
        located,
        frames_note: None,
    })
}

/// PNG of `img` as tesseract should see it: grey, dark text on light, enlarged so its height
/// (or shorter side) reaches `min`.
fn ocr_png(
    img: &GrayImage,
    min: u32,
    by_height: bool,
    invert_dark: bool,
) -> Result<Vec<u8>, String> {
    let mut grey = img.clone();
    if invert_dark {
        let mean = grey.as_raw().iter().map(|&v| u64::from(v)).sum::<u64>()
            / (grey.as_raw().len().max(1) as u64);
        if mean < 128 {
            image::imageops::invert(&mut grey);
        }
    }
    let side = if by_height {
        grey.height()
    } else {
        grey.width().min(grey.height())
    }
    .max(1);
    let factor = (min as f32 / side as f32).clamp(1.0, 4.0);
    if factor > 1.01 {
        let (w, h) = (
            (grey.width() as f32 * factor).round() as u32,
            (grey.height() as f32 * factor).round() as u32,
        );
        grey = image::imageops::resize(&grey, w, h, image::imageops::FilterType::CatmullRom);
    }
    let mut png = Vec::new();
    DynamicImage::ImageLuma8(grey)
        .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(png)
}

impl TesseractVerifier {
    /// Reads `png` with each mode until the text shows `code`; answers every text read and
    /// whether it was found.
    async fn read(
        &self,
        png: Vec<u8>,
        modes: &[&str],
        code: &str,
    ) -> Result<(String, bool), String> {
        let mut texts = Vec::new();
        for psm in modes {
            let args = ["stdin", "stdout", "--psm", psm, "-l", &self.lang];
            let out = tool::run(
                &self.program,
                args,
                OCR_ENV,
                Some(png.clone()),
                self.timeout,
            )
            .await
            .map_err(|e| format!("OCR failed: {e}"))?;
            let text = String::from_utf8_lossy(&out).trim().to_owned();
            let found = text_shows_code(&text, code);
            texts.push(text);
            if found {
                return Ok((texts.join("\n"), true));
            }
        }
        Ok((texts.join("\n"), false))
    }
}

#[async_trait]
impl super::ScreenshotVerifier for TesseractVerifier {
    async fn verify(&self, req: ProofRequest) -> Verdict {
        let started = Instant::now();
        let mut evidence = Evidence {
            verifier: "builtin".into(),
            expected_code: req.code.clone(),
            ..Evidence::default()
        };
        let code = req.code.clone();
        let unsure = |mut evidence: Evidence, why: String| {
            evidence.note = Some(why.clone());
            evidence.elapsed_ms = started.elapsed().as_millis() as u64;
            Verdict {
                finding: Finding::Unsure(why),
                evidence,
                code_rect: None,
            }
        };
        let looked = match tokio::task::spawn_blocking(move || look(&req)).await {
            Ok(Ok(l)) => l,
            Ok(Err(e)) => return unsure(evidence, format!("unreadable image: {e}")),
            Err(e) => return unsure(evidence, format!("image check failed: {e}")),
        };
        evidence.note = looked.frames_note.clone();
        let found = looked
            .located
            .as_ref()
            .filter(|l| l.score >= self.video_min_score);
        evidence.video_found = found.is_some();
        evidence.video = looked
            .located
            .as_ref()
            .and_then(|l| serde_json::to_value(l).ok());
        let mut texts = Vec::new();
        // Where the found video carries the code: its box, or the frame when the box is not
        // known (videos made before boxes were placed).
        if let Some(l) = found {
            let (part, in_box) = match l.code_rect {
                Some(r) => (
                    r.grown(0.15, looked.grey.width(), looked.grey.height()),
                    true,
                ),
                None => (l.rect, false),
            };
            let crop =
                image::imageops::crop_imm(&looked.grey, part.x, part.y, part.w, part.h).to_image();
            let prepared = tokio::task::spawn_blocking(move || {
                if in_box {
                    ocr_png(&crop, BOX_HEIGHT, true, true)
                } else {
                    ocr_png(&crop, OCR_MIN_SHORT_SIDE, false, false)
                }
            })
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r);
            let modes: &[&str] = if in_box { &BOX_MODES } else { &PICTURE_MODES };
            let read = match prepared {
                Ok(png) => self.read(png, modes, &code).await,
                Err(e) => Err(e),
            };
            match read {
                Ok((text, hit)) => {
                    texts.push(text);
                    let box_alike = l
                        .code_box_score
                        .is_none_or(|s| s >= self.code_box_min_score);
                    if hit && box_alike {
                        evidence.code_matched = true;
                        evidence.code_found_in =
                            Some(if in_box { "code_box" } else { "frame" }.into());
                    }
                }
                Err(e) => return unsure(evidence, e),
            }
        }
        // Not where the video carries it: the whole picture, for the evidence and to tell
        // "code but no video" from "neither".
        let mut elsewhere = false;
        if !evidence.code_matched {
            let grey = looked.grey.clone();
            let prepared = tokio::task::spawn_blocking(move || {
                ocr_png(&grey, OCR_MIN_SHORT_SIDE, false, false)
            })
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r);
            let read = match prepared {
                Ok(png) => self.read(png, &PICTURE_MODES, &code).await,
                Err(e) => Err(e),
            };
            match read {
                Ok((text, hit)) => {
                    texts.push(text);
                    if hit {
                        elsewhere = true;
                        if evidence.code_found_in.is_none() {
                            evidence.code_found_in = Some("picture".into());
                        }
                    }
                }
                Err(e) => return unsure(evidence, e),
            }
        }
        evidence.ocr_text = Some(texts.join("\n---\n")).filter(|t| !t.trim().is_empty());
        let finding = if evidence.video_found {
            Finding::of(true, evidence.code_matched)
        } else {
            Finding::of(false, elsewhere)
        };
        evidence.elapsed_ms = started.elapsed().as_millis() as u64;
        Verdict {
            finding,
            code_rect: found.and_then(|l| l.code_rect.or(Some(l.rect))),
            evidence,
        }
    }
}

/// Whether OCR'd `text` carries `code`, tolerant of OCR noise: case, spaces and punctuation
/// are ignored, glyphs OCR mistakes for one another count as the same (see [`glyph_class`]),
/// and a code of 8 or more characters may be one character off (substituted, dropped or
/// doubled). Codes use an alphabet without 0 O 1 I L; with the classes it still has 22
/// distinct symbols, so a random 8-character string lands within one edit of a given code
/// about once in 10^9.
pub fn text_shows_code(text: &str, code: &str) -> bool {
    let (text, code) = (squash(text), squash(code));
    if code.is_empty() {
        return false;
    }
    let allowed = usize::from(code.len() >= 8);
    min_substring_edits(&code, &text) <= allowed
}

/// Edits between two codes as OCR tells them apart (see [`text_shows_code`]): proof codes of
/// one poster are kept at least 3 apart, so a text within one edit of one is at least two
/// from every other.
pub fn code_distance(a: &str, b: &str) -> usize {
    let (a, b) = (squash(a), squash(b));
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for j in 1..=b.len() {
            let substitute = diagonal + usize::from(ca != b[j - 1]);
            diagonal = row[j];
            row[j] = substitute.min(row[j] + 1).min(row[j - 1] + 1);
        }
    }
    row[b.len()]
}

fn squash(s: &str) -> Vec<u8> {
    s.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| glyph_class(b.to_ascii_uppercase()))
        .collect()
}

/// One representative per set of glyphs tesseract confuses in bold sans text (measured over
/// 700 random codes drawn on screenshots and burnt into video frames: 9 read as O or Q, 6 as
/// O or G, 8 as S, 2 as Z), so a misread of that kind costs no edit.
fn glyph_class(upper: u8) -> u8 {
    match upper {
        b'0' | b'O' | b'Q' | b'D' | b'9' | b'6' | b'G' => b'O',
        b'8' | b'S' | b'B' | b'5' | b'3' => b'S',
        b'1' | b'I' | b'L' | b'J' => b'I',
        b'2' | b'Z' => b'Z',
        other => other,
    }
}

/// The fewest edits that turn `pattern` into some substring of `text` (Sellers' algorithm:
/// edit distance where the match may start and end anywhere in the text).
fn min_substring_edits(pattern: &[u8], text: &[u8]) -> usize {
    // column[i]: edits to match pattern[..i] ending at the current text position.
    let mut column: Vec<usize> = (0..=pattern.len()).collect();
    let mut best = column[pattern.len()];
    for &t in text {
        let mut diagonal = column[0];
        column[0] = 0;
        for i in 1..=pattern.len() {
            let substitute = diagonal + usize::from(pattern[i - 1] != t);
            diagonal = column[i];
            column[i] = substitute.min(column[i] + 1).min(column[i - 1] + 1);
        }
        best = best.min(column[pattern.len()]);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_as_far_apart_as_ocr_tells_them() {
        assert_eq!(code_distance("K7M9QX2P-ACEF", "K7M9QX2P-ACEF"), 0);
        assert_eq!(code_distance("K7M9QX2P-ACEF", "K7M9QX2P-ACEH"), 1);
        // Look-alike glyphs are one symbol.
        assert_eq!(code_distance("K7M9QX2P-AC8F", "K7M9QX2P-ACSF"), 0);
        assert_eq!(code_distance("K7M9QX2P-ACEF", "K7M9QX2P-CEFH"), 2);
        assert_eq!(code_distance("K7M9QX2P-ACEF", "K7M9QX2P-TUVW"), 4);
    }
}
