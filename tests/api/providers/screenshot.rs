//! Screenshot checks: format by content, plausible size and perceptual hashes that survive
//! re-encoding; the built-in verifier, which approves only a picture showing the
//! subscription's video with its proof code on it; the `openai` verifier against a fake
//! vision model.

use super::media::{ffmpeg, source_clip, text_picture, PhoneShot};
use serde_json::{json, Value};
use switchboard::providers::screenshot::{
    self, inspect, DetailPrint, Finding, ProofRequest, ScreenshotError, ScreenshotFormat,
    ScreenshotSettings, VideoRef,
};
use switchboard::providers::settings::AiSettings;
use switchboard::providers::video::{self, VideoSettings};
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const CODE: &str = "K7M9QX2P-ACEF";

fn picture(dir: &std::path::Path, name: &str, lines: &[&str]) -> Vec<u8> {
    let file = dir.join(name);
    text_picture(&file, lines);
    std::fs::read(file).unwrap()
}

/// A personalised clip of `source` (a lavfi test source) with `code`, and its key frames.
async fn personalised(
    dir: &std::path::Path,
    source: &str,
    code: &str,
) -> (std::path::PathBuf, VideoRef) {
    let input = dir.join(format!("{source}.mp4"));
    source_clip(&input, source, "640x360", 2);
    let output = dir.join(format!("{source}-{code}.mp4"));
    let videos = video::from_settings(&VideoSettings::default());
    let made = videos.personalise(&input, &output, code).await.unwrap();
    let strip = videos.key_frames(&output, 4).await.unwrap();
    (
        output,
        VideoRef {
            sprite: strip.jpeg,
            frames: strip.frames,
            code_box: Some(made.code_box),
        },
    )
}

#[tokio::test]
async fn the_built_in_verifier_wants_the_video_and_the_code_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let (video, frames) = personalised(dir.path(), "testsrc", CODE).await;
    let verifier = screenshot::from_settings(
        &ScreenshotSettings::default(),
        &AiSettings::default(),
        crate::helpers::http_client(),
    );
    let ask = |image: Vec<u8>, code: &str| ProofRequest {
        image,
        code: code.into(),
        video: Some(frames.clone()),
    };
    // The video at 70 % of the screen, the code in its box: approved, with the evidence.
    let genuine = PhoneShot {
        width: 760,
        x: 160,
        y: 420,
        ..PhoneShot::of(&video, "0.7")
    }
    .write(&dir.path().join("genuine.jpg"));
    let v = verifier.verify(ask(genuine.clone(), CODE)).await;
    assert_eq!(v.finding, Finding::Shown, "{:?}", v.evidence);
    let e = &v.evidence;
    assert!(e.video_found && e.code_matched, "{e:?}");
    assert_eq!(e.code_found_in.as_deref(), Some("code_box"));
    let video_match = e.video.as_ref().unwrap();
    assert!(
        video_match["score"].as_f64().unwrap() > 0.9,
        "{video_match}"
    );
    let rect = &video_match["rect"];
    assert!((rect["x"].as_i64().unwrap() - 160).abs() <= 8, "{rect}");
    assert!((rect["w"].as_i64().unwrap() - 760).abs() <= 16, "{rect}");
    // The print for the duplicate check is of the code's box, not of the whole picture.
    assert!(!v.print.as_ref().unwrap().is_whole_picture());

    // The same picture for another of the poster's subscriptions: the video, not its code.
    let v = verifier.verify(ask(genuine, "K7M9QX2P-TUVW")).await;
    assert_eq!(v.finding, Finding::VideoWithoutCode, "{:?}", v.evidence);

    // The code typed on a white page: the code but no video.
    let white = picture(dir.path(), "white.png", &["My status", "Use code", CODE]);
    let v = verifier.verify(ask(white, CODE)).await;
    assert_eq!(v.finding, Finding::CodeWithoutVideo, "{:?}", v.evidence);
    assert_eq!(v.evidence.code_found_in.as_deref(), Some("picture"));

    // Another video with another code: neither.
    let (other, _) = personalised(dir.path(), "mandelbrot", "HWRT4ZC3-KMNP").await;
    let elsewhere = PhoneShot::of(&other, "1.0").write(&dir.path().join("other.jpg"));
    let v = verifier.verify(ask(elsewhere, CODE)).await;
    assert_eq!(v.finding, Finding::NotShown, "{:?}", v.evidence);
    assert_eq!(v.finding.status(), "rejected");

    // Without key frames the video cannot be looked for: a person decides.
    let plain = picture(dir.path(), "plain.png", &[CODE]);
    let v = verifier
        .verify(ProofRequest {
            image: plain.clone(),
            code: CODE.into(),
            video: None,
        })
        .await;
    assert!(matches!(v.finding, Finding::Unsure(_)), "{:?}", v.finding);
    assert_eq!(v.evidence.code_found_in.as_deref(), Some("picture"));

    // Without its tool the verifier cannot tell, and says so.
    let blind = screenshot::from_settings(
        &ScreenshotSettings {
            tesseract_path: "/nonexistent/tesseract".into(),
            ..ScreenshotSettings::default()
        },
        &AiSettings::default(),
        crate::helpers::http_client(),
    );
    assert!(matches!(
        blind.verify(ask(plain, CODE)).await.finding,
        Finding::Unsure(_)
    ));
    assert!(matches!(
        verifier
            .verify(ask(b"GIF89a not a screenshot".to_vec(), CODE))
            .await
            .finding,
        Finding::Unsure(_)
    ));
}

