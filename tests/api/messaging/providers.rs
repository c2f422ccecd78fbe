use super::*;
use crate::helpers::ChildServer;
use serde_json::json;
use wiremock::matchers::{basic_auth, body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// An app whose SMS provider is the Twilio-compatible API at `twilio`.
async fn twilio_app(twilio: &MockServer) -> TestApp {
    twilio_app_at(twilio.uri()).await
}

async fn twilio_app_at(base_url: String) -> TestApp {
    app_with(|s| {
        s.providers.sms.provider = "twilio".into();
        s.providers.sms.base_url = base_url;
        s.providers.sms.account_sid = "AC9".into();
    })
    .await
}

/// Sends one SMS and waits until it has failed; the message.
async fn send_until_failed(app: &TestApp, key: &str) -> serde_json::Value {
    let v = json_body(
        app.post_key("/api/v1/messages/send", key, sms("+14155550123", "x"))
            .await,
    )
    .await;
    wait_status(
        app,
        key,
        v["data"]["message_id"].as_str().unwrap(),
        "failed",
    )
    .await
}

#[actix_web::test]
async fn sms_goes_through_the_twilio_adapter_with_a_status_callback() {
    let twilio = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/2010-04-01/Accounts/AC9/Messages.json"))
        .and(basic_auth("AC9", "carrier-token"))
        .and(body_string_contains("To=%2B14155550123"))
        .and(body_string_contains("Body=Hello+there"))
        .and(body_string_contains(
            "StatusCallback=https%3A%2F%2Fsb.example.com%2Fcarrier%2Fstatus",
        ))
        .respond_with(
            ResponseTemplate::new(201).set_body_json(json!({"sid": "SMtw1", "status": "queued"})),
        )
        .expect(1)
        .mount(&twilio)
        .await;
    let app = twilio_app(&twilio).await;
    let ws = workspace(&app, "5").await;
    let v = json_body(
        app.post_key(
            "/api/v1/messages/send",
            &ws.key,
            sms("+14155550123", "Hello there"),
        )
        .await,
    )
    .await;
    let id = v["data"]["message_id"].as_str().unwrap();
    let m = wait_status(&app, &ws.key, id, "sent").await;
    assert_eq!(m["provider_message_id"], "SMtw1");
    // A real carrier reports delivery by callback.
    carrier_post(
        &app,
        "/carrier/status",
        &[("MessageSid", "SMtw1"), ("MessageStatus", "delivered")],
    )
    .await;
    assert_eq!(message(&app, &ws.key, id).await["status"], "delivered");
    assert!(app.outbox_for("+14155550123").is_empty());
}

#[actix_web::test]
async fn a_refusing_provider_fails_the_message_and_refunds_it() {
    let twilio = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"code": 21211, "message": "Invalid 'To'"})),
        )
        .mount(&twilio)
        .await;
    let app = twilio_app(&twilio).await;
    let ws = workspace(&app, "5").await;
    let (rx, _) = subscribed_receiver(&app, &ws.key, &["message.failed", "message.sent"]).await;
    let v = json_body(
        app.post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
            .await,
    )
    .await;
    let m = wait_status(
        &app,
        &ws.key,
        v["data"]["message_id"].as_str().unwrap(),
        "failed",
    )
    .await;
    assert_eq!(m["error_code"], "provider_rejected_400");
    assert_eq!(app.balance(&ws.key).await, json!(5));
    let reqs = eventually("message.failed", || async {
        let r = rx.received_requests().await.unwrap();
        (!r.is_empty()).then_some(r)
    })
    .await;
    let ev: serde_json::Value = serde_json::from_slice(&reqs[0].body).unwrap();
    assert_eq!(ev["type"], "message.failed");
}

