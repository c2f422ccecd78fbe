//! The built-in verifier: the subscription's key frames are looked for in the picture
//! (`video_match`), and Debian's tesseract reads the code where the found frame carries it
//! (its box, enlarged and inverted to dark on light), else anywhere in the picture.

use super::video_match::{self, KeyFrames, Located};
use super::{
    decode, DetailPrint, Evidence, Finding, ProofRequest, ScreenshotSettings, Verdict, VideoRef,
};
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
/// automatic layout, then sparse text (scattered UI labels). (A third, one uniform block,
/// found nothing more on the labelled set and cost a p99 of 1.8 s.)
const PICTURE_MODES: [&str; 2] = ["3", "11"];
/// … for the found frame: sparse text, then one block.
const FRAME_MODES: [&str; 2] = ["11", "6"];
/// … and for the code's box: one line, then one block.
const BOX_MODES: [&str; 2] = ["7", "6"];

/// One thread per pass: tesseract's OpenMP threads cost more than they give on small
/// pictures (a pass took 0.27 s with them, 0.11 s without, on this 2-core machine).
const OCR_ENV: &[(&str, &str)] = &[("OMP_THREAD_LIMIT", "1")];

/// Pictures and frames are read with their shorter side scaled to this: small ones
/// enlarged (OCR reads small text badly), phone-sized ones shrunk a little (a pass costs
/// time in proportion to pixels; codes and captions stay 30 px and more).
const OCR_SHORT_SIDE: u32 = 720;
/// What the code's box may be read as: the referral and tag alphabets and the hyphen.
const CODE_CHARACTERS: &str = "tessedit_char_whitelist=ABCDEFGHJKMNPQRSTUVWXYZ23456789-";
/// The code's box is read at this height (its text about 60 % of it).
const BOX_HEIGHT: u32 = 110;

/// The picture, decoded and grey, and what matching found in it.
struct Looked {
    grey: GrayImage,
    located: Option<Located>,
    /// Why there was nothing to look for (no or unreadable key frames).
    frames_note: Option<String>,
    print: DetailPrint,
}

/// Decodes the picture and looks for the video in it; `min_score` decides what the print is
/// of (where the code is on a found video, else the whole picture).
fn look(req: &ProofRequest, min_score: f32) -> Result<Looked, String> {
    let (_, img) = decode(&req.image).map_err(|e| e.to_string())?;
    let grey = img.into_luma8();
    let (located, frames_note) = match req.video.as_ref().map(VideoRef::frames) {
        None => (
            None,
            Some("the subscription's video has no key frames".to_owned()),
        ),
        Some(Err(e)) => (None, Some(format!("unreadable key frames: {e}"))),
        Some(Ok(frames)) => {
            let key = KeyFrames {
                frames: frames.into_iter().map(|f| f.into_luma8()).collect(),
                code_box: req.video.as_ref().and_then(|v| v.code_box),
            };
            (video_match::locate(&grey, &key), None)
        }
    };
    let code_at = located
        .as_ref()
        .filter(|l| l.score >= min_score)
        .map(|l| l.code_rect.unwrap_or(l.rect));
    Ok(Looked {
        print: DetailPrint::of(&grey, code_at),
        grey,
        located,
        frames_note,
    })
}

/// PNG of `img` for tesseract: grey, its shorter side scaled to [`OCR_SHORT_SIDE`].
fn picture_png(img: &GrayImage) -> Result<Vec<u8>, String> {
    let short = img.width().min(img.height()).max(1);
    png(&scaled(img, OCR_SHORT_SIDE as f32 / short as f32))
}

/// PNG of the code's box for tesseract: dark text on white (the box is white on black),
/// thresholded, [`BOX_HEIGHT`] tall, with a white margin.
fn box_png(img: &GrayImage) -> Result<Vec<u8>, String> {
    let mut grey = scaled(img, BOX_HEIGHT as f32 / img.height().max(1) as f32);
    let mean = grey.as_raw().iter().map(|&v| u64::from(v)).sum::<u64>()
        / (grey.as_raw().len().max(1) as u64);
    for p in grey.pixels_mut() {
        let light = p[0] > 128;
        // The text is the minority: light text in a dark box, or dark on light.
        let text = if mean < 128 { light } else { !light };
        p[0] = if text { 0 } else { 255 };
    }
    let margin = BOX_HEIGHT / 5;
    let mut padded = GrayImage::from_pixel(
        grey.width() + 2 * margin,
        grey.height() + 2 * margin,
        image::Luma([255]),
    );
    image::imageops::replace(&mut padded, &grey, i64::from(margin), i64::from(margin));
    png(&padded)
}

