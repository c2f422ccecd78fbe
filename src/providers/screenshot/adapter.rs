//! The verifier `[providers.screenshots] verifier` names.

use super::super::openai_chat::ChatClient;
use super::super::settings::{AiSettings, ScreenshotSettings};
use super::{ocr, vision, ScreenshotVerifier};
use std::sync::Arc;

pub fn from_settings(
    s: &ScreenshotSettings,
    ai: &AiSettings,
    http: reqwest::Client,
) -> Arc<dyn ScreenshotVerifier> {
    match s.verifier.as_str() {
        "openai" => Arc::new(vision::VisionVerifier::new(
            ChatClient::new(ai, http),
            s.min_confidence,
        )),
        _ => Arc::new(ocr::TesseractVerifier::new(s)),
    }
}
