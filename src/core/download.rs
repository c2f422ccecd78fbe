//! Fetching a file from a URL someone gave us (an advertiser's video), under the same
//! outbound policy as webhooks: http(s) only, public addresses only (checked before and
//! enforced by the resolver), no redirects, a size cap, streamed to a temporary file.

use super::outbound_url::{check_public, parse_http_url, PublicOnlyResolver, UrlRefused};
use super::tls::ExtraRoots;
use futures_util::StreamExt;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// The URL may not be fetched (its form or its address): retrying will not help.
    #[error(transparent)]
    Refused(#[from] UrlRefused),
    /// The server answered, but not with the file (4xx, or too big): permanent.
    #[error("{0}")]
    Rejected(String),
    /// The network or the server failed (5xx, timeouts): worth retrying.
    #[error("{0}")]
    Failed(String),
}

impl DownloadError {
    pub fn is_permanent(&self) -> bool {
        !matches!(self, Self::Failed(_))
    }
}

/// An HTTP client for URLs callers give: no redirects (one could point inside), no proxy
/// from the environment (it would resolve past the resolver), public addresses only unless
/// `allow_private`.
pub fn outbound_client(
    allow_private: bool,
    user_agent: &str,
    timeout: Option<Duration>,
    roots: &ExtraRoots,
) -> Result<reqwest::Client, reqwest::Error> {
    let mut builder = roots
        .http()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(user_agent);
    if let Some(t) = timeout {
        builder = builder.timeout(t);
    }
    if !allow_private {
        builder = builder.dns_resolver(PublicOnlyResolver);
    }
    builder.build()
}

/// Streams `url` into a fresh temporary file, refusing more than `max_bytes`.
pub async fn to_temp_file(
    client: &reqwest::Client,
    raw_url: &str,
    allow_private: bool,
    max_bytes: u64,
) -> Result<tempfile::TempPath, DownloadError> {
    let url = parse_http_url(raw_url)?;
    check_public(&url, allow_private).await?;
    let res = client
        .get(url)
        .send()
        .await
        .map_err(|e| DownloadError::Failed(format!("fetching the file failed: {e}")))?;
    let status = res.status();
    if status.is_server_error() || status.as_u16() == 429 {
        return Err(DownloadError::Failed(format!(
            "the server answered {status}"
        )));
    }
    if !status.is_success() {
        return Err(DownloadError::Rejected(format!(
            "the server answered {status}"
        )));
    }
    if res.content_length().is_some_and(|n| n > max_bytes) {
        return Err(DownloadError::Rejected(format!(
            "the file is larger than {max_bytes} bytes"
        )));
    }
    let path = tempfile::NamedTempFile::new()
        .map_err(|e| DownloadError::Failed(e.to_string()))?
        .into_temp_path();
    let mut file = tokio::fs::File::create(&path)
        .await
        .map_err(|e| DownloadError::Failed(e.to_string()))?;
    let mut written: u64 = 0;
    let mut body = res.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk =
            chunk.map_err(|e| DownloadError::Failed(format!("the download broke off: {e}")))?;
        written += chunk.len() as u64;
        if written > max_bytes {
            return Err(DownloadError::Rejected(format!(
                "the file is larger than {max_bytes} bytes"
            )));
        }
        file.write_all(&chunk)
            .await
            .map_err(|e| DownloadError::Failed(e.to_string()))?;
    }
    file.flush()
        .await
        .map_err(|e| DownloadError::Failed(e.to_string()))?;
    Ok(path)
}
