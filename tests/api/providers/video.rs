//! The video port on Debian's ffmpeg: a proof code burnt into a generated clip in the box
//! the port reports, that ffprobe reads as H.264 MP4 and the screenshot verifier finds in
//! phone screenshots of any moment of it, key frames, ads capped at 720p with a JPEG
//! thumbnail, and errors told apart (a bad source is permanent, a tool failure is not).

use super::media::{test_clip, PhoneShot};
use switchboard::providers::screenshot::{self, Finding, ProofRequest, VideoRef};
use switchboard::providers::settings::AiSettings;
use switchboard::providers::video::{self, VideoError, VideoSettings};

const CODE: &str = "K7M9QX2P-ACEF";

#[tokio::test]
async fn a_personalised_video_is_h264_mp4_showing_the_code_throughout() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("ad.mp4"), dir.path().join("out.mp4"));
    test_clip(&input, "640x360", 2, true);
    let videos = video::from_settings(&VideoSettings::default());

    let made = videos.personalise(&input, &output, CODE).await.unwrap();
    let info = &made.info;
    assert_eq!(info.video_codec.as_deref(), Some("h264"));
    assert_eq!(info.audio_codec.as_deref(), Some("aac"));
    assert!(info.format_name.contains("mp4"), "{}", info.format_name);
    assert_eq!((info.width, info.height), (640, 360));
    assert!(
        (info.duration_secs - 2.0).abs() < 0.2,
        "{}",
        info.duration_secs
    );
    // The box sits in the lower part of the frame, centred.
    let b = made.code_box;
    assert!(
        b.y > 0.5 && b.y + b.h < 1.0 && (b.x + b.w / 2.0 - 0.5).abs() < 0.01,
        "{b:?}"
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

    // Key frames: one every half second of the 2 s clip, 320 pixels wide, side by side.
    let strip = videos.key_frames(&output, 4).await.unwrap();
    assert_eq!(strip.frames, 4);
    let sheet = image::load_from_memory(&strip.jpeg).unwrap();
    assert_eq!((sheet.width(), sheet.height()), (4 * 320, 180));
    let frames = VideoRef {
        sprite: strip.jpeg,
        frames: strip.frames,
        code_box: Some(made.code_box),
    };

    // The verifier finds the video and the code in phone screenshots of the first, a middle
    // and the last moment…
    let verifier = screenshot::from_settings(
        &Default::default(),
        &AiSettings::default(),
        crate::helpers::http_client(),
    );
    let ask = |image: Vec<u8>| ProofRequest {
        image,
        code: CODE.into(),
        video: Some(frames.clone()),
    };
    for at in ["0.1", "1.2", "1.9"] {
        let shot = PhoneShot::of(&output, at).write(&dir.path().join(format!("at-{at}.jpg")));
        let v = verifier.verify(ask(shot)).await;
        assert_eq!(v.finding, Finding::Shown, "at {at}s: {:?}", v.evidence);
    }
    // …and not the code in a screenshot of the source.
    let plain = PhoneShot::of(&input, "1.0").write(&dir.path().join("plain.jpg"));
    let v = verifier.verify(ask(plain)).await;
    assert_eq!(v.finding, Finding::VideoWithoutCode, "{:?}", v.evidence);
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
    let info = videos
        .personalise(&input, &personal, CODE)
        .await
        .unwrap()
        .info;
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
