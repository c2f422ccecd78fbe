//! One call to an OpenAI-compatible `/chat/completions` endpoint, shared by every AI adapter
//! (the interviewer, the car writer): the request, its timeout, and the JSON in the answer.

use super::settings::AiSettings;
use serde_json::{json, Value};
use std::time::Duration;

/// The model named in `[ai]`, reached over HTTP.
pub struct ChatClient {
    http: reqwest::Client,
    base_url: String,
    api_key: String,
    model: String,
    timeout: Duration,
}

impl ChatClient {
    pub fn new(cfg: &AiSettings, http: reqwest::Client) -> Self {
        Self {
            http,
            base_url: cfg.base_url.trim_end_matches('/').to_owned(),
            api_key: cfg.api_key.clone(),
            model: cfg.model.clone(),
            timeout: Duration::from_secs(cfg.timeout_secs.max(1)),
        }
    }

    /// The model's reply to `user` under `system`; an error says why there is none (never
    /// the key).
    pub async fn chat(&self, system: &str, user: &str) -> Result<String, String> {
        self.chat_content(system, Value::from(user)).await
    }

    /// As `chat`, with the user's content given as JSON: a string, or an array of parts
    /// (text and `image_url`) for vision models.
    pub async fn chat_content(&self, system: &str, user: Value) -> Result<String, String> {
        let body = json!({
            "model": self.model,
            "temperature": 0.3,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        });
        let call = self
            .http
            .post(format!("{}/chat/completions", self.base_url))
            .bearer_auth(&self.api_key)
            .json(&body)
            .send();
        let res = tokio::time::timeout(self.timeout, call)
            .await
            .map_err(|_| "timed out".to_owned())?
            .map_err(|e| e.to_string())?;
        if !res.status().is_success() {
            return Err(format!("status {}", res.status()));
        }
        let v: Value = tokio::time::timeout(self.timeout, res.json())
            .await
            .map_err(|_| "timed out".to_owned())?
            .map_err(|e| e.to_string())?;
        v["choices"][0]["message"]["content"]
            .as_str()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| "no content in the answer".to_owned())
    }
}

/// The JSON object in a model's reply: models often wrap it in a code fence, so the
/// outermost braces are taken.
pub fn json_in(text: &str) -> Option<Value> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    serde_json::from_str(text.get(start..=end)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_found_inside_a_code_fence() {
        assert_eq!(json_in("```json\n{\"a\": 1}\n```"), Some(json!({"a": 1})));
        assert_eq!(json_in("no json here"), None);
    }
}
