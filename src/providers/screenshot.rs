//! Screenshots posters send as proof: what the image is (format by content, size, a
//! perceptual hash to spot re-submissions) and a verifier port that looks for the poster's
//! referral code in it. Built in: Debian's tesseract OCR; optionally an OpenAI-compatible
//! vision model on the `[ai]` settings.

use super::openai_chat::{json_in, ChatClient};
use super::settings::AiSettings;
use super::tool;
use async_trait::async_trait;
use base64::Engine;
use image::{DynamicImage, GenericImageView, ImageFormat, ImageReader};
use serde::Deserialize;
use std::io::Cursor;
use std::sync::Arc;
use std::time::Duration;

/// `[providers.screenshots]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ScreenshotSettings {
    /// `builtin` (tesseract OCR) or `openai` (a vision chat on the `[ai]` settings).
    pub verifier: String,
    pub tesseract_path: String,
    /// Tesseract's language data to read with.
    pub tesseract_lang: String,
    /// Longest one OCR pass may run.
    pub timeout_secs: u64,
    /// The vision model's answer counts only at this confidence (0 to 1) or above.
    pub min_confidence: f64,
    /// Hashes at most this many bits apart are the same picture (see `is_duplicate`).
    pub duplicate_max_distance: u32,
}

impl Default for ScreenshotSettings {
    fn default() -> Self {
        Self {
            verifier: "builtin".into(),
            tesseract_path: "tesseract".into(),
            tesseract_lang: "eng".into(),
            timeout_secs: 30,
            min_confidence: 0.8,
            duplicate_max_distance: 4,
        }
    }
}

/// The formats a screenshot may come in, judged by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenshotFormat {
    Png,
    Jpeg,
    Webp,
}

impl ScreenshotFormat {
    /// The format the bytes start like, whatever name or type the upload claimed.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(Self::Webp)
        } else {
            None
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Webp => "image/webp",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Webp => "webp",
        }
    }

    fn image_format(self) -> ImageFormat {
        match self {
            Self::Png => ImageFormat::Png,
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Webp => ImageFormat::WebP,
        }
    }
}

/// A 64-bit difference hash (dHash): the picture shrunk to 9×8 grey pixels, one bit per
/// pair of horizontal neighbours (set when the left one is brighter). Re-encoding, resizing
/// and small edits move few bits; different pictures differ in about half of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PerceptualHash(pub u64);

impl PerceptualHash {
    /// Bits in which the two hashes differ (0 to 64).
    pub fn distance(self, other: Self) -> u32 {
        hamming(self.0, other.0)
    }

    /// The hash as a signed integer, for a BIGINT column (bits unchanged).
    pub fn to_i64(self) -> i64 {
        i64::from_ne_bytes(self.0.to_ne_bytes())
    }

    pub fn from_i64(v: i64) -> Self {
        Self(u64::from_ne_bytes(v.to_ne_bytes()))
    }

    /// Sixteen hex digits.
    pub fn to_hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

/// Bits in which `a` and `b` differ.
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// Whether two screenshots are one picture by `[providers.screenshots]`'s threshold.
pub fn is_duplicate(a: PerceptualHash, b: PerceptualHash, max_distance: u32) -> bool {
    a.distance(b) <= max_distance
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenshotInfo {
    pub format: ScreenshotFormat,
    pub width: u32,
    pub height: u32,
    pub hash: PerceptualHash,
}

/// Plausible screenshot sizes: no side under 200 px (a thumbnail or an icon), none over
/// 10,000 px, at most 40 megapixels (a long scrolling capture still fits).
pub const MIN_SIDE: u32 = 200;
pub const MAX_SIDE: u32 = 10_000;
pub const MAX_PIXELS: u64 = 40_000_000;

#[derive(Debug, thiserror::Error)]
pub enum ScreenshotError {
    #[error("the image must be PNG, JPEG or WebP")]
    UnsupportedFormat,
    #[error("the image could not be decoded: {0}")]
    Undecodable(String),
    #[error("implausible screenshot size {width}x{height}")]
    Implausible { width: u32, height: u32 },
}

fn plausible(width: u32, height: u32) -> Result<(), ScreenshotError> {
    let sides = (MIN_SIDE..=MAX_SIDE).contains(&width) && (MIN_SIDE..=MAX_SIDE).contains(&height);
    if sides && u64::from(width) * u64::from(height) <= MAX_PIXELS {
        Ok(())
    } else {
        Err(ScreenshotError::Implausible { width, height })
    }
}

/// Decodes the image after checking its format by content and its size by its header, so an
/// implausible or oversized picture is refused before any pixel is allocated. CPU-bound:
/// call it from `spawn_blocking` on large uploads.
pub fn decode(bytes: &[u8]) -> Result<(ScreenshotFormat, DynamicImage), ScreenshotError> {
    let format = ScreenshotFormat::sniff(bytes).ok_or(ScreenshotError::UnsupportedFormat)?;
    let undecodable = |e: image::ImageError| ScreenshotError::Undecodable(e.to_string());
    let reader = || ImageReader::with_format(Cursor::new(bytes), format.image_format());
    let (width, height) = reader().into_dimensions().map_err(undecodable)?;
    plausible(width, height)?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_PIXELS * 4);
    let mut r = reader();
    r.limits(limits);
    Ok((format, r.decode().map_err(undecodable)?))
}

/// Format, size and perceptual hash of a screenshot; an error for anything but a plausible
/// PNG, JPEG or WebP picture. CPU-bound (see `decode`).
pub fn inspect(bytes: &[u8]) -> Result<ScreenshotInfo, ScreenshotError> {
    let (format, img) = decode(bytes)?;
    let (width, height) = img.dimensions();
    Ok(ScreenshotInfo {
        format,
        width,
        height,
        hash: dhash(&img),
    })
}

fn dhash(img: &DynamicImage) -> PerceptualHash {
    let small = img
        .resize_exact(9, 8, image::imageops::FilterType::Triangle)
        .into_luma8();
    let mut bits = 0u64;
    for y in 0..8 {
        for x in 0..8 {
            let brighter = small.get_pixel(x, y)[0] > small.get_pixel(x + 1, y)[0];
            bits = (bits << 1) | u64::from(brighter);
        }
    }
    PerceptualHash(bits)
}

/// What a verifier concluded about the referral code in a screenshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Found,
    NotFound,
    /// It could not tell (a tool failed, the model was unsure): a person should look.
    Unsure(String),
}

