//! The `openai` verifier: a vision model on the `[ai]` settings sees a key frame of the
//! subscription's personalised video beside the screenshot, with the code to look for, and
//! answers `{"videoFound", "codeFound", "codeRead", "confidence"}`. A doubtful answer (under
//! `min_confidence`), an unusable one or any error is `Unsure`: a person looks.

use super::{decode, DetailPrint, Evidence, Finding, ProofRequest, ScreenshotFormat, Verdict};
use crate::providers::openai_chat::{json_in, ChatClient};
use async_trait::async_trait;
use base64::Engine;
use image::ImageFormat;
use serde::Deserialize;
use std::io::Cursor;
use std::time::Instant;

pub struct VisionVerifier {
    client: ChatClient,
    min_confidence: f64,
}

impl VisionVerifier {
    pub fn new(client: ChatClient, min_confidence: f64) -> Self {
        Self {
            client,
            min_confidence,
        }
    }
}

const SYSTEM: &str = "You check screenshots that people send as proof that they posted a \
video. The first image is a frame of their personalised video, with their code burnt into it; \
the second is their screenshot. Answer with JSON only: {\"videoFound\": true|false, \
\"codeFound\": true|false, \"codeRead\": the code you read or null, \"confidence\": a number \
from 0 to 1}. videoFound is true only when the screenshot shows this video (the same footage, \
maybe smaller and surrounded by an app's buttons and captions). codeFound is true only when \
the exact code given is clearly visible on the video in the screenshot.";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    video_found: bool,
    code_found: bool,
    code_read: Option<String>,
    confidence: f64,
}

fn data_url(mime: &str, bytes: &[u8]) -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    format!("data:{mime};base64,{data}")
}

/// The middle key frame as JPEG (None when the video has none).
fn key_frame(req: &ProofRequest) -> Option<Vec<u8>> {
    let frames = req.video.as_ref()?.frames().ok()?;
    let middle = frames.get(frames.len() / 2)?;
    let mut jpeg = Vec::new();
    middle
        .to_rgb8()
        .write_to(&mut Cursor::new(&mut jpeg), ImageFormat::Jpeg)
        .ok()?;
    Some(jpeg)
}

#[async_trait]
impl super::ScreenshotVerifier for VisionVerifier {
    async fn verify(&self, req: ProofRequest) -> Verdict {
        let started = Instant::now();
        let mut evidence = Evidence::new("openai", &req.code);
        let finding = self.ask(&req, &mut evidence).await;
        // The model says nothing of where the code is: the duplicate check compares the
        // whole picture.
        let image = req.image.clone();
        let print = tokio::task::spawn_blocking(move || {
            decode(&image)
                .ok()
                .map(|(_, img)| DetailPrint::of(&img.into_luma8(), None))
        })
        .await
        .ok()
        .flatten();
        if let Finding::Unsure(why) = &finding {
            evidence.note = Some(why.clone());
        }
        evidence.elapsed_ms = started.elapsed().as_millis() as u64;
        Verdict {
            finding,
            evidence,
            print,
        }
    }
}

impl VisionVerifier {
    async fn ask(&self, req: &ProofRequest, evidence: &mut Evidence) -> Finding {
        let Some(format) = ScreenshotFormat::sniff(&req.image) else {
            return Finding::Unsure("the image must be PNG, JPEG or WebP".into());
        };
        let owned = req.clone();
        let Ok(Some(frame)) = tokio::task::spawn_blocking(move || key_frame(&owned)).await else {
            return Finding::Unsure("the subscription's video has no key frames".into());
        };
        let content = serde_json::json!([
            {"type": "text", "text": format!(
                "Does the second image show the video of the first, with the code {} on it?",
                req.code
            )},
            {"type": "image_url", "image_url": {"url": data_url("image/jpeg", &frame)}},
            {"type": "image_url", "image_url": {"url": data_url(format.mime(), &req.image)}},
        ]);
        let reply = match self.client.chat_content(SYSTEM, content).await {
            Ok(reply) => reply,
            Err(e) => return Finding::Unsure(format!("vision model: {e}")),
        };
        let Some(a) = json_in(&reply).and_then(|v| serde_json::from_value::<Answer>(v).ok()) else {
            return Finding::Unsure("vision model answered no usable JSON".into());
        };
        evidence.confidence = Some(a.confidence);
        evidence.video_found = a.video_found;
        evidence.code_matched = a.code_found;
        evidence.code_found_in = a.code_found.then(|| "picture".to_owned());
        evidence.ocr_text = a.code_read.clone();
        if a.confidence < self.min_confidence {
            return Finding::Unsure(format!(
                "vision model unsure (confidence {:.2})",
                a.confidence
            ));
        }
        Finding::of(a.video_found, a.code_found)
    }
}
