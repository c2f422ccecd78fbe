//! What every Twilio-compatible resource (Messages, Calls) shares: a form POST with basic
//! auth that answers JSON carrying the new resource's `sid`, a GET of one resource by sid
//! and a filtered list; and the look-up a retaken hand-over makes before it creates again.

use super::{Accepted, ProviderError, Retake};
use serde::Deserialize;

/// One account of a Twilio-compatible API.
pub struct TwilioApi {
    pub http: reqwest::Client,
    pub base_url: String,
    pub account_sid: String,
    pub auth_token: String,
}

/// A resource as the API describes it (the fields a look-up reads).
#[derive(Debug, Clone, Deserialize)]
pub struct Record {
    pub sid: String,
    pub status: String,
    #[serde(default)]
    pub body: Option<String>,
}

impl From<Record> for Accepted {
    fn from(r: Record) -> Self {
        Self {
            provider_message_id: r.sid,
            status: Some(r.status),
        }
    }
}

fn unreachable(e: reqwest::Error) -> ProviderError {
    ProviderError::Unreachable(super::http_failure(&e))
}

/// A create that failed in transport: refused before the request left (no connection) means
/// nothing was created; anything later (a timeout, a cut answer) may have created it.
fn maybe_created(e: reqwest::Error) -> ProviderError {
    if e.is_connect() || e.is_builder() {
        unreachable(e)
    } else {
        ProviderError::Unknown(super::http_failure(&e))
    }
}

/// The error of a non-success answer, or the answer.
async fn success(res: reqwest::Response) -> Result<reqwest::Response, ProviderError> {
    let status = res.status();
    if status.is_success() {
        return Ok(res);
    }
    let body = res.text().await.unwrap_or_default();
    Err(ProviderError::Rejected {
        status: status.as_u16(),
        message: body.chars().take(300).collect(),
    })
}

impl TwilioApi {
    pub fn new(http: reqwest::Client, base_url: &str, account_sid: &str, token: &str) -> Self {
        Self {
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
            account_sid: account_sid.to_owned(),
            auth_token: token.to_owned(),
        }
    }

    /// `{base}/2010-04-01/Accounts/{account}/{path}`.
    fn url(&self, path: &str) -> String {
        format!(
            "{}/2010-04-01/Accounts/{}/{path}",
            self.base_url, self.account_sid
        )
    }

    /// POSTs `form` to the `resource` collection (`Messages`, `Calls`); the new sid.
    pub async fn create(
        &self,
        resource: &str,
        form: &[(&str, &str)],
    ) -> Result<String, ProviderError> {
        #[derive(Deserialize)]
        struct Created {
            sid: String,
        }
        let res = self
            .http
            .post(self.url(&format!("{resource}.json")))
            .basic_auth(&self.account_sid, Some(&self.auth_token))
            .form(form)
            .send()
            .await
            .map_err(maybe_created)?;
        // A success whose answer names no sid: the resource exists, its id is unknown.
        let created: Created = success(res).await?.json().await.map_err(|e| {
            ProviderError::Unknown(format!("accepted, answer unreadable: {}", e.without_url()))
        })?;
        Ok(created.sid)
    }

    /// The resource with this sid; None when the API has no such record.
    pub async fn fetch(&self, resource: &str, sid: &str) -> Result<Option<Record>, ProviderError> {
        let res = self
            .http
            .get(self.url(&format!("{resource}/{sid}.json")))
            .basic_auth(&self.account_sid, Some(&self.auth_token))
            .send()
            .await
            .map_err(unreachable)?;
        if res.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        Ok(Some(success(res).await?.json().await.map_err(unreachable)?))
    }

    /// The first page of the `resource` collection filtered by `query`; the list sits under
    /// the collection's name in lower case (`messages`, `calls`).
    pub async fn list(
        &self,
        resource: &str,
        query: &[(&str, &str)],
    ) -> Result<Vec<Record>, ProviderError> {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(query)
            .append_pair("PageSize", "1000")
            .finish();
        let res = self
            .http
            .get(format!("{}?{query}", self.url(&format!("{resource}.json"))))
            .basic_auth(&self.account_sid, Some(&self.auth_token))
            .send()
            .await
            .map_err(unreachable)?;
        let mut page: serde_json::Value = success(res).await?.json().await.map_err(unreachable)?;
        let items = page[resource.to_ascii_lowercase()].take();
        serde_json::from_value(items)
            .map_err(|e| ProviderError::Unreachable(format!("unexpected list answer: {e}")))
    }

    /// On a retaken hand-over, the record the first hand-over made, if the API has one: the
    /// stored sid fetched, or else the `resource` records to `to` since the message was
    /// created (by the date filter `since_filter`, e.g. `DateSent>`) that `matches` and no
    /// other message holds. None means the API has no record: creating again is safe.
    pub async fn earlier(
        &self,
        resource: &str,
        retake: &Retake<'_>,
        to: &str,
        since_filter: &str,
        matches: impl Fn(&Record) -> bool,
    ) -> Result<Option<Accepted>, ProviderError> {
        if let Some(sid) = retake.provider_message_id {
            return Ok(self.fetch(resource, sid).await?.map(Accepted::from));
        }
        let day = retake.since.format("%Y-%m-%d").to_string();
        let records = self
            .list(resource, &[("To", to), (since_filter, &day)])
            .await?;
        Ok(records
            .into_iter()
            .find(|r| matches(r) && !retake.taken.contains(&r.sid))
            .map(Accepted::from))
    }
}
