//! Screenshot checks: format by content, plausible size and a perceptual hash that survives
//! re-encoding; the built-in verifier reading a referral code with Debian's tesseract; the
//! `openai` verifier against a fake vision model.

use super::media::{ffmpeg, text_picture};
use serde_json::{json, Value};
use switchboard::providers::screenshot::{
    self, inspect, Outcome, ScreenshotError, ScreenshotFormat, ScreenshotSettings,
};
use switchboard::providers::settings::AiSettings;
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const CODE: &str = "K7M9QX2P";

fn picture(dir: &std::path::Path, name: &str, lines: &[&str]) -> Vec<u8> {
    let file = dir.join(name);
    text_picture(&file, lines);
    std::fs::read(file).unwrap()
}

#[tokio::test]
async fn the_built_in_verifier_finds_the_code_by_ocr_and_only_when_it_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let with_code = picture(dir.path(), "with.png", &["My status", "Use code", CODE]);
    let without = picture(
        dir.path(),
        "without.png",
        &["My status", "Use code", "HWRT4ZC3"],
    );
    let verifier = screenshot::from_settings(
        &ScreenshotSettings::default(),
        &AiSettings::default(),
        reqwest::Client::new(),
    );
    assert_eq!(verifier.verify(&with_code, CODE).await, Outcome::Found);
    assert_eq!(verifier.verify(&without, CODE).await, Outcome::NotFound);

    // JPEG and WebP are read as well.
    for (name, format) in [("with.jpg", "mjpeg"), ("with.webp", "libwebp")] {
        let file = dir.path().join(name);
        ffmpeg(&[
            "-i",
            dir.path().join("with.png").to_str().unwrap(),
            "-c:v",
            format,
            file.to_str().unwrap(),
        ]);
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(
            verifier.verify(&bytes, CODE).await,
            Outcome::Found,
            "{name}"
        );
    }

    // Without its tool the verifier cannot tell, and says so.
    let blind = screenshot::from_settings(
        &ScreenshotSettings {
            tesseract_path: "/nonexistent/tesseract".into(),
            ..ScreenshotSettings::default()
        },
        &AiSettings::default(),
        reqwest::Client::new(),
    );
    assert!(matches!(
        blind.verify(&with_code, CODE).await,
        Outcome::Unsure(_)
    ));
    assert!(matches!(
        verifier.verify(b"GIF89a not a screenshot", CODE).await,
        Outcome::Unsure(_)
    ));
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

async fn vision_verdict(reply: ResponseTemplate) -> Outcome {
    let model = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .and(body_string_contains("data:image/png;base64,"))
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
    let verifier = screenshot::from_settings(&settings, &ai, reqwest::Client::new());
    let dir = tempfile::tempdir().unwrap();
    let shot = picture(dir.path(), "shot.png", &[CODE]);
    let outcome = verifier.verify(&shot, CODE).await;
    let sent = model.received_requests().await.unwrap();
    if let Some(first) = sent.first() {
        let body: Value = serde_json::from_slice(&first.body).unwrap();
        assert_eq!(body["model"], "vision-test");
        assert_eq!(body["messages"][1]["content"][1]["type"], "image_url");
    }
    outcome
}

#[tokio::test]
async fn the_openai_verifier_answers_from_a_confident_vision_model_only() {
    let yes = chat("```json\n{\"found\": true, \"confidence\": 0.93}\n```");
    assert_eq!(vision_verdict(yes).await, Outcome::Found);
    let no = chat("{\"found\": false, \"confidence\": 0.9}");
    assert_eq!(vision_verdict(no).await, Outcome::NotFound);
    for unsure in [
        chat("{\"found\": true, \"confidence\": 0.4}"),
        chat("I think so"),
        ResponseTemplate::new(500),
        chat("{\"found\": true, \"confidence\": 0.99}")
            .set_delay(std::time::Duration::from_secs(3)),
    ] {
        assert!(matches!(vision_verdict(unsure).await, Outcome::Unsure(_)));
    }
}
