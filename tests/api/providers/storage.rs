//! The media storage port: the local directory adapter and the S3 adapter against a real
//! S3-compatible server (moto's, from PyPI) that the test starts, put through the same steps.

use crate::helpers::ChildServer;
use futures_util::StreamExt;
use std::sync::Arc;
use switchboard::core::tls::ExtraRoots;
use switchboard::providers::storage::{
    self, ByteRange, RangeRead, Storage, StorageError, StorageKey, StorageSettings,
};

async fn collect(read: RangeRead) -> Vec<u8> {
    let mut body = read.body;
    let mut out = Vec::new();
    while let Some(chunk) = body.next().await {
        out.extend_from_slice(&chunk.unwrap());
    }
    out
}

fn key(raw: &str) -> StorageKey {
    StorageKey::parse(raw).unwrap()
}

/// Every operation of the port, as the advertising service will use it.
async fn exercise(store: Arc<dyn Storage>) {
    let small = key("screenshots/sub-1/shot.png");
    let bytes: Vec<u8> = (0u8..=99).collect();
    store.put(&small, bytes.clone().into()).await.unwrap();
    assert_eq!(store.size(&small).await.unwrap(), 100);
    assert_eq!(store.get(&small).await.unwrap().as_ref(), &bytes[..]);

    let whole = store.read_range(&small, None).await.unwrap();
    assert_eq!((whole.total, whole.range.clone()), (100, 0..100));
    assert_eq!(collect(whole).await, bytes);

    // Each header as an HTTP handler hands it over: Content-Range and the bytes.
    let ranged = |header: &'static str| {
        let store = store.clone();
        let small = small.clone();
        async move {
            let read = store
                .read_range(&small, ByteRange::from_header(header))
                .await
                .unwrap();
            (read.content_range(), collect(read).await)
        }
    };
    let expected = |a: usize, b: usize| (format!("bytes {a}-{}/100", b - 1), bytes[a..b].to_vec());
    assert_eq!(ranged("bytes=10-19").await, expected(10, 20));
    assert_eq!(ranged("bytes=-5").await, expected(95, 100));
    assert_eq!(ranged("bytes=90-500").await, expected(90, 100));
    let past = store
        .read_range(&small, ByteRange::from_header("bytes=100-"))
        .await;
    assert!(
        matches!(past, Err(StorageError::RangeNotSatisfiable { total: 100 })),
        "{:?}",
        past.err()
    );

    // A file larger than one request goes up in parts and comes back whole.
    let dir = tempfile::tempdir().unwrap();
    let big_file = dir.path().join("ad.mp4");
    let big: Vec<u8> = (0..9 * 1024 * 1024 + 17).map(|i| (i % 251) as u8).collect();
    std::fs::write(&big_file, &big).unwrap();
    let video = key("videos/ad-1/personalised.mp4");
    store.put_file(&video, &big_file).await.unwrap();
    assert_eq!(store.size(&video).await.unwrap(), big.len() as u64);
    let middle = store
        .read_range(&video, Some(ByteRange::FromTo(5_000_000, 5_000_099)))
        .await
        .unwrap();
    assert_eq!(middle.total, big.len() as u64);
    assert_eq!(collect(middle).await, &big[5_000_000..5_000_100]);
    let temp = store.fetch_to_temp(&video).await.unwrap();
    assert!(temp.to_str().unwrap().ends_with(".mp4"));
    assert_eq!(std::fs::read(&temp).unwrap(), big);
    let temp_path = temp.to_path_buf();
    drop(temp);
    assert!(
        !temp_path.exists(),
        "the temporary copy outlived its handle"
    );

    store.delete(&video).await.unwrap();
    assert!(matches!(
        store.size(&video).await,
        Err(StorageError::NotFound(_))
    ));
    assert!(matches!(
        store.read_range(&video, None).await,
        Err(StorageError::NotFound(_))
    ));
    store.delete(&video).await.unwrap();
}

