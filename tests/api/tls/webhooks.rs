//! A messaging webhook to an HTTPS receiver under a private CA: failed "certificate not
//! trusted" without `[tls] extra_ca_file`, delivered with it; a closed port reads
//! "connection refused".

use super::{ClosedPort, Issued, TestCa};
use crate::messaging::{app_with, attempts, eventually, sms, webhook, workspace, MessagingApp};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// An HTTPS server answering every request 200, counting the requests it read.
struct HttpsReceiver {
    port: u16,
    requests: Arc<AtomicUsize>,
}

impl HttpsReceiver {
    async fn start(issued: &Issued) -> Self {
        switchboard::core::tls::install_crypto_provider();
        let chain = CertificateDer::pem_file_iter(&issued.cert)
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_file(&issued.key).unwrap();
        let config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, counted) = (acceptor.clone(), counted.clone());
                tokio::spawn(async move {
                    // A client that does not trust us ends the handshake: nothing to count.
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut buf = vec![0u8; 64 * 1024];
                    if tls.read(&mut buf).await.unwrap_or(0) > 0 {
                        counted.fetch_add(1, Ordering::SeqCst);
                        let _ = tls
                            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                            .await;
                        let _ = tls.shutdown().await;
                    }
                });
            }
        });
        Self { port, requests }
    }
}

/// The first delivery attempt of a `message.sent` webhook at `url`, after one SMS.
async fn first_attempt(extra_ca: Option<String>, url: &str) -> serde_json::Value {
    let app = app_with(move |s| {
        s.services.messaging.sandbox_delivery_reports = false;
        if let Some(ca) = extra_ca {
            s.tls.extra_ca_file = ca;
        }
    })
    .await;
    let ws = workspace(&app, "10").await;
    let (hook, _) = webhook(&app, &ws.key, url, &["message.sent"]).await;
    app.post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "Hi"))
        .await;
    eventually("a delivery attempt", || async {
        attempts(&app, &ws.key, &hook).await.into_iter().next()
    })
    .await
}

#[actix_web::test]
async fn an_https_webhook_under_a_private_ca_is_delivered_once_the_ca_is_trusted() {
    let ca = TestCa::new("Webhook Test CA");
    let receiver = HttpsReceiver::start(&ca.issue("hook", "localhost", false)).await;
    let url = format!("https://localhost:{}/hook", receiver.port);

    let untrusted = first_attempt(None, &url).await;
    assert_eq!(untrusted["error"], "certificate not trusted", "{untrusted}");
    assert!(untrusted["response_status"].is_null(), "{untrusted}");
    assert_eq!(receiver.requests.load(Ordering::SeqCst), 0);

    let trusted = first_attempt(Some(ca.cert.display().to_string()), &url).await;
    assert_eq!(trusted["response_status"], 200, "{trusted}");
    assert!(trusted["error"].is_null(), "{trusted}");
    assert_eq!(receiver.requests.load(Ordering::SeqCst), 1);
}

#[actix_web::test]
async fn a_webhook_to_a_closed_port_is_recorded_as_connection_refused() {
    let closed = ClosedPort::bind();
    let url = format!("http://127.0.0.1:{}/hook", closed.port());
    let attempt = first_attempt(None, &url).await;
    assert_eq!(attempt["error"], "connection refused", "{attempt}");
}
