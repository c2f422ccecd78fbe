//! Video port: probing, personalising (the poster's referral code burnt into the ad) and
//! transcoding ads. The built-in adapter runs Debian's ffmpeg and ffprobe as child processes.

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
}

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
    /// and high-contrast over the lower part of every frame; returns the output's probe.
    async fn personalise(
        &self,
        input: &Path,
        output: &Path,
        code: &str,
    ) -> Result<VideoInfo, VideoError>;
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

    /// The filter drawing `code` on frames `height` pixels tall.
    fn drawtext(&self, code: &str, height: u32) -> Result<String, VideoError> {
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
        // White on an opaque black box with a wide margin, a ninth of the height tall, in
        // the lower part: readable (by people and OCR) on any footage, clear of the top bars.
        let border = (height / 20).max(6);
        Ok(format!(
            "drawtext={font}:text={code}:fontsize=h/9:fontcolor=white:box=1:\
             boxcolor=black:boxborderw={border}:x=(w-text_w)/2:y=h-text_h-h/8"
        ))
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

fn input_args(input: &Path) -> Vec<OsString> {
    let mut args = os(&["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i"]);
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
    ) -> Result<VideoInfo, VideoError> {
        // The code is checked before anything runs: a bad one is the caller's mistake.
        self.drawtext(code, 0)?;
        let info = self.probe(input).await?;
        let (w, h) = fit_720(info.width, info.height);
        let drawtext = self.drawtext(code, h)?;
        let mut args = input_args(input);
        args.extend(os(&["-map", "0:v:0", "-map", "0:a:0?", "-vf"]));
        args.push(format!("scale={w}:{h},setsar=1,{drawtext}").into());
        args.extend(mp4_args(&info, output));
        self.encode(args).await?;
        self.check_output(output).await
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
        assert!(f.drawtext("K7M9QX2P", 720).is_ok());
        for bad in ["", "a:b", "x'y", "a,b", "a b", &"A".repeat(33)] {
            assert!(
                matches!(f.drawtext(bad, 720), Err(VideoError::InvalidCode)),
                "{bad:?}"
            );
        }
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
