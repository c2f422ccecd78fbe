//! The video port on Debian's ffmpeg: a referral code burnt into a generated clip that
//! ffprobe reads as H.264 MP4 and tesseract reads the code from, ads capped at 720p with a
//! JPEG thumbnail, and errors told apart (a bad source is permanent, a tool failure is not).

use super::media::{frame_at, test_clip};
use switchboard::providers::screenshot::{self, Outcome, ScreenshotSettings};
use switchboard::providers::settings::AiSettings;
use switchboard::providers::video::{self, VideoError, VideoSettings};

const CODE: &str = "K7M9QX2P";

#[tokio::test]
async fn a_personalised_video_is_h264_mp4_showing_the_code_throughout() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("ad.mp4"), dir.path().join("out.mp4"));
    test_clip(&input, "640x360", 2, true);
    let videos = video::from_settings(&VideoSettings::default());

    let info = videos.personalise(&input, &output, CODE).await.unwrap();
    assert_eq!(info.video_codec.as_deref(), Some("h264"));
    assert_eq!(info.audio_codec.as_deref(), Some("aac"));
    assert!(info.format_name.contains("mp4"), "{}", info.format_name);
    assert_eq!((info.width, info.height), (640, 360));
    assert!(
        (info.duration_secs - 2.0).abs() < 0.2,
        "{}",
        info.duration_secs
    );
    // ffprobe's own word, apart from the port's reading of it.
    let probe = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "stream=codec_name:format=format_name",
        ])
        .args(["-of", "csv=p=0"])
        .arg(&output)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&probe.stdout);
    assert!(said.contains("h264") && said.contains("mp4"), "{said}");

    // Tesseract (through the screenshot verifier, as posters' screenshots will be read)
    // finds the code on the first, a middle and the last frame…
    let ocr = screenshot::from_settings(
        &ScreenshotSettings::default(),
        &AiSettings::default(),
        reqwest::Client::new(),
    );
    for at in ["0.1", "1.0", "1.9"] {
        let frame = frame_at(&output, at, &dir.path().join(format!("frame-{at}.png")));
        assert_eq!(ocr.verify(&frame, CODE).await, Outcome::Found, "at {at}s");
    }
    // …and not in the source.
    let plain = frame_at(&input, "1.0", &dir.path().join("plain.png"));
    assert_eq!(ocr.verify(&plain, CODE).await, Outcome::NotFound);
}

#[tokio::test]
async fn a_silent_clip_stays_silent_and_ads_are_capped_at_720p_with_a_thumbnail() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.mp4");
    test_clip(&input, "1440x1080", 1, false);
    let videos = video::from_settings(&VideoSettings::default());

    let probed = videos.probe(&input).await.unwrap();
    assert_eq!(
        (probed.width, probed.height, probed.has_audio),
        (1440, 1080, false)
    );

    let (out, thumb) = (dir.path().join("ad.mp4"), dir.path().join("ad.jpg"));
    let info = videos.transcode_ad(&input, &out, &thumb).await.unwrap();
    assert_eq!((info.width, info.height), (960, 720));
    assert_eq!(info.video_codec.as_deref(), Some("h264"));
    assert!(!info.has_audio);
    let jpeg = std::fs::read(&thumb).unwrap();
    assert!(
        jpeg.starts_with(&[0xFF, 0xD8, 0xFF]),
        "thumbnail is not a JPEG"
    );

    let personal = dir.path().join("personal.mp4");
    let info = videos.personalise(&input, &personal, CODE).await.unwrap();
    assert_eq!((info.width, info.height, info.has_audio), (960, 720, false));
}

#[tokio::test]
async fn bad_sources_are_permanent_and_tool_failures_are_retryable() {
    let dir = tempfile::tempdir().unwrap();
    let videos = video::from_settings(&VideoSettings::default());
    let text = dir.path().join("notes.mp4");
    std::fs::write(&text, "not a video at all").unwrap();
    let picture = dir.path().join("still.png");
    super::media::text_picture(&picture, &["STILL"]);
    for bad in [&text, &picture, &dir.path().join("missing.mp4")] {
        let err = videos.probe(bad).await.unwrap_err();
        assert!(matches!(err, VideoError::BadSource(_)), "{bad:?}: {err:?}");
        assert!(err.is_permanent());
        let out = dir.path().join("out.mp4");
        let err = videos.personalise(bad, &out, CODE).await.unwrap_err();
        assert!(err.is_permanent(), "{err:?}");
    }

    let input = dir.path().join("ad.mp4");
    test_clip(&input, "320x240", 1, false);
    let out = dir.path().join("out.mp4");
    let err = videos.personalise(&input, &out, "K7:M9").await.unwrap_err();
    assert!(matches!(err, VideoError::InvalidCode), "{err:?}");

    let broken = video::from_settings(&VideoSettings {
        ffmpeg_path: "/nonexistent/ffmpeg".into(),
        ..VideoSettings::default()
    });
    let err = broken.personalise(&input, &out, CODE).await.unwrap_err();
    assert!(
        matches!(err, VideoError::Tool(_)) && !err.is_permanent(),
        "{err:?}"
    );
    let no_probe = video::from_settings(&VideoSettings {
        ffprobe_path: "/nonexistent/ffprobe".into(),
        ..VideoSettings::default()
    });
    let err = no_probe.probe(&input).await.unwrap_err();
    assert!(!err.is_permanent(), "{err:?}");
}
