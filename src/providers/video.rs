//! Video port: probing, personalising (the poster's referral code burnt into the ad) and
//! transcoding ads. The built-in adapter runs Debian's ffmpeg and ffprobe as child processes.

use super::screenshot::Fraction;
use super::tool::{self, ToolError};
use async_trait::async_trait;
use serde::Deserialize;
use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// `[providers.video]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct VideoSettings {
    pub ffmpeg_path: String,
    pub ffprobe_path: String,
    /// Longest one encode may run before it is killed (and the job retried).
    pub timeout_secs: u64,
    pub probe_timeout_secs: u64,
    /// TrueType font for the burnt-in code; when missing, fontconfig's default sans is used.
    pub font_file: String,
    /// Encodes run at once in this process (each keeps the cores busy).
    pub max_concurrent: usize,
}

impl Default for VideoSettings {
    fn default() -> Self {
        Self {
            ffmpeg_path: "ffmpeg".into(),
            ffprobe_path: "ffprobe".into(),
            timeout_secs: 600,
            probe_timeout_secs: 30,
            font_file: "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf".into(),
            max_concurrent: 1,
        }
    }
}

/// What ffprobe says of a file. `width` and `height` are as displayed (rotation applied).
#[derive(Debug, Clone, PartialEq)]
pub struct VideoInfo {
    pub duration_secs: f64,
    pub width: u32,
    pub height: u32,
    pub has_video: bool,
    pub has_audio: bool,
    /// ffprobe's names, e.g. `h264` and `aac`.
    pub video_codec: Option<String>,
    pub audio_codec: Option<String>,
    /// ffprobe's container names, e.g. `mov,mp4,m4a,3gp,3g2,mj2`.
    pub format_name: String,
    /// Frames a second of the video stream (its average; 0 when ffprobe gives none).
    pub frame_rate: f64,
}

/// A personalised video: its probe and the code's box, as fractions of the frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Personalised {
    pub info: VideoInfo,
    pub code_box: Fraction,
}

/// Key frames side by side: `frames` of them, each `jpeg`'s width / `frames` wide.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyFrameStrip {
    pub jpeg: Vec<u8>,
    pub frames: u32,
}

/// The longer side of a key frame, in pixels.
pub const KEY_FRAME_SIDE: u32 = 320;

#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    /// The input is not a usable video: retrying will not help.
    #[error("bad source video: {0}")]
    BadSource(String),
    /// The code to burn in has characters outside letters, digits and '-'.
    #[error("invalid code to burn in")]
    InvalidCode,
    /// ffmpeg/ffprobe missing, killed at the timeout or failing on a good source: retryable.
    #[error("video tool failed: {0}")]
    Tool(String),
}

impl VideoError {
    /// True when retrying the same input cannot succeed.
    pub fn is_permanent(&self) -> bool {
        matches!(self, Self::BadSource(_) | Self::InvalidCode)
    }
}

impl From<ToolError> for VideoError {
    fn from(e: ToolError) -> Self {
        Self::Tool(e.to_string())
    }
}

#[async_trait]
pub trait VideoProcessor: Send + Sync + 'static {
    /// Duration, size and streams of `path`; `BadSource` when it holds no video.
    async fn probe(&self, path: &Path) -> Result<VideoInfo, VideoError>;
    /// Writes `input` to `output` as an H.264/AAC MP4 of at most 720p with `code` drawn large
    /// and high-contrast in an opaque box over the lower part of every frame; returns the
    /// output's probe and where the box is.
    async fn personalise(
        &self,
        input: &Path,
        output: &Path,
        code: &str,
    ) -> Result<Personalised, VideoError>;
    /// Up to `count` frames of `video`, evenly spaced from its start, each at most
    /// [`KEY_FRAME_SIDE`] pixels on its longer side, side by side in one JPEG.
    async fn key_frames(&self, video: &Path, count: u32) -> Result<KeyFrameStrip, VideoError>;
    /// Writes `input` to `output` as an H.264/AAC MP4 of at most 720p and a JPEG frame to
    /// `thumbnail`; returns the output's probe.
    async fn transcode_ad(
        &self,
        input: &Path,
        output: &Path,
        thumbnail: &Path,
    ) -> Result<VideoInfo, VideoError>;
}

