//! Invoices: one per paid checkout, issued in the webhook's transaction with the
//! `invoice-email` job that renders its PDF, keeps it in storage and mails the advertiser.
//! The PDF is rebuilt from the row whenever storage lacks it, so it never goes missing.
//!
//! Job payload (`invoice-email`): `{"invoice_id": "<uuid>"}`.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use super::super::wire::usd;
use crate::core::error::ApiError;
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use crate::providers::email::{self, EmailAttachment, EmailMessage};
use crate::providers::pdf::PdfWriter;
use crate::providers::storage::{StorageError, StorageKey};
use crate::providers::Handover;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use rand::Rng;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::{ad, advertiser, invoice, payment};
use uuid::Uuid;

pub const TOPIC: &str = "invoice-email";

#[derive(Debug, Serialize, Deserialize)]
pub struct InvoiceJob {
    pub invoice_id: Uuid,
}

/// `INV-<yyyymmdd>-<8 readable characters>`.
fn number(now: DateTime<Utc>) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
    let mut rng = rand::rng();
    let tail: String = (0..8)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    format!("INV-{}-{tail}", now.format("%Y%m%d"))
}

/// Issues the invoice of paid payment `p` inside the caller's transaction, with its job.
pub async fn issue(
    st: &AdvertisingState,
    db: &impl ConnectionTrait,
    p: &payment::Model,
    now: DateTime<Utc>,
) -> Result<invoice::Model> {
    let id = Uuid::new_v4();
    let row = invoice::ActiveModel {
        id: Set(id),
        number: Set(number(now)),
        payment_id: Set(p.id),
        advertiser_id: Set(p.advertiser_id),
        ad_id: Set(p.ad_id),
        amount_cents: Set(p.amount_cents),
        currency: Set(p.currency.clone()),
        storage_key: Set(format!("invoices/{}/{id}.pdf", p.advertiser_id)),
        issued_at: Set(now),
        emailed_at: Set(None),
    }
    .insert(db)
    .await?;
    let job =
        NewJob::new(TOPIC, serde_json::json!({ "invoice_id": id })).key(format!("{TOPIC}:{id}"));
    st.core.jobs.enqueue(db, job).await?;
    Ok(row)
}

/// The invoice as a one-page A4 PDF. CPU work: see [`render_off_executor`].
fn render(pdf: &PdfWriter, i: &invoice::Model, who: &advertiser::Model, a: &ad::Model) -> Vec<u8> {
    let amount = format!("{} {}", usd(i.amount_cents), i.currency.to_uppercase());
    let lines: [(String, f32, bool); 9] = [
        ("Switchboard".into(), 20.0, true),
        (format!("Invoice {}", i.number), 16.0, true),
        (
            format!("Date: {}", i.issued_at.format("%Y-%m-%d")),
            11.0,
            false,
        ),
        (format!("Billed to: {}", who.company_name), 11.0, false),
        (format!("Email: {}", who.email), 11.0, false),
        (format!("Ad: {} ({})", a.title, a.id), 11.0, false),
        (format!("Payment: {}", i.payment_id), 11.0, false),
        (format!("Amount paid: {amount}"), 14.0, true),
        (
            "Ad budget funded by card checkout. Thank you.".into(),
            10.0,
            false,
        ),
    ];
    let mut doc = pdf.document(&format!("Invoice {}", i.number));
    for (text, size, bold) in lines {
        doc.line(&text, size, bold);
        // Invoices are spaced wider than running text.
        doc.gap(size * 0.3528 * 0.75);
    }
    doc.finish()
}

/// [`render`] on the blocking pool, so the executor keeps serving while it runs.
async fn render_off_executor(
    st: &AdvertisingState,
    i: &invoice::Model,
    who: advertiser::Model,
    a: ad::Model,
) -> Result<Bytes> {
    let (pdf, i) = (st.providers.pdf.clone(), i.clone());
    let bytes = tokio::task::spawn_blocking(move || render(&pdf, &i, &who, &a))
        .await
        .map_err(ApiError::internal)?;
    Ok(Bytes::from(bytes))
}

fn storage_failure(e: StorageError) -> ApiError {
    ApiError::internal(std::io::Error::other(e.to_string()))
}