#[tokio::test]
async fn two_posters_screenshots_of_one_frame_differ_where_their_codes_are() {
    let dir = tempfile::tempdir().unwrap();
    let (a, frames) = personalised(dir.path(), "testsrc", CODE).await;
    let (b, _) = personalised(dir.path(), "testsrc", "HWRT4ZC3-KMNP").await;
    let verifier = screenshot::from_settings(
        &ScreenshotSettings::default(),
        &AiSettings::default(),
        crate::helpers::http_client(),
    );
    let shot_a = PhoneShot::of(&a, "1.0").write(&dir.path().join("a.jpg"));
    let shot_b = PhoneShot::of(&b, "1.0").write(&dir.path().join("b.jpg"));
    let v = verifier
        .verify(ProofRequest {
            image: shot_a.clone(),
            code: CODE.into(),
            video: Some(frames),
        })
        .await;
    let rect: Option<switchboard::providers::screenshot::Rect> = Some(
        serde_json::from_value(v.evidence.video.as_ref().unwrap()["codeRect"].clone()).unwrap(),
    );
    let grey = |bytes: &[u8]| image::load_from_memory(bytes).unwrap().into_luma8();
    let (ga, gb) = (grey(&shot_a), grey(&shot_b));
    // On the whole picture the two are one (the old duplicate check's mistake)…
    let (ia, ib) = (inspect(&shot_a).unwrap(), inspect(&shot_b).unwrap());
    assert!(
        ia.hash.distance(ib.hash) <= 4,
        "{}",
        ia.hash.distance(ib.hash)
    );
    // …where the code is they are not, while a re-encoded copy is.
    let limit = ScreenshotSettings::default().detail_min_similarity;
    let (da, db) = (DetailPrint::of(&ga, rect), DetailPrint::of(&gb, rect));
    assert!(da.similarity(&db) < limit, "{}", da.similarity(&db));
    assert_eq!(
        v.print.as_ref(),
        Some(&da),
        "the verifier printed where the code is"
    );
    let copy_file = dir.path().join("copy.jpg");
    ffmpeg(&[
        "-i",
        dir.path().join("a.jpg").to_str().unwrap(),
        "-q:v",
        "9",
        copy_file.to_str().unwrap(),
    ]);
    // A copy, re-encoded and with the box found a few pixels off.
    let off = rect.map(|r| switchboard::providers::screenshot::Rect {
        x: r.x + 3,
        y: r.y + 2,
        ..r
    });
    let copy = DetailPrint::of(&grey(&std::fs::read(&copy_file).unwrap()), off);
    assert!(da.similarity(&copy) >= limit, "{}", da.similarity(&copy));
    assert_eq!(DetailPrint::from_text(&da.to_text()), Some(da));
}

