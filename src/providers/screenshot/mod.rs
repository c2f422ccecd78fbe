//! Screenshots posters send as proof: what the image is (format by content, size, perceptual
//! hashes to spot re-submissions) and a verifier port that decides whether it shows the
//! subscription's personalised video with its proof code on it. Built in: key-frame
//! matching (`video_match`) and Debian's tesseract OCR (`ocr`); optionally an
//! OpenAI-compatible vision model on the `[ai]` settings (`vision`).

mod adapter;
pub mod ocr;
pub mod video_match;
pub mod vision;

pub use super::settings::ScreenshotSettings;
pub use adapter::from_settings;
pub use ocr::text_shows_code;
pub use video_match::{Fraction, Rect};

use async_trait::async_trait;
use image::{DynamicImage, GenericImageView, GrayImage, ImageFormat, ImageReader};
use serde::{Deserialize, Serialize};
use std::io::Cursor;
use utoipa::ToSchema;

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

/// A small grey print of where a screenshot's code is (or of the whole picture), compared
/// with a few pixels of slack: two posters' screenshots of one frame differ there, a re-sent
/// copy does not. Where the video was found its box is known only to a few pixels, so a
/// hash of it (which any shift scrambles) would not do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetailPrint {
    pub w: u32,
    pub h: u32,
    pub px: Vec<u8>,
}

/// A print's width, in pixels: of the code's box, and of a whole picture.
const PRINT_WIDTH: u32 = 96;
const PICTURE_PRINT_WIDTH: u32 = 64;
/// Pixels either way a print may be shifted to line up with another.
const PRINT_SLACK: i64 = 3;

impl DetailPrint {
    /// The print of `rect` of `img`, grown by a tenth (the whole picture when None).
    pub fn of(img: &GrayImage, rect: Option<Rect>) -> Self {
        let inside =
            |r: &Rect| r.w > 0 && r.h > 0 && r.x + r.w <= img.width() && r.y + r.h <= img.height();
        let part = match rect.map(|r| r.grown(0.1, img.width(), img.height())) {
            Some(r) if inside(&r) => image::imageops::crop_imm(img, r.x, r.y, r.w, r.h).to_image(),
            _ => img.clone(),
        };
        let (pw, ph) = part.dimensions();
        let w = if rect.is_some() {
            PRINT_WIDTH
        } else {
            PICTURE_PRINT_WIDTH
        };
        let h = ((w as f32 * ph as f32 / pw.max(1) as f32).round() as u32).clamp(8, 96);
        let small = image::imageops::resize(&part, w, h, image::imageops::FilterType::Triangle);
        Self {
            w,
            h,
            px: small.into_raw(),
        }
    }

    /// Whether this is a print of a whole picture (no video was found in it): two such
    /// prints must be far more alike to be one picture, since a different code is only a few
    /// of their pixels.
    pub fn is_whole_picture(&self) -> bool {
        self.w == PICTURE_PRINT_WIDTH
    }

    /// The best NCC (−1 to 1) of the two prints over shifts of a few pixels; 0 when their
    /// sizes differ (one is of a code's box, the other of a whole picture).
    pub fn similarity(&self, other: &Self) -> f32 {
        if (self.w, self.h) != (other.w, other.h) || self.px.len() != other.px.len() {
            return 0.0;
        }
        let (w, h) = (i64::from(self.w), i64::from(self.h));
        let mut best = f32::MIN;
        for dy in -PRINT_SLACK.min(h / 4)..=PRINT_SLACK.min(h / 4) {
            for dx in -PRINT_SLACK..=PRINT_SLACK {
                let mut m = video_match::Moments::default();
                for y in 0.max(-dy)..h.min(h - dy) {
                    for x in 0.max(-dx)..w.min(w - dx) {
                        m.add(
                            self.px[(y * w + x) as usize],
                            other.px[((y + dy) * w + x + dx) as usize],
                        );
                    }
                }
                // Two flat prints of one shade are the same picture.
                let flat_alike = if m.mean_gap() < 4.0 { 1.0 } else { 0.0 };
                let score = m.ncc().unwrap_or(flat_alike);
                best = best.max(score);
            }
        }
        best
    }

    /// `WxH:` and the pixels in base64, for a text column.
    pub fn to_text(&self) -> String {
        use base64::Engine;
        format!(
            "{}x{}:{}",
            self.w,
            self.h,
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(&self.px)
        )
    }

    pub fn from_text(s: &str) -> Option<Self> {
        use base64::Engine;
        let (size, data) = s.split_once(':')?;
        let (w, h) = size.split_once('x')?;
        let (w, h): (u32, u32) = (w.parse().ok()?, h.parse().ok()?);
        let px = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(data)
            .ok()?;
        (px.len() == (w * h) as usize).then_some(Self { w, h, px })
    }
}

/// The subscription's video as the verifier sees it: its key frames side by side in one
/// picture (each `frame_width` wide, left to right) and where its code's box sits in them.
#[derive(Debug, Clone)]
pub struct VideoRef {
    pub sprite: Vec<u8>,
    pub frames: u32,
    pub code_box: Option<Fraction>,
}

