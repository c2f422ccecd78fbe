//! TLS shared by every client this process opens: the one rustls crypto provider (ring),
//! installed once per process, and the operator's extra trusted roots (`[tls]
//! extra_ca_file`), handed to the HTTP, SMTP, Redis and S3 clients on top of the system's.

use super::config::{ConfigError, TlsSettings};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use std::sync::Arc;

/// Makes ring the process's rustls provider. Idempotent: `main` calls it, and so does
/// `Application::build_with` (tests build applications without `main`) and every HTTP client
/// builder (reqwest, built without a provider of its own, refuses to build before one is
/// installed).
pub fn install_crypto_provider() {
    // Err only when a provider is installed already: by an earlier call, so the same one.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The certificates of `[tls] extra_ca_file`, trusted besides the system's roots by every
/// outbound TLS client (webhooks, providers' APIs, SMTP, Redis, S3); none when the setting is
/// empty. Cheap to clone.
#[derive(Clone, Default)]
pub struct ExtraRoots {
    certs: Arc<[CertificateDer<'static>]>,
}

impl std::fmt::Debug for ExtraRoots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExtraRoots({} certificates)", self.certs.len())
    }
}

impl ExtraRoots {
    /// Reads the PEM bundle the settings name; a missing, unreadable or empty one is a
    /// configuration error (trusting less than the operator asked for would fail later,
    /// and further from its cause).
    pub fn load(settings: &TlsSettings) -> Result<Self, ConfigError> {
        let path = settings.extra_ca_file.trim();
        if path.is_empty() {
            return Ok(Self::default());
        }
        let bad = |why: String| ConfigError::Invalid(format!("tls.extra_ca_file {path:?}: {why}"));
        let certs = CertificateDer::pem_file_iter(path)
            .map_err(|e| bad(e.to_string()))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(e.to_string()))?;
        if certs.is_empty() {
            return Err(bad("holds no PEM certificate".into()));
        }
        Ok(Self {
            certs: certs.into(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.certs.is_empty()
    }

    /// The start of every outbound HTTP client (the one place they are built): the
    /// process's provider installed, these roots trusted besides the system's.
    pub fn http(&self) -> reqwest::ClientBuilder {
        install_crypto_provider();
        reqwest::Client::builder().tls_certs_merge(self.reqwest())
    }

    fn reqwest(&self) -> Vec<reqwest::Certificate> {
        self.certs
            .iter()
            // Parsed once already in `load`: DER that rustls read is DER reqwest reads.
            .filter_map(|c| reqwest::Certificate::from_der(c).ok())
            .collect()
    }

    /// The S3 client's options (`object_store` builds its own reqwest client): these roots
    /// trusted besides the system's, as by every other outbound client.
    pub fn object_store(&self) -> object_store::ClientOptions {
        install_crypto_provider();
        self.certs
            .iter()
            .filter_map(|c| object_store::Certificate::from_der(c).ok())
            .fold(object_store::ClientOptions::new(), |options, cert| {
                options.with_root_certificate(cert)
            })
    }

    /// For lettre's `TlsParametersBuilder::add_root_certificate`.
    pub fn lettre(&self) -> Vec<lettre::transport::smtp::client::Certificate> {
        self.certs
            .iter()
            .filter_map(|c| lettre::transport::smtp::client::Certificate::from_der(c.to_vec()).ok())
            .collect()
    }

    /// A Redis client for `url`. Over `rediss://` with extra roots, it trusts the system's
    /// roots and these (the redis crate takes one PEM bundle that replaces the system's).
    pub fn redis_client(&self, url: &str) -> redis::RedisResult<redis::Client> {
        if self.is_empty() || !url.starts_with("rediss://") {
            return redis::Client::open(url);
        }
        let system = rustls_native_certs::load_native_certs().certs;
        let mut bundle = String::new();
        for cert in system.iter().chain(self.certs.iter()) {
            bundle.push_str(&pem(cert));
        }
        redis::Client::build_with_tls(
            url,
            redis::TlsCertificates {
                client_tls: None,
                root_cert: Some(bundle.into_bytes()),
            },
        )
    }
}

/// One certificate as PEM text.
fn pem(der: &[u8]) -> String {
    use base64::Engine;
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in body.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str("-----END CERTIFICATE-----\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_empty_bundle_is_a_setting_to_fix() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificates here\n").unwrap();
        for path in [dir.path().join("missing.pem"), empty] {
            let s = TlsSettings {
                extra_ca_file: path.display().to_string(),
            };
            let err = ExtraRoots::load(&s).unwrap_err().to_string();
            assert!(err.contains("tls.extra_ca_file"), "{err}");
        }
        assert!(ExtraRoots::load(&TlsSettings::default())
            .unwrap()
            .is_empty());
    }

    #[test]
    fn pem_round_trips_through_the_parser() {
        let der = vec![0x30u8, 0x03, 0x02, 0x01, 0x05];
        let text = pem(&der);
        let back = CertificateDer::from_pem_slice(text.as_bytes()).unwrap();
        assert_eq!(back.as_ref(), der.as_slice());
    }
}