#[async_trait]
pub trait ScreenshotVerifier: Send + Sync + 'static {
    /// Whether `image` shows `code`. Never fails: every failure is `Unsure` with the reason.
    async fn verify(&self, image: &[u8], code: &str) -> Outcome;
}

pub fn from_settings(
    s: &ScreenshotSettings,
    ai: &AiSettings,
    http: reqwest::Client,
) -> Arc<dyn ScreenshotVerifier> {
    match s.verifier.as_str() {
        "openai" => Arc::new(VisionVerifier {
            client: ChatClient::new(ai, http),
            min_confidence: s.min_confidence,
        }),
        _ => Arc::new(TesseractVerifier {
            program: s.tesseract_path.clone(),
            lang: s.tesseract_lang.clone(),
            timeout: Duration::from_secs(s.timeout_secs.max(1)),
        }),
    }
}

/// The built-in verifier: Debian's tesseract reads the text, which is searched for the code.
pub struct TesseractVerifier {
    program: String,
    lang: String,
    timeout: Duration,
}

/// Page segmentation modes tried in turn until one reads the code: automatic layout, then
/// sparse text (scattered UI labels), then one uniform block.
const OCR_MODES: [&str; 3] = ["3", "11", "6"];

/// One thread per pass: tesseract's OpenMP threads cost more than they give on small
/// pictures (a pass took 0.27 s with them, 0.11 s without, on this 2-core machine).
const OCR_ENV: &[(&str, &str)] = &[("OMP_THREAD_LIMIT", "1")];

/// OCR reads small text badly: pictures are enlarged until their shorter side reaches this.
const OCR_MIN_SHORT_SIDE: u32 = 1000;

/// The picture tesseract reads: grey, enlarged when small, as PNG.
fn ocr_input(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let (_, img) = decode(bytes).map_err(|e| e.to_string())?;
    let grey = DynamicImage::ImageLuma8(img.into_luma8());
    let short = grey.width().min(grey.height()).max(1);
    let factor = OCR_MIN_SHORT_SIDE.div_ceil(short).clamp(1, 3);
    let grey = if factor > 1 {
        grey.resize(
            grey.width() * factor,
            grey.height() * factor,
            image::imageops::FilterType::CatmullRom,
        )
    } else {
        grey
    };
    let mut png = Vec::new();
    grey.write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(png)
}

#[async_trait]
impl ScreenshotVerifier for TesseractVerifier {
    async fn verify(&self, image: &[u8], code: &str) -> Outcome {
        let owned = image.to_vec();
        let png = match tokio::task::spawn_blocking(move || ocr_input(&owned)).await {
            Ok(Ok(png)) => png,
            Ok(Err(e)) => return Outcome::Unsure(format!("unreadable image: {e}")),
            Err(e) => return Outcome::Unsure(format!("image preparation failed: {e}")),
        };
        for psm in OCR_MODES {
            let args = ["stdin", "stdout", "--psm", psm, "-l", &self.lang];
            let run = tool::run(
                &self.program,
                args,
                OCR_ENV,
                Some(png.clone()),
                self.timeout,
            );
            match run.await {
                Ok(text) if text_shows_code(&String::from_utf8_lossy(&text), code) => {
                    return Outcome::Found
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "screenshot OCR failed");
                    return Outcome::Unsure(format!("OCR failed: {e}"));
                }
            }
        }
        Outcome::NotFound
    }
}

