//! Email port: the outbox sandbox by default, SMTP (lettre) for real traffic.

use super::outbox::{Outbox, OutboxEntry};
use super::settings::EmailProviderSettings;
use super::{Accepted, Handover, ProviderError};
use crate::core::clock::SharedClock;
use crate::core::net_error;
use crate::core::tls::ExtraRoots;
use async_trait::async_trait;
use base64::Engine;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct EmailMessage<'a> {
    pub to: &'a str,
    pub from_name: &'a str,
    pub from_address: &'a str,
    pub subject: &'a str,
    pub text: Option<&'a str>,
    pub html: Option<&'a str>,
    pub service: &'a str,
    /// Files sent with the message (an invoice's PDF); usually none.
    pub attachments: &'a [EmailAttachment<'a>],
    /// Bulk mail's unsubscribe headers (RFC 2369, RFC 8058); none for transactional mail.
    pub list_unsubscribe: Option<&'a ListUnsubscribe>,
}

/// Where a recipient unsubscribes: a one-click HTTPS link (POSTed to by the mailbox
/// provider) and, when the sender keeps one, a mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListUnsubscribe {
    pub url: String,
    pub mailto: Option<String>,
}

impl ListUnsubscribe {
    /// The `List-Unsubscribe` value: `<https://…>, <mailto:…>`.
    pub fn header(&self) -> String {
        match &self.mailto {
            Some(m) => format!("<{}>, <mailto:{m}?subject=unsubscribe>", self.url),
            None => format!("<{}>", self.url),
        }
    }
}

/// RFC 8058's fixed value: the link unsubscribes on a POST of this body, no page to visit.
pub const ONE_CLICK: &str = "List-Unsubscribe=One-Click";

/// A file carried by an email.
#[derive(Debug, Clone)]
pub struct EmailAttachment<'a> {
    pub filename: &'a str,
    pub content_type: &'a str,
    pub bytes: &'a [u8],
}

message_port! {
    /// Where email goes. SMTP has no look-up, so a retaken hand-over sends again there; the
    /// sandbox hands each message over once.
    EmailSender for EmailMessage
}

pub fn from_settings(
    settings: &EmailProviderSettings,
    outbox: Arc<Outbox>,
    clock: SharedClock,
    roots: &ExtraRoots,
) -> Result<Arc<dyn EmailSender>, ProviderError> {
    match settings.provider.as_str() {
        "smtp" => Ok(Arc::new(SmtpEmail::new(settings, roots)?)),
        _ => Ok(Arc::new(OutboxEmail { outbox, clock })),
    }
}

pub struct OutboxEmail {
    pub outbox: Arc<Outbox>,
    pub clock: SharedClock,
}

#[async_trait]
impl EmailSender for OutboxEmail {
    async fn send(
        &self,
        h: &Handover<'_>,
        msg: &EmailMessage<'_>,
    ) -> Result<Accepted, ProviderError> {
        let text = msg.text.or(msg.html).unwrap_or_default();
        // The sandbox keeps attachments whole (base64), so a developer can open them.
        let mut details = (!msg.attachments.is_empty()).then(|| {
            let files: Vec<serde_json::Value> = msg
                .attachments
                .iter()
                .map(|a| {
                    serde_json::json!({
                        "filename": a.filename,
                        "contentType": a.content_type,
                        "size": a.bytes.len(),
                        "base64": base64::engine::general_purpose::STANDARD.encode(a.bytes),
                    })
                })
                .collect();
            serde_json::json!({ "attachments": files })
        });
        if let Some(l) = msg.list_unsubscribe {
            let headers = serde_json::json!({
                "List-Unsubscribe": l.header(),
                "List-Unsubscribe-Post": ONE_CLICK,
            });
            details
                .get_or_insert_with(|| serde_json::json!({}))
                .as_object_mut()
                .map(|d| d.insert("headers".into(), headers));
        }
        let entry = OutboxEntry {
            subject: Some(msg.subject),
            details: details.as_ref(),
            ..OutboxEntry::new("email", msg.to, text, msg.service, self.clock.now())
        };
        Ok(self.outbox.hand_over("EM", h, entry).await?)
    }

    async fn status(&self, _: &str, message_id: Uuid) -> Result<Option<String>, ProviderError> {
        Ok(self.outbox.status(message_id).await?)
    }

    fn is_sandbox(&self) -> bool {
        true
    }
}

