//! Email over SMTP with STARTTLS and with implicit TLS, to a real aiosmtpd under a throwaway
//! CA: delivered through the API when `[tls] extra_ca_file` names the CA, refused
//! "certificate not trusted" when it does not.

use super::{Issued, TestCa};
use crate::helpers::ChildServer;
use crate::messaging::{app_with, eventually, json_body, wait_status, workspace, MessagingApp};
use serde_json::json;
use switchboard::providers::email::{EmailMessage, EmailSender, SmtpEmail};
use switchboard::providers::settings::EmailProviderSettings;
use switchboard::providers::Handover;

/// aiosmtpd writing what it receives to a maildir: STARTTLS required (`starttls`) or
/// SMTPS (`tls`), with `issued` as its certificate.
struct TlsSmtp {
    server: ChildServer,
    maildir: tempfile::TempDir,
}

impl TlsSmtp {
    async fn start(mode: &str, issued: &Issued) -> Self {
        let maildir = tempfile::tempdir().unwrap();
        let mail = maildir.path().join("mail");
        let (cert_flag, key_flag) = match mode {
            "tls" => ("--smtpscert", "--smtpskey"),
            _ => ("--tlscert", "--tlskey"),
        };
        let (cert, key) = (
            issued.cert.display().to_string(),
            issued.key.display().to_string(),
        );
        let args = [
            "-n",
            "-l",
            "127.0.0.1:{port}",
            cert_flag,
            &cert,
            key_flag,
            &key,
            "-c",
            "aiosmtpd.handlers.Mailbox",
            mail.to_str().unwrap(),
        ];
        let server = ChildServer::python("aiosmtpd", &args, "aiosmtpd").await;
        Self { server, maildir }
    }

    fn messages(&self) -> Vec<String> {
        crate::helpers::maildir_messages(&self.maildir.path().join("mail"))
    }

    fn settings(&self, mode: &str) -> EmailProviderSettings {
        EmailProviderSettings {
            provider: "smtp".into(),
            // The name the certificate carries (it has no IP address).
            host: "localhost".into(),
            port: self.server.port,
            tls: mode.into(),
            timeout_secs: 10,
            ..Default::default()
        }
    }
}

async fn delivered_through_the_api(mode: &str) {
    let ca = TestCa::new("SMTP Test CA");
    let smtp = TlsSmtp::start(mode, &ca.issue("smtp", "localhost", false)).await;
    let (email, ca_file) = (smtp.settings(mode), ca.cert.display().to_string());
    let app = app_with(move |s| {
        s.providers.email = email;
        s.tls.extra_ca_file = ca_file;
    })
    .await;
    let ws = workspace(&app, "1").await;
    let v = json_body(
        app.post_key(
            "/api/v1/messages/send",
            &ws.key,
            json!({"to": "ann@example.com", "channel": "email", "from": "Acme",
                   "content": {"subject": format!("Over {mode}"), "text": "Encrypted body"}}),
        )
        .await,
    )
    .await;
    let id = v["data"]["message_id"].as_str().unwrap();
    wait_status(&app, &ws.key, id, "sent").await;
    let mail = eventually("mail in the maildir", || async { smtp.messages().pop() }).await;
    assert!(mail.contains(&format!("Subject: Over {mode}")), "{mail}");
    assert!(mail.contains("Encrypted body"), "{mail}");
}

/// Without the CA, the sender's error names the certificate.
async fn untrusted_is_named(mode: &str) {
    let ca = TestCa::new("SMTP Test CA");
    let smtp = TlsSmtp::start(mode, &ca.issue("smtp", "localhost", false)).await;
    let err = SmtpEmail::new(&smtp.settings(mode), &Default::default())
        .unwrap()
        .send(
            &Handover {
                message_id: uuid::Uuid::new_v4(),
                retake: None,
            },
            &EmailMessage {
                to: "ann@example.com",
                from_name: "Acme",
                from_address: "acme@mail.acme.test",
                subject: "Never",
                text: Some("x"),
                html: None,
                service: "messaging",
                attachments: &[],
                list_unsubscribe: None,
            },
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().ends_with("certificate not trusted"),
        "{mode}: {err}"
    );
    assert!(smtp.messages().is_empty());
}

#[actix_web::test]
async fn email_over_starttls_reaches_a_real_smtp_server_under_a_private_ca() {
    delivered_through_the_api("starttls").await;
    untrusted_is_named("starttls").await;
}

#[actix_web::test]
async fn email_over_implicit_tls_reaches_a_real_smtp_server_under_a_private_ca() {
    delivered_through_the_api("tls").await;
    untrusted_is_named("tls").await;
}
