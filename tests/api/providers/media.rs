//! What the media port tests share: pictures and clips made with Debian's ffmpeg (installed
//! by scripts/setup).

use std::path::Path;
use std::process::Command;

/// Runs ffmpeg quietly with `args`, failing the test when it fails.
pub fn ffmpeg(args: &[&str]) {
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .output()
        .expect("ffmpeg (scripts/setup installs it)");
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test-pattern clip of `secs` seconds at `size` (`WxH`), with a tone when `audio`.
pub fn test_clip(out: &Path, size: &str, secs: u32, audio: bool) {
    let video = format!("testsrc=duration={secs}:size={size}:rate=25");
    let tone = format!("sine=frequency=440:duration={secs}");
    let mut args = vec!["-f", "lavfi", "-i", &video];
    if audio {
        args.extend(["-f", "lavfi", "-i", &tone, "-c:a", "aac"]);
    }
    let path = out.to_str().unwrap();
    args.extend(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-shortest", path]);
    ffmpeg(&args);
}

/// A silent clip of `secs` seconds of the lavfi test `source` (testsrc2, mandelbrot, …) at
/// `size`.
pub fn source_clip(out: &Path, source: &str, size: &str, secs: u32) {
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        &format!("{source}=size={size}:rate=25"),
        "-t",
        &secs.to_string(),
        "-pix_fmt",
        "yuv420p",
        out.to_str().unwrap(),
    ]);
}

/// A phone-sized white picture with `lines` of black text drawn large (in the font codes are
/// burnt into videos with, as a poster's screenshot shows them), one under another,
/// written in the format `out`'s extension names.
pub fn text_picture(out: &Path, lines: &[&str]) {
    let font = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf";
    let draws: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let y = 300 + i * 220;
            format!(
                "drawtext=fontfile={font}:text={text}:fontsize=90:fontcolor=black:x=(w-text_w)/2:y={y}"
            )
        })
        .collect();
    let filter = if draws.is_empty() {
        "null".to_owned()
    } else {
        draws.join(",")
    };
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=white:size=1080x1920",
        "-vf",
        &filter,
        "-frames:v",
        "1",
        out.to_str().unwrap(),
    ]);
}

/// What a poster's phone screenshot of a video looks like: the frame of `video` at `at`
/// seconds scaled to `width` pixels of a 1080×1920 screen at (`x`, `y`), in dark app
/// chrome (a status bar, a caption, a row of buttons), saved as a JPEG.
pub struct PhoneShot<'a> {
    pub video: &'a Path,
    pub at: &'a str,
    pub width: u32,
    pub x: u32,
    pub y: u32,
}

impl PhoneShot<'_> {
    pub fn of<'v>(video: &'v Path, at: &'v str) -> PhoneShot<'v> {
        PhoneShot {
            video,
            at,
            width: 860,
            x: 110,
            y: 560,
        }
    }

    pub fn write(&self, out: &Path) -> Vec<u8> {
        let font = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf";
        let (w, x, y) = (self.width, self.x, self.y);
        let filter = format!(
            "scale={w}:-2,pad=1080:1920:{x}:{y}:color=0x121212,\
             drawbox=x=0:y=0:w=1080:h=72:color=0x2a2a2a:t=fill,\
             drawtext=fontfile={font}:text='9\\:41':fontsize=36:fontcolor=white:x=36:y=18,\
             drawtext=fontfile={font}:text='New post':fontsize=44:fontcolor=white:x=60:y=1480,\
             drawbox=x=80:y=1700:w=260:h=90:color=0x3b82f6:t=fill,\
             drawbox=x=740:y=1700:w=260:h=90:color=0x444444:t=fill"
        );
        ffmpeg(&[
            "-ss",
            self.at,
            "-i",
            self.video.to_str().unwrap(),
            "-frames:v",
            "1",
            "-vf",
            &filter,
            "-q:v",
            "4",
            out.to_str().unwrap(),
        ]);
        std::fs::read(out).unwrap()
    }
}