pub fn from_settings(s: &VideoSettings) -> Arc<dyn VideoProcessor> {
    Arc::new(Ffmpeg {
        settings: s.clone(),
        permits: Arc::new(Semaphore::new(s.max_concurrent.max(1))),
    })
}

/// The built-in adapter: Debian's ffmpeg and ffprobe.
pub struct Ffmpeg {
    settings: VideoSettings,
    permits: Arc<Semaphore>,
}

/// The shorter side of every output, in pixels.
const MAX_SHORT_SIDE: u32 = 720;

impl Ffmpeg {
    async fn encode(&self, args: Vec<OsString>) -> Result<(), VideoError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| VideoError::Tool("encoder pool closed".into()))?;
        let timeout = Duration::from_secs(self.settings.timeout_secs.max(1));
        tool::run(&self.settings.ffmpeg_path, args, &[], None, timeout).await?;
        Ok(())
    }

    /// A probe of the output, which must be the MP4 just written.
    async fn check_output(&self, output: &Path) -> Result<VideoInfo, VideoError> {
        self.probe(output)
            .await
            .map_err(|e| VideoError::Tool(format!("ffmpeg wrote no readable video: {e}")))
    }

    /// The filters drawing `code` in its box on frames `width`×`height`, and the box.
    fn drawtext(
        &self,
        code: &str,
        width: u32,
        height: u32,
    ) -> Result<(String, Fraction), VideoError> {
        let valid = !code.is_empty()
            && code.len() <= 32
            && code.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !valid {
            return Err(VideoError::InvalidCode);
        }
        let font = &self.settings.font_file;
        // Paths with filter-syntax characters would need two levels of escaping: those
        // fall back to fontconfig's default.
        let plain_path = font
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'));
        let font = if !font.is_empty() && plain_path && Path::new(font).is_file() {
            format!("fontfile={font}")
        } else {
            "font=Sans".to_owned()
        };
        let b = CodeBox::for_frame(width.max(2), height.max(2), code.len());
        // White on an opaque black box of our own size (so the verifier knows where to look),
        // in the lower part: readable (by people and OCR) on any footage, clear of the top bars.
        let filter = format!(
            "drawbox=x={}:y={}:w={}:h={}:color=black:t=fill,\
             drawtext={font}:text={code}:fontsize={}:fontcolor=white:\
             x=(w-text_w)/2:y={}+({}-text_h)/2",
            b.x, b.y, b.w, b.h, b.font_size, b.y, b.h
        );
        Ok((filter, b.fraction(width.max(2), height.max(2))))
    }
}

/// Where a code of `len` characters is drawn on a `w`×`h` frame: the font as large as a
/// ninth of the height allows while the text (DejaVu Sans Mono, 0.6 em per character) fills
/// at most 84 % of the width, in a box a third of the font size wider on every side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CodeBox {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
    font_size: u32,
}

impl CodeBox {
    fn for_frame(w: u32, h: u32, len: usize) -> Self {
        let len = len.max(1) as f32;
        let by_height = h as f32 / 9.0;
        let by_width = 0.84 * w as f32 / (0.602 * len);
        let font_size = by_height.min(by_width).floor().max(8.0);
        let pad = (font_size / 3.0).max(4.0);
        let bw = (0.602 * font_size * len * 1.04 + 2.0 * pad).min(w as f32);
        let bh = (font_size * 1.05 + 2.0 * pad).min(h as f32);
        let y = (h as f32 - bh - h as f32 / 8.0).max(0.0);
        Self {
            x: ((w as f32 - bw) / 2.0).max(0.0).round() as u32,
            y: y.round() as u32,
            w: bw.round() as u32,
            h: bh.round() as u32,
            font_size: font_size as u32,
        }
    }

    fn fraction(&self, w: u32, h: u32) -> Fraction {
        Fraction {
            x: self.x as f32 / w as f32,
            y: self.y as f32 / h as f32,
            w: self.w as f32 / w as f32,
            h: self.h as f32 / h as f32,
        }
    }
}

/// Output size for a `width`×`height` source: the shorter side at most 720, the aspect kept,
/// both even (H.264 in 4:2:0 needs that).
pub fn fit_720(width: u32, height: u32) -> (u32, u32) {
    let short = width.min(height).max(1);
    let scale = (f64::from(MAX_SHORT_SIDE) / f64::from(short)).min(1.0);
    let even = |v: u32| {
        let scaled = (f64::from(v) * scale).round() as u32;
        (scaled & !1).max(2)
    };
    (even(width), even(height))
}