#[actix_web::test]
async fn whatsapp_uses_the_cloud_api_and_voice_the_calls_api() {
    let meta = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v21.0/PN123/messages"))
        .and(header("authorization", "Bearer wa-token"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"messaging_product": "whatsapp", "messages": [{"id": "wamid.ABC"}]}),
        ))
        .expect(1)
        .mount(&meta)
        .await;
    let calls = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/2010-04-01/Accounts/ACv/Calls.json"))
        .and(basic_auth("ACv", "voice-token"))
        .and(body_string_contains("Twiml=%3CResponse%3E%3CSay"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({"sid": "CAcall1"})))
        .expect(1)
        .mount(&calls)
        .await;
    let app = app_with(|s| {
        let w = &mut s.providers.whatsapp;
        w.provider = "cloud_api".into();
        w.base_url = meta.uri();
        w.phone_number_id = "PN123".into();
        w.access_token = "wa-token".into();
        let v = &mut s.providers.voice;
        v.provider = "twilio".into();
        v.base_url = calls.uri();
        v.account_sid = "ACv".into();
        v.auth_token = "voice-token".into();
    })
    .await;
    let ws = workspace(&app, "5").await;
    let v = json_body(
        app.post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "whatsapp", "content": {"text": "Hi {{n}}"}, "recipients": [{"to": "+5215512345678", "n": "Eva"}]}),
        )
        .await,
    )
    .await;
    let m = wait_status(
        &app,
        &ws.key,
        v["data"]["message_ids"][0].as_str().unwrap(),
        "sent",
    )
    .await;
    assert_eq!(m["provider_message_id"], "wamid.ABC");
    let sent: serde_json::Value =
        serde_json::from_slice(&meta.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(sent["to"], "5215512345678");
    assert_eq!(sent["text"]["body"], "Hi Eva");
    let v = json_body(
        app.post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "voice", "content": {"text": "Code <1 & 2>"}, "recipients": [{"to": "+4930123456"}]}),
        )
        .await,
    )
    .await;
    let id = v["data"]["message_ids"][0].as_str().unwrap();
    let m = wait_status(&app, &ws.key, id, "sent").await;
    assert_eq!(m["provider_message_id"], "CAcall1");
    let body = String::from_utf8(calls.received_requests().await.unwrap()[0].body.clone()).unwrap();
    assert!(
        body.contains("Code+%26lt%3B1+%26amp%3B+2%26gt%3B"),
        "{body}"
    );
    // The call's status callback completes it.
    carrier_post(
        &app,
        "/carrier/status",
        &[("CallSid", "CAcall1"), ("CallStatus", "completed")],
    )
    .await;
    assert_eq!(message(&app, &ws.key, id).await["status"], "delivered");
}

/// A real SMTP server (Python's aiosmtpd) writing what it receives to a maildir.
pub struct SmtpServer {
    _server: ChildServer,
    pub port: u16,
    maildir: tempfile::TempDir,
}

impl SmtpServer {
    pub async fn start() -> Self {
        let maildir = tempfile::tempdir().unwrap();
        let mail = maildir.path().join("mail");
        let args = [
            "-n",
            "-l",
            "127.0.0.1:{port}",
            "-c",
            "aiosmtpd.handlers.Mailbox",
            mail.to_str().unwrap(),
        ];
        let server = ChildServer::python("aiosmtpd", &args, "aiosmtpd").await;
        Self {
            port: server.port,
            _server: server,
            maildir,
        }
    }

    /// A server and an application mailing through it (as `mail.acme.test`).
    pub async fn with_app() -> (Self, TestApp) {
        let smtp = Self::start().await;
        let port = smtp.port;
        let app = app_with(move |s| {
            s.services.messaging.mail_domain = "mail.acme.test".into();
            let e = &mut s.providers.email;
            e.provider = "smtp".into();
            e.host = "127.0.0.1".into();
            e.port = port;
            e.tls = "none".into();
        })
        .await;
        (smtp, app)
    }

    pub fn messages(&self) -> Vec<String> {
        crate::helpers::maildir_messages(&self.maildir.path().join("mail"))
    }
}

#[actix_web::test]
async fn email_is_delivered_to_a_real_smtp_server() {
    let (smtp, app) = SmtpServer::with_app().await;
    let ws = workspace(&app, "1").await;
    let v = json_body(
        app.post_key(
            "/api/v1/messages/send",
            &ws.key,
            json!({"to": "ann@example.com", "channel": "email", "from": "Acme Deals",
                   "content": {"subject": "Order shipped", "text": "Plain body", "html": "<p>HTML body</p>"}}),
        )
        .await,
    )
    .await;
    let id = v["data"]["message_id"].as_str().unwrap();
    let m = wait_status(&app, &ws.key, id, "sent").await;
    let mail = eventually("mail in the maildir", || async { smtp.messages().pop() }).await;
    assert!(mail.contains("Subject: Order shipped"), "{mail}");
    assert!(mail.contains("acme-deals@mail.acme.test"), "{mail}");
    assert!(mail.contains("\"Acme Deals\""), "{mail}");
    assert!(mail.contains("To: ann@example.com"), "{mail}");
    assert!(
        mail.contains("Plain body") && mail.contains("<p>HTML body</p>"),
        "{mail}"
    );
    let mid = m["provider_message_id"].as_str().unwrap();
    assert!(mail.contains(mid), "Message-ID is the provider id: {mid}");
    assert!(app.outbox_for("ann@example.com").is_empty());
}

