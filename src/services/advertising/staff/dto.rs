//! Administration's wire shapes.

use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::admin;
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoginRequest {
    pub email: Option<String>,
    pub password: Option<String>,
    /// The authenticator's current 6-digit code, for an administrator with TOTP on.
    pub totp_code: Option<String>,
    /// One of the recovery codes instead of a TOTP code (each works once).
    pub recovery_code: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TotpEnrolRequest {
    /// From a sign-in's 403 `totp_enrolment_required` (`details.enrolmentToken`), when TOTP
    /// is required and there is no session; otherwise send the bearer token.
    pub enrolment_token: Option<String>,
}

/// A new TOTP secret: shown here only, never again.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpEnrolment {
    /// Base32 (RFC 4648, no padding), to type into an authenticator app.
    pub secret: String,
    /// `otpauth://totp/...`, for a QR code.
    pub otpauth_uri: String,
    pub digits: u32,
    pub period_secs: i64,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TotpConfirmRequest {
    /// The authenticator's current code for the enrolled secret.
    pub code: Option<String>,
    /// As for enrol: without a session.
    pub enrolment_token: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpConfirmed {
    pub enabled: bool,
    /// One-time codes to sign in with instead of a TOTP code: shown here only.
    pub recovery_codes: Vec<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TotpDisableRequest {
    /// A current code, or else `recoveryCode`.
    pub code: Option<String>,
    pub recovery_code: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpStatus {
    pub enabled: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminView {
    pub id: String,
    pub email: String,
    /// `admin`, `moderator` or `finance`.
    pub role: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

impl From<&admin::Model> for AdminView {
    fn from(a: &admin::Model) -> Self {
        Self {
            id: a.id.to_string(),
            email: a.email.clone(),
            role: a.role.clone(),
            created_at: a.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AdminSignedIn {
    /// A bearer token (`typ: admin`).
    pub token: String,
    pub admin: AdminView,
}