/// The invoice's PDF: from storage, or rendered (and kept) when storage lacks it.
pub async fn pdf(st: &AdvertisingState, i: &invoice::Model) -> Result<Bytes> {
    let key = StorageKey::parse(&i.storage_key).map_err(storage_failure)?;
    match st.providers.storage.get(&key).await {
        Ok(b) => return Ok(b),
        Err(StorageError::NotFound(_)) => {}
        Err(e) => return Err(storage_failure(e)),
    }
    let who = advertiser::Entity::find_by_id(i.advertiser_id)
        .one(&st.core.db)
        .await?
        .ok_or_else(super::invoice_not_found)?;
    let a = ad::Entity::find_by_id(i.ad_id)
        .one(&st.core.db)
        .await?
        .ok_or_else(super::invoice_not_found)?;
    let bytes = render_off_executor(st, i, who, a).await?;
    st.providers
        .storage
        .put(&key, bytes.clone())
        .await
        .map_err(storage_failure)?;
    Ok(bytes)
}

/// The advertiser's invoice `raw_id`; another's or an unknown one answers 404.
pub async fn owned(
    st: &AdvertisingState,
    advertiser: Uuid,
    raw_id: &str,
) -> Result<invoice::Model> {
    let id = Uuid::parse_str(raw_id.trim()).map_err(|_| super::invoice_not_found())?;
    invoice::Entity::find_by_id(id)
        .filter(invoice::Column::AdvertiserId.eq(advertiser))
        .one(&st.core.db)
        .await?
        .ok_or_else(super::invoice_not_found)
}

pub fn register(st: &AdvertisingState) {
    super::super::jobs::handle(st, TOPIC, run);
}

/// Renders and keeps the PDF, then mails it to the advertiser (attached, with where to
/// download it again). The invoice's id is the message's, so a retaken job does not mail
/// twice through the sandbox.
async fn run(st: AdvertisingState, job: Job) -> JobResult {
    let p: InvoiceJob = job.payload()?;
    let retry = |e: ApiError| JobFailure::retry(e.message().to_owned());
    let Some(i) = invoice::Entity::find_by_id(p.invoice_id)
        .one(&st.core.db)
        .await
        .map_err(JobFailure::retry)?
    else {
        return Err(JobFailure::permanent("no such invoice"));
    };
    let document = pdf(&st, &i).await.map_err(retry)?;
    if i.emailed_at.is_some() {
        return Ok(Done::from(1));
    }
    let who = advertiser::Entity::find_by_id(i.advertiser_id)
        .one(&st.core.db)
        .await
        .map_err(JobFailure::retry)?
        .ok_or_else(|| JobFailure::permanent("no such advertiser"))?;
    let sender = email::from_settings(
        &st.providers.settings.email,
        st.providers.outbox.clone(),
        st.core.clock.clone(),
        &st.providers.roots,
    )
    .map_err(JobFailure::retry)?;
    let text = format!(
        "Thank you for your payment.\n\nInvoice {} for {} USD is attached.\nYou can download it again (signed in): GET /advertisers/invoices/{}/pdf\n",
        i.number,
        usd(i.amount_cents),
        i.id
    );
    let subject = format!("Your Switchboard invoice {}", i.number);
    let filename = format!("{}.pdf", i.number);
    sender
        .send(
            &Handover {
                message_id: i.id,
                retake: None,
            },
            &EmailMessage {
                to: &who.email,
                from_name: &st.cfg.mail_from_name,
                from_address: &st.cfg.mail_from_address,
                subject: &subject,
                text: Some(&text),
                html: None,
                service: "advertising",
                attachments: &[EmailAttachment {
                    filename: &filename,
                    content_type: "application/pdf",
                    bytes: &document,
                }],
                list_unsubscribe: None,
            },
        )
        .await
        .map_err(JobFailure::retry)?;
    invoice::Entity::update_many()
        .col_expr(invoice::Column::EmailedAt, Expr::value(st.core.now()))
        .filter(invoice::Column::Id.eq(i.id))
        .exec(&st.core.db)
        .await
        .map_err(JobFailure::retry)?;
    Ok(Done::from(1))
}