#[actix_web::test]
async fn a_refund_is_a_ledger_row_of_plus_the_message_cost() {
    let twilio = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"code": 21211})))
        .mount(&twilio)
        .await;
    let app = twilio_app(&twilio).await;
    let ws = workspace(&app, "5").await;
    // Two segments: 2 credits debited, then given back.
    let v = json_body(
        app.post_key(
            "/api/v1/messages/send",
            &ws.key,
            sms("+14155550123", &"a".repeat(161)),
        )
        .await,
    )
    .await;
    assert_eq!(v["data"]["credits_used"], json!(2));
    let id: uuid::Uuid = v["data"]["message_id"].as_str().unwrap().parse().unwrap();
    wait_status(&app, &ws.key, &id.to_string(), "failed").await;
    let rows = ledger(&app, &ws.key).await;
    let mut of_message: Vec<(String, i64)> = rows
        .iter()
        .filter(|r| r.message_id == Some(id))
        .map(|r| (r.reason.clone(), r.amount))
        .collect();
    of_message.sort();
    assert_eq!(
        of_message,
        [("message".to_owned(), -200), ("refund".to_owned(), 200)]
    );
    assert_eq!(rows.iter().map(|r| r.amount).sum::<i64>(), 500);
    assert_eq!(app.balance(&ws.key).await, json!(5));
}

#[actix_web::test]
async fn a_provider_5xx_refunds_the_credits() {
    let twilio = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_string("upstream down"))
        .mount(&twilio)
        .await;
    let app = twilio_app(&twilio).await;
    let ws = workspace(&app, "5").await;
    let m = send_until_failed(&app, &ws.key).await;
    assert_eq!(m["error_code"], "provider_rejected_503");
    assert_eq!(m["credits_used"], json!(1), "charged before the attempt");
    assert_eq!(app.balance(&ws.key).await, json!(5));
    let rows = ledger(&app, &ws.key).await;
    assert_eq!(rows.iter().filter(|r| r.reason == "refund").count(), 1);
}

#[actix_web::test]
async fn an_unreachable_provider_refunds_the_credits() {
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let app = twilio_app_at(base).await;
    let ws = workspace(&app, "5").await;
    let m = send_until_failed(&app, &ws.key).await;
    assert_eq!(m["error_code"], "provider_unavailable");
    assert_eq!(app.balance(&ws.key).await, json!(5));
    let rows = ledger(&app, &ws.key).await;
    assert_eq!(rows.iter().filter(|r| r.reason == "refund").count(), 1);
    assert_eq!(rows.iter().map(|r| r.amount).sum::<i64>(), 500);
}

#[actix_web::test]
async fn an_attachment_reaches_a_real_smtp_server_whole() {
    use base64::Engine;
    use switchboard::providers::email::{EmailAttachment, EmailMessage, EmailSender, SmtpEmail};
    use switchboard::providers::Handover;
    let smtp = SmtpServer::start().await;
    let settings = switchboard::providers::settings::EmailProviderSettings {
        provider: "smtp".into(),
        host: "127.0.0.1".into(),
        port: smtp.port,
        tls: "none".into(),
        ..Default::default()
    };
    let pdf = b"%PDF-1.4 an invoice, bytes as they are: \x00\x01\xff".to_vec();
    SmtpEmail::new(&settings, &Default::default())
        .unwrap()
        .send(
            &Handover {
                message_id: uuid::Uuid::new_v4(),
                retake: None,
            },
            &EmailMessage {
                to: "ann@example.com",
                from_name: "Switchboard Ads",
                from_address: "billing@mail.acme.test",
                subject: "Your invoice",
                text: Some("Attached."),
                html: None,
                service: "advertising",
                attachments: &[EmailAttachment {
                    filename: "INV-1.pdf",
                    content_type: "application/pdf",
                    bytes: &pdf,
                }],
                list_unsubscribe: None,
            },
        )
        .await
        .expect("sent");
    let mail = eventually("mail in the maildir", || async { smtp.messages().pop() }).await;
    assert!(mail.contains("multipart/mixed"), "{mail}");
    assert!(mail.contains("Attached."), "{mail}");
    assert!(mail.contains("filename=\"INV-1.pdf\""), "{mail}");
    assert!(mail.contains("Content-Type: application/pdf"), "{mail}");
    // The attachment's part, base64 lines up to the next boundary, decodes to the bytes sent.
    let part = mail.split("filename=\"INV-1.pdf\"").nth(1).unwrap();
    let body: String = part
        .split("\r\n\r\n")
        .nth(1)
        .or_else(|| part.split("\n\n").nth(1))
        .unwrap()
        .lines()
        .take_while(|l| !l.starts_with("--"))
        .collect();
    let sent = base64::engine::general_purpose::STANDARD
        .decode(body.trim())
        .expect("base64 body");
    assert_eq!(sent, pdf);
}
