//! The platform's media: ad source videos, personalised videos behind signed links, and
//! screenshots, kept through the storage port.

use crate::settings::Settings;

/// Where an operator's `--video` lives: an https URL as given (fetched when a video is
/// made), or a local file copied into storage under the ad's videos.
pub async fn ad_source(
    _settings: &Settings,
    video: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let video = video.trim();
    if let Ok(url) = url::Url::parse(video) {
        if url.scheme() == "https" && url.host_str().is_some() {
            return Ok(video.to_owned());
        }
        if url.scheme() != "file" {
            return Err(
                format!("--video must be an https URL or a local file, not {video:?}").into(),
            );
        }
    }
    Err("local video files need the storage port (not wired yet)".into())
}