#[tokio::test]
async fn local_storage_serves_ranges_and_keeps_keys_inside_its_directory() {
    let root = tempfile::tempdir().unwrap();
    let media = root.path().join("media");
    let settings = StorageSettings {
        path: media.to_str().unwrap().into(),
        ..StorageSettings::default()
    };
    let store = storage::from_settings(&settings, &ExtraRoots::default()).unwrap();
    exercise(store.clone()).await;
    assert!(media.join("screenshots/sub-1/shot.png").is_file());

    for escaping in [
        "../outside.txt",
        "a/../../outside.txt",
        "/etc/passwd",
        ".env",
    ] {
        assert!(
            matches!(
                StorageKey::parse(escaping),
                Err(StorageError::InvalidKey(_))
            ),
            "{escaping}"
        );
    }
    assert!(!root.path().join("outside.txt").exists());
}

/// moto's S3-compatible server on a free port, stopped when dropped.
pub(crate) struct S3Server {
    _server: ChildServer,
    endpoint: String,
    /// Trusts the server's certificate (none over plain HTTP).
    client: reqwest::Client,
}

impl S3Server {
    async fn start() -> Self {
        let args = ["-H", "127.0.0.1", "-p", "{port}"];
        let server = ChildServer::python("moto.server", &args, "moto[server]").await;
        Self {
            endpoint: format!("http://127.0.0.1:{}", server.port),
            _server: server,
            client: crate::helpers::http_client(),
        }
    }

    /// Over HTTPS with the certificate `cert`/`key` (PEM files); `client` trusts its issuer.
    pub(crate) async fn start_tls(cert: &str, key: &str, client: reqwest::Client) -> Self {
        let args = ["-H", "127.0.0.1", "-p", "{port}", "-c", cert, "-k", key];
        let server = ChildServer::python("moto.server", &args, "moto[server]").await;
        Self {
            endpoint: format!("https://127.0.0.1:{}", server.port),
            _server: server,
            client,
        }
    }

    /// moto takes an unsigned bucket creation.
    pub(crate) async fn create_bucket(&self, name: &str) {
        let res = self
            .client
            .put(format!("{}/{name}", self.endpoint))
            .send()
            .await
            .unwrap();
        assert!(res.status().is_success(), "{}", res.status());
    }

    pub(crate) fn settings(&self, bucket: &str) -> StorageSettings {
        StorageSettings {
            provider: "s3".into(),
            endpoint: self.endpoint.clone(),
            region: "us-east-1".into(),
            bucket: bucket.into(),
            access_key_id: "testing".into(),
            secret_access_key: "testing".into(),
            ..StorageSettings::default()
        }
    }
}

#[tokio::test]
async fn s3_storage_works_against_a_real_s3_compatible_server() {
    let s3 = S3Server::start().await;
    s3.create_bucket("switchboard-media").await;
    let store =
        storage::from_settings(&s3.settings("switchboard-media"), &ExtraRoots::default()).unwrap();
    exercise(store).await;

    // The objects are really in the bucket, under the keys given.
    let listing = crate::helpers::http_client()
        .get(format!("{}/switchboard-media?list-type=2", s3.endpoint))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        listing.contains("<Key>screenshots/sub-1/shot.png</Key>"),
        "{listing}"
    );

    // A bucket that does not exist is an error (S3 answers NoSuchBucket), not a panic or a hang.
    let missing =
        storage::from_settings(&s3.settings("no-such-bucket"), &ExtraRoots::default()).unwrap();
    let err = missing
        .put(&key("a.png"), vec![1u8, 2, 3].into())
        .await
        .unwrap_err();
    assert!(matches!(err, StorageError::NotFound(_)), "{err:?}");
}

#[test]
fn storage_settings_are_checked_at_start_up() {
    let no_bucket = StorageSettings {
        provider: "s3".into(),
        ..StorageSettings::default()
    };
    assert!(matches!(
        storage::from_settings(&no_bucket, &ExtraRoots::default()).err(),
        Some(StorageError::Config(_))
    ));
    let unknown = StorageSettings {
        provider: "ftp".into(),
        ..StorageSettings::default()
    };
    assert!(matches!(
        storage::from_settings(&unknown, &ExtraRoots::default()).err(),
        Some(StorageError::Config(_))
    ));
}