/// A size with the longer side at most `side` (the aspect kept, both even).
pub fn fit_side(width: u32, height: u32, side: u32) -> (u32, u32) {
    let long = width.max(height).max(1);
    let scale = (f64::from(side) / f64::from(long)).min(1.0);
    let even = |v: u32| (((f64::from(v) * scale).round() as u32) & !1).max(2);
    (even(width), even(height))
}

/// The frames ffmpeg wrote into `dir` (`001.png`, …), side by side in one JPEG.
fn strip(dir: &Path, count: u32) -> Result<KeyFrameStrip, VideoError> {
    let bad = |e: String| VideoError::Tool(format!("key frames: {e}"));
    let mut frames = Vec::new();
    for i in 1..=count {
        let path = dir.join(format!("{i:03}.png"));
        if !path.is_file() {
            break;
        }
        frames.push(
            image::open(&path)
                .map_err(|e| bad(e.to_string()))?
                .into_rgb8(),
        );
    }
    let first = frames
        .first()
        .ok_or_else(|| bad("ffmpeg wrote no frame".into()))?;
    let (fw, fh) = first.dimensions();
    let mut sheet = image::RgbImage::new(fw * frames.len() as u32, fh);
    for (i, f) in frames.iter().enumerate() {
        image::imageops::replace(&mut sheet, f, i64::from(fw) * i as i64, 0);
    }
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
        .encode_image(&sheet)
        .map_err(|e| bad(e.to_string()))?;
    Ok(KeyFrameStrip {
        jpeg,
        frames: frames.len() as u32,
    })
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// The H.264/AAC MP4 settings both encodes share, after the video filter.
fn mp4_args(info: &VideoInfo, output: &Path) -> Vec<OsString> {
    let mut args = os(&[
        "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p",
    ]);
    if info.has_audio {
        args.extend(os(&["-c:a", "aac", "-b:a", "128k", "-ac", "2"]));
    } else {
        args.push("-an".into());
    }
    // faststart puts the index first so players start before the whole file arrives.
    args.extend(os(&["-movflags", "+faststart", "-f", "mp4"]));
    args.push(output.into());
    args
}

/// The containers phones and editors write (ffmpeg's demuxer names): never a playlist,
/// manifest or concat list, which name other files (`file:///…`, URLs) for ffmpeg to read.
pub const CONTAINERS: &str = "mov,matroska,webm,avi,mpegts";

/// What every ffmpeg and ffprobe input is held to: one of [`CONTAINERS`], read from a file.
fn input_guard() -> Vec<OsString> {
    os(&[
        "-format_whitelist",
        CONTAINERS,
        "-protocol_whitelist",
        "file",
    ])
}

fn input_args(input: &Path) -> Vec<OsString> {
    let mut args = os(&["-nostdin", "-hide_banner", "-loglevel", "error", "-y"]);
    args.extend(input_guard());
    args.push("-i".into());
    args.push(input.into());
    args
}

#[async_trait]
impl VideoProcessor for Ffmpeg {
    async fn probe(&self, path: &Path) -> Result<VideoInfo, VideoError> {
        let mut args = os(&[
            "-v",
            "error",
            "-print_format",
            "json",
            "-show_format",
            "-show_streams",
        ]);
        args.extend(input_guard());
        args.push(path.into());
        let timeout = Duration::from_secs(self.settings.probe_timeout_secs.max(1));
        let out = match tool::run(&self.settings.ffprobe_path, args, &[], None, timeout).await {
            Ok(out) => out,
            // ffprobe ran and could not read it: the file is the problem.
            Err(ToolError::Failed { stderr, .. }) => return Err(VideoError::BadSource(stderr)),
            Err(e) => return Err(e.into()),
        };
        let probe: Probe = serde_json::from_slice(&out)
            .map_err(|e| VideoError::Tool(format!("unreadable ffprobe output: {e}")))?;
        probe.into_info()
    }

    async fn personalise(
        &self,
        input: &Path,
        output: &Path,
        code: &str,
    ) -> Result<Personalised, VideoError> {
        // The code is checked before anything runs: a bad one is the caller's mistake.
        self.drawtext(code, 720, 1280)?;
        let info = self.probe(input).await?;
        let (w, h) = fit_720(info.width, info.height);
        let (drawtext, code_box) = self.drawtext(code, w, h)?;
        let mut args = input_args(input);
        args.extend(os(&["-map", "0:v:0", "-map", "0:a:0?", "-vf"]));
        args.push(format!("scale={w}:{h},setsar=1,{drawtext}").into());
        args.extend(mp4_args(&info, output));
        self.encode(args).await?;
        Ok(Personalised {
            info: self.check_output(output).await?,
            code_box,
        })
    }

    async fn key_frames(&self, video: &Path, count: u32) -> Result<KeyFrameStrip, VideoError> {
        let info = self.probe(video).await?;
        let count = count.clamp(1, 32);
        let dir = tempfile::tempdir().map_err(|e| VideoError::Tool(e.to_string()))?;
        let (w, h) = fit_side(info.width, info.height, KEY_FRAME_SIDE);
        // Frames at 0, d/n, 2d/n, …: the fps filter keeps the frame nearest each instant.
        let rate = f64::from(count) / info.duration_secs.max(0.04);
        let mut args = input_args(video);
        args.extend(os(&["-an", "-vf"]));
        args.push(format!("fps={rate:.6},scale={w}:{h},setsar=1").into());
        args.extend(os(&["-frames:v", &count.to_string(), "-f", "image2"]));
        args.push(dir.path().join("%03d.png").into());
        self.encode(args).await?;
        let dir_path = dir.path().to_owned();
        tokio::task::spawn_blocking(move || strip(&dir_path, count))
            .await
            .map_err(|e| VideoError::Tool(e.to_string()))?
    }

    async fn transcode_ad(
        &self,
        input: &Path,
        output: &Path,
        thumbnail: &Path,
    ) -> Result<VideoInfo, VideoError> {
        let info = self.probe(input).await?;
        let (w, h) = fit_720(info.width, info.height);
        let mut args = input_args(input);
        args.extend(os(&["-map", "0:v:0", "-map", "0:a:0?", "-vf"]));
        args.push(format!("scale={w}:{h},setsar=1").into());
        args.extend(mp4_args(&info, output));
        self.encode(args).await?;
        let out = self.check_output(output).await?;
        // A frame a second in (or halfway through a shorter clip) rather than the first,
        // which is often black.
        let at = (out.duration_secs / 2.0).min(1.0);
        let mut thumb = os(&["-nostdin", "-hide_banner", "-loglevel", "error", "-y"]);
        thumb.extend(input_guard());
        thumb.extend(os(&["-ss", &format!("{at:.3}"), "-i"]));
        thumb.push(output.into());
        thumb.extend(os(&[
            "-frames:v",
            "1",
            "-c:v",
            "mjpeg",
            "-q:v",
            "3",
            "-f",
            "image2",
        ]));
        thumb.push(thumbnail.into());
        self.encode(thumb).await?;
        Ok(out)
    }
}

#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    streams: Vec<ProbeStream>,
    format: Option<ProbeFormat>,
}