#[test]
fn screenshots_are_judged_by_content_size_and_perceptual_hash() {
    let dir = tempfile::tempdir().unwrap();
    let png = picture(dir.path(), "shot.png", &["Posted", CODE]);
    let info = inspect(&png).unwrap();
    assert_eq!(info.format, ScreenshotFormat::Png);
    assert_eq!((info.width, info.height), (1080, 1920));

    // The same picture re-encoded as a smaller JPEG is a duplicate; another picture is not.
    let jpeg_file = dir.path().join("again.jpg");
    ffmpeg(&[
        "-i",
        dir.path().join("shot.png").to_str().unwrap(),
        "-vf",
        "scale=720:1280",
        "-q:v",
        "8",
        jpeg_file.to_str().unwrap(),
    ]);
    let again = inspect(&std::fs::read(&jpeg_file).unwrap()).unwrap();
    assert_eq!(again.format, ScreenshotFormat::Jpeg);
    let limit = ScreenshotSettings::default().duplicate_max_distance;
    assert!(
        screenshot::is_duplicate(info.hash, again.hash, limit),
        "distance {}",
        info.hash.distance(again.hash)
    );
    let pattern_file = dir.path().join("pattern.png");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=1080x1920",
        "-frames:v",
        "1",
        pattern_file.to_str().unwrap(),
    ]);
    let other = inspect(&std::fs::read(&pattern_file).unwrap()).unwrap();
    assert!(
        info.hash.distance(other.hash) > 12,
        "distance {}",
        info.hash.distance(other.hash)
    );

    // Other formats, whatever their name, and implausible sizes are refused.
    let gif_file = dir.path().join("shot.gif");
    ffmpeg(&[
        "-i",
        dir.path().join("shot.png").to_str().unwrap(),
        gif_file.to_str().unwrap(),
    ]);
    assert!(matches!(
        inspect(&std::fs::read(&gif_file).unwrap()),
        Err(ScreenshotError::UnsupportedFormat)
    ));
    let icon_file = dir.path().join("icon.png");
    ffmpeg(
        &[
            "-f",
            "lavfi",
            "-i",
            "color=red:size=120x120",
            "-frames:v",
            "1",
        ]
        .into_iter()
        .chain([icon_file.to_str().unwrap()])
        .collect::<Vec<_>>(),
    );
    assert!(matches!(
        inspect(&std::fs::read(&icon_file).unwrap()),
        Err(ScreenshotError::Implausible {
            width: 120,
            height: 120
        })
    ));
    let mut truncated = png.clone();
    truncated.truncate(png.len() / 2);
    assert!(matches!(
        inspect(&truncated),
        Err(ScreenshotError::Undecodable(_))
    ));
}

/// A chat-completions answer carrying `content` as the model's text.
fn chat(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"message": {"role": "assistant", "content": content}}]
    }))
}

async fn vision_verdict(reply: ResponseTemplate) -> screenshot::Verdict {
    let model = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .and(body_string_contains("data:image/png;base64,"))
        .and(body_string_contains("data:image/jpeg;base64,"))
        .and(body_string_contains(CODE))
        .respond_with(reply)
        .mount(&model)
        .await;
    let ai = AiSettings {
        provider: "openai".into(),
        base_url: format!("{}/v1", model.uri()),
        api_key: "sk-test".into(),
        model: "vision-test".into(),
        timeout_secs: 1,
    };
    let settings = ScreenshotSettings {
        verifier: "openai".into(),
        ..ScreenshotSettings::default()
    };
    let verifier = screenshot::from_settings(&settings, &ai, crate::helpers::http_client());
    let dir = tempfile::tempdir().unwrap();
    let shot = picture(dir.path(), "shot.png", &[CODE]);
    let (_, frames) = personalised(dir.path(), "testsrc", CODE).await;
    let verdict = verifier
        .verify(ProofRequest {
            image: shot,
            code: CODE.into(),
            video: Some(frames),
        })
        .await;
    let sent = model.received_requests().await.unwrap();
    if let Some(first) = sent.first() {
        let body: Value = serde_json::from_slice(&first.body).unwrap();
        assert_eq!(body["model"], "vision-test");
        // The key frame, then the screenshot.
        let content = &body["messages"][1]["content"];
        assert_eq!(content[1]["type"], "image_url");
        assert!(content[1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/jpeg"));
        assert!(content[2]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png"));
    }
    verdict
}

#[tokio::test]
async fn the_openai_verifier_answers_from_a_confident_vision_model_only() {
    let answer = |video: bool, code: bool, confidence: f64| {
        chat(&format!(
            "```json\n{}\n```",
            json!({"videoFound": video, "codeFound": code, "codeRead": CODE, "confidence": confidence})
        ))
    };
    let yes = vision_verdict(answer(true, true, 0.93)).await;
    assert_eq!(yes.finding, Finding::Shown);
    assert_eq!(yes.evidence.verifier, "openai");
    assert_eq!(yes.evidence.confidence, Some(0.93));
    assert_eq!(yes.evidence.ocr_text.as_deref(), Some(CODE));
    assert_eq!(
        vision_verdict(answer(true, false, 0.9)).await.finding,
        Finding::VideoWithoutCode
    );
    assert_eq!(
        vision_verdict(answer(false, true, 0.9)).await.finding,
        Finding::CodeWithoutVideo
    );
    assert_eq!(
        vision_verdict(answer(false, false, 0.9)).await.finding,
        Finding::NotShown
    );
    for unsure in [
        answer(true, true, 0.4),
        chat("I think so"),
        ResponseTemplate::new(500),
        answer(true, true, 0.99).set_delay(std::time::Duration::from_secs(3)),
    ] {
        let v = vision_verdict(unsure).await;
        assert!(matches!(v.finding, Finding::Unsure(_)), "{:?}", v.finding);
        assert_eq!(v.finding.status(), "needs_review");
        assert!(v.evidence.note.is_some());
    }
}
