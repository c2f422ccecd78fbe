//! The platform's media: the ports it keeps and makes files with (storage, ffmpeg, the
//! screenshot verifier), ad source videos (a storage key, or an https URL fetched under the
//! public-only outbound policy), and personalised videos behind signed links.

pub mod cleanup;
pub mod links;
pub mod processing;
pub mod routes;
pub mod source;
pub mod staff;

use crate::core::download::{self, DownloadError};
use crate::providers::screenshot::ScreenshotVerifier;
use crate::providers::storage::{Storage, StorageError, StorageKey};
use crate::providers::video::VideoProcessor;
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
    /// Signs staff links to stored objects.
    pub staff_links: links::LinkKey,
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