#[derive(Deserialize)]
struct ProbeFormat {
    format_name: Option<String>,
    duration: Option<String>,
}

#[derive(Deserialize)]
struct ProbeStream {
    codec_type: Option<String>,
    codec_name: Option<String>,
    width: Option<u32>,
    height: Option<u32>,
    duration: Option<String>,
    #[serde(default)]
    disposition: std::collections::HashMap<String, i64>,
    #[serde(default)]
    side_data_list: Vec<serde_json::Value>,
    #[serde(default)]
    tags: std::collections::HashMap<String, String>,
    avg_frame_rate: Option<String>,
    r_frame_rate: Option<String>,
}

/// `30000/1001` as 29.97; None for `0/0` and other nonsense.
fn rate(raw: Option<&str>) -> Option<f64> {
    let (n, d) = raw?.split_once('/')?;
    let (n, d): (f64, f64) = (n.trim().parse().ok()?, d.trim().parse().ok()?);
    let r = n / d;
    (r.is_finite() && r > 0.0).then_some(r)
}

impl ProbeStream {
    /// Phones record portrait video as landscape frames with a rotation to apply on display.
    fn quarter_turned(&self) -> bool {
        let from_side_data = self
            .side_data_list
            .iter()
            .filter_map(|d| d["rotation"].as_f64())
            .next();
        let from_tag = self.tags.get("rotate").and_then(|r| r.parse::<f64>().ok());
        from_side_data
            .or(from_tag)
            .is_some_and(|deg| (deg.abs() as i64) % 180 == 90)
    }
}