pub struct SmtpEmail {
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl SmtpEmail {
    /// `tls`: "tls" (implicit TLS, port 465 usually), "starttls" (required, 587 or 25),
    /// anything else plain SMTP (local relays). The server's certificate must chain to the
    /// system's roots or `[tls] extra_ca_file`'s.
    pub fn new(s: &EmailProviderSettings, roots: &ExtraRoots) -> Result<Self, ProviderError> {
        let params = || {
            crate::core::tls::install_crypto_provider();
            roots
                .lettre()
                .into_iter()
                .fold(TlsParameters::builder(s.host.clone()), |b, cert| {
                    b.add_root_certificate(cert)
                })
                .build_rustls()
                .map_err(|e| ProviderError::Unreachable(format!("[providers.email] tls: {e}")))
        };
        let tls = match s.tls.as_str() {
            "tls" => Tls::Wrapper(params()?),
            "starttls" => Tls::Required(params()?),
            // Plain SMTP: local relays and test servers.
            _ => Tls::None,
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&s.host)
            .tls(tls)
            .port(s.port)
            .timeout(Some(Duration::from_secs(s.timeout_secs.max(1))));
        if !s.username.is_empty() {
            builder = builder.credentials(Credentials::new(s.username.clone(), s.password.clone()));
        }
        Ok(Self {
            transport: builder.build(),
        })
    }
}

#[async_trait]
impl EmailSender for SmtpEmail {
    async fn send(
        &self,
        _: &Handover<'_>,
        msg: &EmailMessage<'_>,
    ) -> Result<Accepted, ProviderError> {
        let rejected = |m: String| ProviderError::Rejected {
            status: 0,
            message: m,
        };
        let from: Mailbox = format!("{} <{}>", quote_name(msg.from_name), msg.from_address)
            .parse()
            .map_err(|e: lettre::address::AddressError| rejected(e.to_string()))?;
        let to: Mailbox = msg
            .to
            .parse()
            .map_err(|e: lettre::address::AddressError| rejected(e.to_string()))?;
        let domain = msg.from_address.rsplit('@').next().unwrap_or("localhost");
        let message_id = format!("<{}@{}>", uuid::Uuid::new_v4().simple(), domain);
        let builder = Message::builder()
            .from(from)
            .to(to)
            .subject(msg.subject)
            .message_id(Some(message_id.clone()));
        let builder = match msg.list_unsubscribe {
            Some(l) => builder
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe"),
                    l.header(),
                ))
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                    ONE_CLICK.to_owned(),
                )),
            None => builder,
        };
        let body = match (msg.text, msg.html) {
            (Some(t), Some(h)) => Body::Multi(MultiPart::alternative_plain_html(
                t.to_owned(),
                h.to_owned(),
            )),
            (None, Some(h)) => Body::Single(
                SinglePart::builder()
                    .header(ContentType::TEXT_HTML)
                    .body(h.to_owned()),
            ),
            (t, None) => Body::Single(
                SinglePart::builder()
                    .header(ContentType::TEXT_PLAIN)
                    .body(t.unwrap_or_default().to_owned()),
            ),
        };
        let email = if msg.attachments.is_empty() {
            match body {
                Body::Multi(m) => builder.multipart(m),
                Body::Single(p) => builder.singlepart(p),
            }
        } else {
            let mut mixed = match body {
                Body::Multi(m) => MultiPart::mixed().multipart(m),
                Body::Single(p) => MultiPart::mixed().singlepart(p),
            };
            for a in msg.attachments {
                let kind = ContentType::parse(a.content_type)
                    .map_err(|e| rejected(format!("attachment {}: {e}", a.filename)))?;
                mixed = mixed.singlepart(
                    Attachment::new(a.filename.to_owned()).body(a.bytes.to_vec(), kind),
                );
            }
            builder.multipart(mixed)
        }
        .map_err(|e| rejected(e.to_string()))?;
        self.transport.send(email).await.map_err(|e| {
            if e.is_permanent() {
                rejected(e.to_string())
            } else {
                // A certificate or a refused connection is named, not buried in lettre's text.
                ProviderError::Unreachable(net_error::describe(&e))
            }
        })?;
        Ok(Accepted::new(message_id))
    }
}

/// A message's text: one part, or plain and HTML alternatives.
enum Body {
    Single(SinglePart),
    Multi(MultiPart),
}

/// A display name safe inside a mailbox header: quoted, with quotes and backslashes escaped.
fn quote_name(name: &str) -> String {
    let escaped: String = name
        .chars()
        .filter(|c| !c.is_control())
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    format!("\"{escaped}\"")
}
