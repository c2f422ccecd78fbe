//! The request shape every Twilio-compatible resource shares: a form POST with basic auth
//! that answers JSON carrying the new resource's `sid`.

use super::ProviderError;

#[derive(serde::Deserialize)]
struct Created {
    sid: String,
}

/// POSTs `form` to `url` as `account_sid:auth_token` and returns the created resource's sid.
pub async fn create(
    http: &reqwest::Client,
    url: String,
    account_sid: &str,
    auth_token: &str,
    form: &[(&str, &str)],
) -> Result<String, ProviderError> {
    let unreachable = |e: reqwest::Error| ProviderError::Unreachable(e.without_url().to_string());
    let res = http
        .post(url)
        .basic_auth(account_sid, Some(auth_token))
        .form(form)
        .send()
        .await
        .map_err(unreachable)?;
    let status = res.status();
    if !status.is_success() {
        let body = res.text().await.unwrap_or_default();
        return Err(ProviderError::Rejected {
            status: status.as_u16(),
            message: body.chars().take(300).collect(),
        });
    }
    Ok(res.json::<Created>().await.map_err(unreachable)?.sid)
}