/// Whether OCR'd `text` carries `code`, tolerant of OCR noise: case, spaces and punctuation
/// are ignored, glyphs OCR mistakes for one another count as the same (see [`glyph_class`]),
/// and a code of 8 or more characters may be one character off (substituted, dropped or
/// doubled). Codes use an alphabet without 0 O 1 I L; with the classes it still has 22
/// distinct symbols, so a random 8-character string lands within one edit of a given code
/// about once in 10^9.
pub fn text_shows_code(text: &str, code: &str) -> bool {
    let squash = |s: &str| -> Vec<u8> {
        s.bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| glyph_class(b.to_ascii_uppercase()))
            .collect()
    };
    let (text, code) = (squash(text), squash(code));
    if code.is_empty() {
        return false;
    }
    let allowed = usize::from(code.len() >= 8);
    min_substring_edits(&code, &text) <= allowed
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

/// The `openai` verifier: the screenshot goes to a vision model on the `[ai]` settings as a
/// data URL, and the model answers `{"found": bool, "confidence": 0..1}`.
pub struct VisionVerifier {
    client: ChatClient,
    min_confidence: f64,
}

const VISION_SYSTEM: &str = "You check screenshots that people send as proof that they posted \
a video. Answer with JSON only: {\"found\": true|false, \"confidence\": a number from 0 to 1}. \
found is true only when the exact code given is clearly visible in the image.";

#[derive(Deserialize)]
struct VisionAnswer {
    found: bool,
    confidence: f64,
}

#[async_trait]
impl ScreenshotVerifier for VisionVerifier {
    async fn verify(&self, image: &[u8], code: &str) -> Outcome {
        let Some(format) = ScreenshotFormat::sniff(image) else {
            return Outcome::Unsure("the image must be PNG, JPEG or WebP".into());
        };
        let data = base64::engine::general_purpose::STANDARD.encode(image);
        let content = serde_json::json!([
            {"type": "text", "text": format!("Does this screenshot show the code {code}?")},
            {"type": "image_url",
             "image_url": {"url": format!("data:{};base64,{data}", format.mime())}},
        ]);
        let reply = match self.client.chat_content(VISION_SYSTEM, content).await {
            Ok(reply) => reply,
            Err(e) => return Outcome::Unsure(format!("vision model: {e}")),
        };
        let answer = json_in(&reply).and_then(|v| serde_json::from_value::<VisionAnswer>(v).ok());
        match answer {
            None => Outcome::Unsure("vision model answered no usable JSON".into()),
            Some(a) if a.confidence < self.min_confidence => Outcome::Unsure(format!(
                "vision model unsure (confidence {:.2})",
                a.confidence
            )),
            Some(a) if a.found => Outcome::Found,
            Some(_) => Outcome::NotFound,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_judged_by_content() {
        assert_eq!(
            ScreenshotFormat::sniff(b"\x89PNG\r\n\x1a\nrest"),
            Some(ScreenshotFormat::Png)
        );
        assert_eq!(
            ScreenshotFormat::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ScreenshotFormat::Jpeg)
        );
        assert_eq!(
            ScreenshotFormat::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ScreenshotFormat::Webp)
        );
        for other in [&b"GIF89a......"[..], b"RIFF\0\0\0\0WAVE", b"%PDF-1.7", b""] {
            assert_eq!(ScreenshotFormat::sniff(other), None);
        }
        assert!(matches!(
            inspect(b"GIF89a"),
            Err(ScreenshotError::UnsupportedFormat)
        ));
    }

    #[test]
    fn codes_are_found_through_ocr_noise() {
        let code = "K7M9QX2P";
        for seen in [
            "Share K7M9QX2P now",
            "k7m9qx2p",
            "K7M9 QX2P",
            "K7M9-QX2P",
            "K7M9OX2P",  // one misread
            "K7M9QX2",   // one dropped
            "K7M9|QX2P", // a box edge read as a bar is punctuation
            "K7M9IQX2P", // … or as a letter
            "K7MOOXZR",  // confusable glyphs, and one misread besides
            "K7MOQX2PP",
        ] {
            assert!(text_shows_code(seen, code), "{seen:?}");
        }
        for other in ["K7M9", "K7MXXX2P", "K7M9QXAB", "nothing here", ""] {
            assert!(!text_shows_code(other, code), "{other:?}");
        }
        assert!(!text_shows_code("ABCD", ""));
    }

    #[test]
    fn hashes_round_trip_through_a_signed_column() {
        let h = PerceptualHash(u64::MAX - 5);
        assert_eq!(PerceptualHash::from_i64(h.to_i64()), h);
        assert_eq!(hamming(0b1011, 0b0001), 2);
        assert_eq!(h.to_hex().len(), 16);
        assert!(is_duplicate(PerceptualHash(0), PerceptualHash(0b111), 4));
        assert!(!is_duplicate(PerceptualHash(0), PerceptualHash(0b11111), 4));
    }

    #[test]
    fn sizes_must_be_plausible() {
        assert!(plausible(1080, 1920).is_ok());
        assert!(plausible(199, 1920).is_err());
        assert!(plausible(1080, 10_001).is_err());
        assert!(plausible(8000, 8000).is_err());
    }
}
