//! The platform's media: the ports it keeps and makes files with (storage, ffmpeg, the
//! screenshot verifier), ad source videos (a storage key, or an https URL fetched under the
//! public-only outbound policy), and personalised videos behind signed links.

pub mod cleanup;
pub mod links;
pub mod routes;
pub mod source;

use crate::core::download::{self, DownloadError};
use crate::providers::screenshot::ScreenshotVerifier;
use crate::providers::storage::{self, Storage, StorageError, StorageKey};
use crate::providers::video::{self, VideoProcessor};
use crate::settings::Settings;
use std::sync::Arc;
use std::time::Duration;

/// The media ports and policy of one service instance.
#[derive(Clone)]
pub struct Media {
    pub storage: Arc<dyn Storage>,
    pub video: Arc<dyn VideoProcessor>,
    pub verifier: Arc<dyn ScreenshotVerifier>,
    /// For ad videos given as URLs: no redirects, public addresses only (unless allowed).
    pub fetch: reqwest::Client,
    pub allow_private: bool,
    pub max_video_bytes: u64,
    /// Signs video links.
    pub links: links::LinkKey,
}

/// Why an ad's source video could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Download(#[from] DownloadError),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl SourceError {
    pub fn is_permanent(&self) -> bool {
        match self {
            Self::Download(e) => e.is_permanent(),
            Self::Storage(e) => {
                matches!(e, StorageError::InvalidKey(_) | StorageError::NotFound(_))
            }
        }
    }
}

impl Media {
    /// The ad's source video as a local file for ffmpeg.
    pub async fn source_to_temp(&self, source: &str) -> Result<tempfile::TempPath, SourceError> {
        if source.starts_with("https://") || source.starts_with("http://") {
            let client = &self.fetch;
            return Ok(download::to_temp_file(
                client,
                source,
                self.allow_private,
                self.max_video_bytes,
            )
            .await?);
        }
        let key = StorageKey::parse(source)?;
        Ok(self.storage.fetch_to_temp(&key).await?)
    }
}

/// How long an ad's video download may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(600);

/// The outbound client for ad videos given as URLs.
pub fn fetch_client(
    allow_private: bool,
    roots: &crate::core::tls::ExtraRoots,
) -> Result<reqwest::Client, reqwest::Error> {
    download::outbound_client(
        allow_private,
        "Switchboard-Media/1.0",
        Some(FETCH_TIMEOUT),
        roots,
    )
}

/// Where an operator's `--video` lives: an https URL as given (fetched when a video is
/// made), or a local file, checked to be a video by ffprobe and copied into storage under
/// `videos/ads/`.
pub async fn ad_source(
    settings: &Settings,
    video: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let video = video.trim();
    if video.contains("://") {
        let url = url::Url::parse(video)?;
        if url.scheme() == "https" && url.host_str().is_some() {
            return Ok(video.to_owned());
        }
        return Err(format!("--video must be an https URL or a local file, not {video:?}").into());
    }
    let path = std::path::Path::new(video);
    if !path.is_file() {
        return Err(format!("--video {video:?}: no such file").into());
    }
    video::from_settings(&settings.providers.video)
        .probe(path)
        .await?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| !e.is_empty() && e.len() <= 5 && e.bytes().all(|b| b.is_ascii_alphanumeric()))
        .unwrap_or("mp4")
        .to_ascii_lowercase();
    let key = StorageKey::parse(&format!(
        "videos/ads/{}.{ext}",
        uuid::Uuid::new_v4().simple()
    ))?;
    storage::from_settings(&settings.providers.storage)?
        .put_file(&key, path)
        .await?;
    Ok(key.as_str().to_owned())
}