fn scaled(img: &GrayImage, factor: f32) -> GrayImage {
    let factor = factor.clamp(0.5, 4.0);
    if (factor - 1.0).abs() < 0.02 {
        return img.clone();
    }
    let w = ((img.width() as f32 * factor).round() as u32).max(1);
    let h = ((img.height() as f32 * factor).round() as u32).max(1);
    image::imageops::resize(img, w, h, image::imageops::FilterType::CatmullRom)
}

fn png(img: &GrayImage) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    DynamicImage::ImageLuma8(img.clone())
        .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// `prepare`d in the blocking pool.
async fn prepared(
    img: GrayImage,
    prepare: fn(&GrayImage) -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    tokio::task::spawn_blocking(move || prepare(&img))
        .await
        .map_err(|e| e.to_string())?
}

fn cut(img: &GrayImage, r: video_match::Rect) -> GrayImage {
    image::imageops::crop_imm(img, r.x, r.y, r.w, r.h).to_image()
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
        // The code's box holds nothing but a code: only its characters may be read there.
        let only_code = modes == BOX_MODES;
        for psm in modes {
            let mut args = vec!["stdin", "stdout", "--psm", psm, "-l", &self.lang];
            if only_code {
                args.extend(["-c", CODE_CHARACTERS]);
            }
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
        let mut evidence = Evidence::new("builtin", &req.code);
        let code = req.code.clone();
        let unsure = |mut evidence: Evidence, why: String| {
            evidence.note = Some(why.clone());
            evidence.elapsed_ms = started.elapsed().as_millis() as u64;
            Verdict {
                finding: Finding::Unsure(why),
                evidence,
                print: None,
            }
        };
        let min_score = self.video_min_score;
        let looked = match tokio::task::spawn_blocking(move || look(&req, min_score)).await {
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
        let mut elsewhere = false;
        if let Some(l) = found {
            // Where the found video carries the code: its box (when known), then anywhere
            // in the frame; either way the box must look like this subscription's.
            let box_alike = l
                .code_box_score
                .is_none_or(|s| s >= self.code_box_min_score);
            let (w, h) = looked.grey.dimensions();
            let mut tries = Vec::new();
            if let Some(r) = l.code_rect {
                tries.push((
                    cut(&looked.grey, r.grown(0.04, w, h)),
                    box_png as fn(&GrayImage) -> Result<Vec<u8>, String>,
                    &BOX_MODES[..],
                    "code_box",
                ));
            }
            tries.push((
                cut(&looked.grey, l.rect),
                picture_png,
                &FRAME_MODES[..],
                "frame",
            ));
            for (img, prepare, modes, place) in tries {
                let read = match prepared(img, prepare).await {
                    Ok(png) => self.read(png, modes, &code).await,
                    Err(e) => Err(e),
                };
                match read {
                    Ok((text, hit)) => {
                        texts.push(text);
                        if hit {
                            evidence.code_found_in = Some(place.into());
                            evidence.code_matched = box_alike;
                            break;
                        }
                    }
                    Err(e) => return unsure(evidence, e),
                }
            }
        } else {
            // No video: the whole picture, to tell "code but no video" from "neither".
            let read = match prepared(looked.grey.clone(), picture_png).await {
                Ok(png) => self.read(png, &PICTURE_MODES, &code).await,
                Err(e) => Err(e),
            };
            match read {
                Ok((text, hit)) => {
                    texts.push(text);
                    if hit {
                        elsewhere = true;
                        evidence.code_found_in = Some("picture".into());
                    }
                }
                Err(e) => return unsure(evidence, e),
            }
        }
        evidence.ocr_text = Some(texts.join("\n---\n")).filter(|t| !t.trim().is_empty());
        let finding = match &looked.frames_note {
            // Nothing to look for: the picture cannot be judged "not your video".
            Some(why) => Finding::Unsure(why.clone()),
            None => Finding::of(evidence.video_found, evidence.code_matched || elsewhere),
        };
        evidence.elapsed_ms = started.elapsed().as_millis() as u64;
        Verdict {
            finding,
            print: Some(looked.print),
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
