//! The S3 media store under a private CA (moto's server over HTTPS): refused while the CA
//! is not trusted, every step works once `[tls] extra_ca_file` names it.

use super::TestCa;
use crate::providers::storage::S3Server;
use switchboard::core::config::TlsSettings;
use switchboard::core::tls::ExtraRoots;
use switchboard::providers::storage::{self, StorageError, StorageKey};

#[tokio::test]
async fn an_s3_store_under_a_private_ca_is_used_once_the_ca_is_trusted() {
    let ca = TestCa::new("S3 Test CA");
    let issued = ca.issue("s3", "localhost", true);
    let roots = ExtraRoots::load(&TlsSettings {
        extra_ca_file: ca.cert.display().to_string(),
    })
    .unwrap();
    let s3 = S3Server::start_tls(
        &issued.cert.display().to_string(),
        &issued.key.display().to_string(),
        roots.http().build().unwrap(),
    )
    .await;
    s3.create_bucket("media").await;
    let key = StorageKey::parse("screenshots/sub-1/shot.png").unwrap();

    let untrusted = storage::from_settings(&s3.settings("media"), &ExtraRoots::default()).unwrap();
    let refused = untrusted.put(&key, vec![1u8, 2, 3].into()).await;
    assert!(
        matches!(&refused, Err(StorageError::Backend(why)) if why.starts_with("certificate not trusted")),
        "{refused:?}"
    );

    let trusted = storage::from_settings(&s3.settings("media"), &roots).unwrap();
    trusted.put(&key, vec![1u8, 2, 3].into()).await.unwrap();
    let read = trusted.get(&key).await.unwrap();
    assert_eq!(read.as_ref(), &[1u8, 2, 3]);
}