impl VideoRef {
    /// The key frames, grey and in colour.
    pub fn frames(&self) -> Result<Vec<DynamicImage>, String> {
        let img = image::load_from_memory(&self.sprite).map_err(|e| e.to_string())?;
        let n = self.frames.max(1);
        let fw = img.width() / n;
        if fw == 0 {
            return Err("the key frames picture is empty".into());
        }
        Ok((0..n)
            .map(|i| img.crop_imm(i * fw, 0, fw, img.height()))
            .collect())
    }
}

/// What a verifier is asked: does `image` show this subscription's video with `code` on it?
#[derive(Debug, Clone)]
pub struct ProofRequest {
    pub image: Vec<u8>,
    /// The subscription's `proofCode`, as burnt into its video.
    pub code: String,
    /// None when the subscription's video has no key frames (nothing to match).
    pub video: Option<VideoRef>,
}

/// What a verifier found, in the terms the poster is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The video and, on it, the code.
    Shown,
    /// The video, but not the code where the video carries it.
    VideoWithoutCode,
    /// The code, but not the video.
    CodeWithoutVideo,
    /// Neither.
    NotShown,
    /// It could not tell (a tool failed, the model was unsure): a person should look.
    Unsure(String),
}

impl Finding {
    pub fn of(video: bool, code: bool) -> Self {
        match (video, code) {
            (true, true) => Self::Shown,
            (true, false) => Self::VideoWithoutCode,
            (false, true) => Self::CodeWithoutVideo,
            (false, false) => Self::NotShown,
        }
    }

    /// The screenshot status it leads to: `approved`, `needs_review` or `rejected`.
    pub fn status(&self) -> &'static str {
        match self {
            Self::Shown => "approved",
            Self::NotShown => "rejected",
            _ => "needs_review",
        }
    }

    /// A stable name for programs (and the resubmission limit, which counts `not_shown`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Shown => "shown",
            Self::VideoWithoutCode => "video_without_code",
            Self::CodeWithoutVideo => "code_without_video",
            Self::NotShown => "not_shown",
            Self::Unsure(_) => "unsure",
        }
    }

    /// What the poster reads (nothing when approved).
    pub fn reason(&self, code: &str) -> Option<String> {
        match self {
            Self::Shown => None,
            Self::VideoWithoutCode => Some(format!(
                "we found your video but could not read your code {code} on it; a person will look"
            )),
            Self::CodeWithoutVideo => Some(
                "we read your code but could not find your video in the picture; a person will look"
                    .into(),
            ),
            Self::NotShown => Some(NOT_SHOWN.into()),
            Self::Unsure(why) => Some(format!("a person will look: {why}")),
        }
    }
}

/// The reason of a screenshot that shows neither the video nor the code.
pub const NOT_SHOWN: &str = "this picture does not show your video";

/// Why a verifier decided as it did, kept with the screenshot and shown to staff.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// `builtin` or `openai`.
    pub verifier: String,
    /// The code looked for (the subscription's `proofCode`).
    pub expected_code: String,
    /// What OCR (or the model) read: in the code's box first, then the whole picture.
    pub ocr_text: Option<String>,
    pub code_matched: bool,
    /// `code_box` (where the video carries it), `frame` (inside the found frame) or
    /// `picture` (elsewhere); null when not read.
    pub code_found_in: Option<String>,
    pub video_found: bool,
    /// The best place a key frame matched, with its scores, whether or not it was enough.
    #[schema(value_type = Option<Object>)]
    pub video: Option<serde_json::Value>,
    /// The model's confidence (`openai` only).
    pub confidence: Option<f64>,
    /// A tool failure or the model's doubt.
    pub note: Option<String>,
    /// Earlier screenshots that looked the same (filled in by the service).
    #[serde(default)]
    pub duplicates: Vec<Neighbour>,
    pub elapsed_ms: u64,
}

impl Evidence {
    /// Evidence of `verifier` looking for `code`, before it has found anything.
    pub fn new(verifier: &str, code: &str) -> Self {
        Self {
            verifier: verifier.into(),
            expected_code: code.into(),
            ..Self::default()
        }
    }
}

/// An earlier screenshot near this one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Neighbour {
    pub id: uuid::Uuid,
    /// Bits apart in the 64-bit whole-picture hash.
    pub distance: u32,
    /// How alike (NCC, up to 1) the two are where the code is (or as whole pictures).
    pub similarity: Option<f32>,
}

/// A verifier's answer.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub finding: Finding,
    pub evidence: Evidence,
    /// The print the duplicate check compares: of where the code is when the video was
    /// found, else of the whole picture; None when the picture could not be decoded.
    pub print: Option<DetailPrint>,
}

#[async_trait]
pub trait ScreenshotVerifier: Send + Sync + 'static {
    /// Whether the picture shows the subscription's video with its code. Never fails: every
    /// failure is `Unsure` with the reason.
    async fn verify(&self, req: ProofRequest) -> Verdict;
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
