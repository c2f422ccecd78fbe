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

/// One frame of `video` at `at` seconds, as PNG bytes.
pub fn frame_at(video: &Path, at: &str, out: &Path) -> Vec<u8> {
    ffmpeg(&[
        "-ss",
        at,
        "-i",
        video.to_str().unwrap(),
        "-frames:v",
        "1",
        out.to_str().unwrap(),
    ]);
    std::fs::read(out).unwrap()
}