impl Probe {
    fn into_info(self) -> Result<VideoInfo, VideoError> {
        let format = self
            .format
            .ok_or_else(|| VideoError::BadSource("no container found".into()))?;
        let format_name = format.format_name.unwrap_or_default();
        // Still images decode as one-frame "video" (png_pipe, image2, …).
        if format_name.ends_with("_pipe") || format_name == "image2" {
            return Err(VideoError::BadSource(format!("{format_name} is an image")));
        }
        let kind = |s: &&ProbeStream, t: &str| s.codec_type.as_deref() == Some(t);
        // Cover art inside an audio file is a "video" stream too.
        let video = self
            .streams
            .iter()
            .find(|s| kind(s, "video") && s.disposition.get("attached_pic") != Some(&1))
            .ok_or_else(|| VideoError::BadSource("no video stream".into()))?;
        let audio = self.streams.iter().find(|s| kind(s, "audio"));
        let (w, h) = match (video.width, video.height) {
            (Some(w), Some(h)) if w > 0 && h > 0 => (w, h),
            _ => return Err(VideoError::BadSource("video has no frame size".into())),
        };
        let (width, height) = if video.quarter_turned() {
            (h, w)
        } else {
            (w, h)
        };
        let duration_secs = format
            .duration
            .as_deref()
            .or(video.duration.as_deref())
            .and_then(|d| d.parse::<f64>().ok())
            .filter(|d| d.is_finite() && *d > 0.0)
            .ok_or_else(|| VideoError::BadSource("video has no duration".into()))?;
        Ok(VideoInfo {
            duration_secs,
            width,
            height,
            has_video: true,
            has_audio: audio.is_some(),
            video_codec: video.codec_name.clone(),
            audio_codec: audio.and_then(|a| a.codec_name.clone()),
            format_name,
            frame_rate: rate(video.avg_frame_rate.as_deref())
                .or(rate(video.r_frame_rate.as_deref()))
                .unwrap_or(0.0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_keep_the_aspect_with_the_short_side_at_most_720() {
        assert_eq!(fit_720(1920, 1080), (1280, 720));
        assert_eq!(fit_720(1080, 1920), (720, 1280));
        assert_eq!(fit_720(320, 240), (320, 240));
        assert_eq!(fit_720(321, 241), (320, 240));
        assert_eq!(fit_720(3840, 2160), (1280, 720));
    }

    #[test]
    fn codes_are_checked_before_they_reach_the_filter() {
        let f = Ffmpeg {
            settings: VideoSettings::default(),
            permits: Arc::new(Semaphore::new(1)),
        };
        assert!(f.drawtext("K7M9QX2P", 1280, 720).is_ok());
        for bad in ["", "a:b", "x'y", "a,b", "a b", &"A".repeat(33)] {
            assert!(
                matches!(f.drawtext(bad, 1280, 720), Err(VideoError::InvalidCode)),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_code_box_fits_the_frame_and_is_reported_as_drawn() {
        for (w, h) in [(720, 1280), (1280, 720), (640, 360), (320, 240)] {
            let b = CodeBox::for_frame(w, h, "K7M9QX2P-ACEF".len());
            assert!(b.x + b.w <= w && b.y + b.h <= h, "{w}x{h}: {b:?}");
            assert!(b.w as f32 >= 0.5 * w as f32, "{w}x{h}: {b:?}");
            let f = b.fraction(w, h);
            assert!((f.x * w as f32 - b.x as f32).abs() < 0.5);
        }
        // A short code on a wide frame: a ninth of the height, as before.
        assert_eq!(CodeBox::for_frame(1280, 720, 8).font_size, 80);
    }

    #[test]
    fn a_portrait_phone_video_reports_its_displayed_size() {
        let probe: Probe = serde_json::from_value(serde_json::json!({
            "streams": [{"codec_type": "video", "codec_name": "h264", "width": 1920,
                         "height": 1080, "side_data_list": [{"rotation": -90}]}],
            "format": {"format_name": "mov,mp4", "duration": "3.5"}
        }))
        .unwrap();
        let info = probe.into_info().unwrap();
        assert_eq!(
            (info.width, info.height, info.has_audio),
            (1080, 1920, false)
        );
    }
}
