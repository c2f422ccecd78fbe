//! Storage port for media (ad videos, personalised videos, thumbnails, screenshots): a local
//! directory by default, any S3-compatible store in production. Both adapters are the
//! `object_store` crate behind one type, so ranges, multipart uploads and errors behave alike.

use crate::core::tls::ExtraRoots;
use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::{BoxStream, StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart};
use serde::Deserialize;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `[providers.storage]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct StorageSettings {
    /// `local` (a directory) or `s3` (any S3-compatible store).
    pub provider: String,
    /// The local adapter's directory; created at start-up.
    pub path: String,
    /// The S3 endpoint, e.g. `http://127.0.0.1:9000`; empty means AWS itself. An `http://`
    /// endpoint is allowed plain HTTP (local servers).
    pub endpoint: String,
    pub region: String,
    pub bucket: String,
    pub access_key_id: String,
    pub secret_access_key: String,
    /// `bucket.host/key` addressing instead of `host/bucket/key` (local servers want the latter).
    pub virtual_hosted_style: bool,
}

impl Default for StorageSettings {
    fn default() -> Self {
        Self {
            provider: "local".into(),
            path: "data/media".into(),
            endpoint: String::new(),
            region: "us-east-1".into(),
            bucket: String::new(),
            access_key_id: String::new(),
            secret_access_key: String::new(),
            virtual_hosted_style: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("invalid storage key: {0}")]
    InvalidKey(String),
    #[error("no object at {0}")]
    NotFound(String),
    /// The requested range starts past the end (HTTP 416 with `bytes */total`).
    #[error("range not satisfiable (object has {total} bytes)")]
    RangeNotSatisfiable { total: u64 },
    #[error("storage settings: {0}")]
    Config(String),
    #[error("storage i/o: {0}")]
    Io(#[from] std::io::Error),
    /// The store failed or could not be reached; worth retrying.
    #[error("storage backend: {0}")]
    Backend(String),
}

impl From<object_store::Error> for StorageError {
    fn from(e: object_store::Error) -> Self {
        match e {
            object_store::Error::NotFound { path, .. } => Self::NotFound(path),
            // The cause first ("certificate not trusted", "connection refused"): object_store's
            // own text ends in reqwest's "error sending request".
            other => match crate::core::net_error::cause(&other) {
                Some(cause) => Self::Backend(format!("{}: {other}", cause.text())),
                None => Self::Backend(other.to_string()),
            },
        }
    }
}

/// A key that names an object and cannot leave the store's root: `/`-separated segments
/// of ASCII letters, digits, `_`, `-` and `.`, none empty or starting with a dot (so no `..`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StorageKey(String);

impl StorageKey {
    const MAX_LEN: usize = 512;

    pub fn parse(raw: &str) -> Result<Self, StorageError> {
        let bad = |why: &str| StorageError::InvalidKey(format!("{why}: {raw:?}"));
        if raw.is_empty() || raw.len() > Self::MAX_LEN {
            return Err(bad("length must be 1 to 512"));
        }
        for segment in raw.split('/') {
            if segment.is_empty() || segment.starts_with('.') {
                return Err(bad("empty or dot segment"));
            }
            let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
            if !segment.chars().all(ok) {
                return Err(bad("only letters, digits, '_', '-', '.' and '/'"));
            }
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The extension after the last dot of the last segment, if any.
    pub fn extension(&self) -> Option<&str> {
        let name = self.0.rsplit('/').next()?;
        name.rsplit_once('.').map(|(_, ext)| ext)
    }

    /// The `Content-Type` to serve this object with, judged by its extension.
    pub fn content_type(&self) -> &'static str {
        match self.extension().map(str::to_ascii_lowercase).as_deref() {
            Some("mp4" | "m4v") => "video/mp4",
            Some("webm") => "video/webm",
            Some("mov") => "video/quicktime",
            Some("jpg" | "jpeg") => "image/jpeg",
            Some("png") => "image/png",
            Some("webp") => "image/webp",
            _ => "application/octet-stream",
        }
    }

    fn object_path(&self) -> ObjectPath {
        // Every segment is already free of the characters `Path` would encode.
        ObjectPath::from_iter(self.0.split('/'))
    }
}

impl std::fmt::Display for StorageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One range of an HTTP `Range: bytes=…` header, before the object's length is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteRange {
    /// `bytes=a-b`, both ends included.
    FromTo(u64, u64),
    /// `bytes=a-`.
    From(u64),
    /// `bytes=-n`: the last n bytes.
    Last(u64),
}

impl ByteRange {
    /// The range a `Range` header asks for. None for anything else (another unit, several
    /// ranges, bad syntax): RFC 9110 lets a server ignore such a header and send it all.
    pub fn from_header(value: &str) -> Option<Self> {
        let spec = value.trim().strip_prefix("bytes=")?.trim();
        if spec.contains(',') {
            return None;
        }
        let (a, b) = spec.split_once('-')?;
        let num = |s: &str| -> Option<u64> {
            let s = s.trim();
            (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        match (a.trim().is_empty(), b.trim().is_empty()) {
            (true, false) => Some(Self::Last(num(b)?)),
            (false, true) => Some(Self::From(num(a)?)),
            (false, false) => {
                let (start, end) = (num(a)?, num(b)?);
                (start <= end).then_some(Self::FromTo(start, end))
            }
            (true, true) => None,
        }
    }

    /// The bytes `start..end` this range names in an object of `total` bytes; a range past
    /// the end is clipped, one starting past it is unsatisfiable.
    pub fn resolve(self, total: u64) -> Result<Range<u64>, StorageError> {
        let unsatisfiable = StorageError::RangeNotSatisfiable { total };
        match self {
            Self::FromTo(start, _) | Self::From(start) if start >= total => Err(unsatisfiable),
            Self::FromTo(start, end) => Ok(start..end.saturating_add(1).min(total)),
            Self::From(start) => Ok(start..total),
            Self::Last(0) => Err(unsatisfiable),
            Self::Last(_) if total == 0 => Err(unsatisfiable),
            Self::Last(n) => Ok(total.saturating_sub(n)..total),
        }
    }
}

pub type ByteStream = BoxStream<'static, Result<Bytes, StorageError>>;

/// Part (or all) of an object, streamed.
pub struct RangeRead {
    /// The object's whole length.
    pub total: u64,
    /// The bytes `body` carries.
    pub range: Range<u64>,
    pub body: ByteStream,
}

impl RangeRead {
    /// `Content-Range` for a 206 answer: `bytes first-last/total`.
    pub fn content_range(&self) -> String {
        format!(
            "bytes {}-{}/{}",
            self.range.start,
            self.range.end.saturating_sub(1),
            self.total
        )
    }

    pub fn len(&self) -> u64 {
        self.range.end - self.range.start
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[async_trait]
pub trait Storage: Send + Sync + 'static {
    /// Stores `bytes` at `key`, replacing any object there.
    async fn put(&self, key: &StorageKey, bytes: Bytes) -> Result<(), StorageError>;
    /// Stores the file at `path` (streamed in parts when large).
    async fn put_file(&self, key: &StorageKey, path: &Path) -> Result<(), StorageError>;
    /// The whole object in memory (screenshots; stream videos with `read_range`).
    async fn get(&self, key: &StorageKey) -> Result<Bytes, StorageError>;
    /// The object's length and the bytes `range` names (all of them for None), streamed.
    async fn read_range(
        &self,
        key: &StorageKey,
        range: Option<ByteRange>,
    ) -> Result<RangeRead, StorageError>;
    async fn size(&self, key: &StorageKey) -> Result<u64, StorageError>;
    /// Removes the object; removing one that is not there succeeds.
    async fn delete(&self, key: &StorageKey) -> Result<(), StorageError>;
    /// Copies the object to a temporary file (tools such as ffmpeg want a path), keeping
    /// the key's extension; the file is removed when the returned path is dropped.
    async fn fetch_to_temp(&self, key: &StorageKey) -> Result<tempfile::TempPath, StorageError>;
    /// Every object whose key starts with the folder `prefix` (`videos/ads`), with when it
    /// was last written.
    async fn list(&self, prefix: &str) -> Result<Vec<StoredObject>, StorageError>;
}

/// An object found by [`Storage::list`].
#[derive(Debug, Clone)]
pub struct StoredObject {
    pub key: String,
    pub modified: chrono::DateTime<chrono::Utc>,
    pub size: u64,
}

/// The configured store. An unknown provider or an S3 store without a bucket is an error at
/// start-up rather than at the first upload. The S3 client trusts `roots` besides the
/// system's (an S3-compatible store under a private CA).
pub fn from_settings(
    s: &StorageSettings,
    roots: &ExtraRoots,
) -> Result<Arc<dyn Storage>, StorageError> {
    let store: Arc<dyn ObjectStore> = match s.provider.as_str() {
        "local" => {
            std::fs::create_dir_all(&s.path)?;
            Arc::new(object_store::local::LocalFileSystem::new_with_prefix(
                &s.path,
            )?)
        }
        "s3" => {
            if s.bucket.is_empty() {
                return Err(StorageError::Config(
                    "providers.storage.bucket is required for s3".into(),
                ));
            }
            let mut b = object_store::aws::AmazonS3Builder::new()
                .with_region(&s.region)
                .with_bucket_name(&s.bucket)
                .with_access_key_id(&s.access_key_id)
                .with_secret_access_key(&s.secret_access_key)
                .with_virtual_hosted_style_request(s.virtual_hosted_style)
                .with_client_options(roots.object_store());
            if !s.endpoint.is_empty() {
                b = b
                    .with_endpoint(&s.endpoint)
                    .with_allow_http(s.endpoint.starts_with("http://"));
            }
            Arc::new(b.build()?)
        }
        other => {
            return Err(StorageError::Config(format!(
                "unknown storage provider {other:?} (local or s3)"
            )))
        }
    };
    Ok(Arc::new(ObjectStorage { store }))
}

/// Objects up to this size are sent in one request; larger files go up in parts.
const SINGLE_PUT_MAX: u64 = 8 * 1024 * 1024;
const READ_CHUNK: usize = 1024 * 1024;

/// Either adapter: `object_store`'s local file system or its S3 client.
pub struct ObjectStorage {
    store: Arc<dyn ObjectStore>,
}

#[async_trait]
impl Storage for ObjectStorage {
    async fn put(&self, key: &StorageKey, bytes: Bytes) -> Result<(), StorageError> {
        self.store
            .put(&key.object_path(), PutPayload::from(bytes))
            .await?;
        Ok(())
    }

    async fn put_file(&self, key: &StorageKey, path: &Path) -> Result<(), StorageError> {
        let mut file = tokio::fs::File::open(path).await?;
        if file.metadata().await?.len() <= SINGLE_PUT_MAX {
            let mut buf = Vec::new();
            file.read_to_end(&mut buf).await?;
            return self.put(key, Bytes::from(buf)).await;
        }
        let upload = self.store.put_multipart(&key.object_path()).await?;
        let mut writer = WriteMultipart::new(upload);
        let mut buf = vec![0u8; READ_CHUNK];
        loop {
            let n = match file.read(&mut buf).await {
                Ok(n) => n,
                Err(e) => {
                    writer.abort().await?;
                    return Err(e.into());
                }
            };
            if n == 0 {
                break;
            }
            writer.wait_for_capacity(4).await?;
            writer.write(&buf[..n]);
        }
        writer.finish().await?;
        Ok(())
    }

    async fn get(&self, key: &StorageKey) -> Result<Bytes, StorageError> {
        Ok(self.store.get(&key.object_path()).await?.bytes().await?)
    }

    async fn read_range(
        &self,
        key: &StorageKey,
        range: Option<ByteRange>,
    ) -> Result<RangeRead, StorageError> {
        let path = key.object_path();
        let options = match range {
            None => GetOptions::default(),
            Some(r) => {
                // Resolved here rather than by the store: S3 and the file system disagree
                // on ranges past the end.
                let total = self.store.head(&path).await?.size;
                let range = r.resolve(total)?;
                GetOptions {
                    range: Some(GetRange::Bounded(range)),
                    ..GetOptions::default()
                }
            }
        };
        let got = self.store.get_opts(&path, options).await?;
        let (total, range) = (got.meta.size, got.range.clone());
        let body = got.into_stream().map_err(StorageError::from).boxed();
        Ok(RangeRead { total, range, body })
    }

    async fn size(&self, key: &StorageKey) -> Result<u64, StorageError> {
        Ok(self.store.head(&key.object_path()).await?.size)
    }

    async fn delete(&self, key: &StorageKey) -> Result<(), StorageError> {
        match self.store.delete(&key.object_path()).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    async fn list(&self, prefix: &str) -> Result<Vec<StoredObject>, StorageError> {
        let prefix = ObjectPath::from(prefix.trim_matches('/'));
        let found: Vec<object_store::ObjectMeta> =
            self.store.list(Some(&prefix)).try_collect().await?;
        Ok(found
            .into_iter()
            .map(|m| StoredObject {
                key: m.location.to_string(),
                modified: m.last_modified,
                size: m.size,
            })
            .collect())
    }

    async fn fetch_to_temp(&self, key: &StorageKey) -> Result<tempfile::TempPath, StorageError> {
        let suffix = key.extension().map(|e| format!(".{e}")).unwrap_or_default();
        let temp = tempfile::Builder::new()
            .prefix("switchboard-media-")
            .suffix(&suffix)
            .tempfile()?
            .into_temp_path();
        let mut body = self.read_range(key, None).await?.body;
        let mut out = tokio::fs::File::create(&temp).await?;
        while let Some(chunk) = body.next().await {
            out.write_all(&chunk?).await?;
        }
        out.flush().await?;
        Ok(temp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_leave_the_root() {
        for bad in [
            "", "/abs", "a//b", "../x", "a/../b", "a/./b", ".hidden", "a\\b", "a b", "a/b/", "é",
        ] {
            assert!(StorageKey::parse(bad).is_err(), "{bad:?} was accepted");
        }
        let key = StorageKey::parse("videos/ad-1/sub_2.final.mp4").unwrap();
        assert_eq!(key.extension(), Some("mp4"));
        assert_eq!(key.content_type(), "video/mp4");
        assert!(StorageKey::parse(&"a".repeat(513)).is_err());
    }

    #[test]
    fn range_headers_parse_and_resolve_like_rfc_9110() {
        let r = |h: &str| ByteRange::from_header(h);
        assert_eq!(r("bytes=0-99"), Some(ByteRange::FromTo(0, 99)));
        assert_eq!(r("bytes=100-"), Some(ByteRange::From(100)));
        assert_eq!(r("bytes=-5"), Some(ByteRange::Last(5)));
        for ignored in [
            "bytes=5-1",
            "bytes=0-1,4-5",
            "items=0-1",
            "bytes=-",
            "bytes=a-b",
        ] {
            assert_eq!(r(ignored), None, "{ignored}");
        }
        assert_eq!(ByteRange::FromTo(0, 99).resolve(50).unwrap(), 0..50);
        assert_eq!(ByteRange::From(10).resolve(50).unwrap(), 10..50);
        assert_eq!(ByteRange::Last(500).resolve(50).unwrap(), 0..50);
        assert_eq!(ByteRange::Last(5).resolve(50).unwrap(), 45..50);
        assert!(ByteRange::From(50).resolve(50).is_err());
        assert!(ByteRange::Last(0).resolve(50).is_err());
        assert!(ByteRange::Last(3).resolve(0).is_err());
    }
}
