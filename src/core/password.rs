//! argon2id hashing of PINs and passwords, always on a blocking thread so that hashing
//! never stalls the async executor.

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("password hashing failed: {0}")]
    Hash(String),
    #[error("blocking task failed")]
    Join,
}

impl From<PasswordError> for super::error::ApiError {
    fn from(e: PasswordError) -> Self {
        Self::internal(e)
    }
}

/// OWASP's recommended argon2id parameters: 19 MiB memory, 2 iterations, 1 lane.
fn hasher() -> Argon2<'static> {
    #[expect(
        clippy::expect_used,
        reason = "constant parameters, checked by every test that hashes a PIN"
    )]
    let params = Params::new(19 * 1024, 2, 1, None).expect("static argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashing runs on at most `cores - 1` blocking threads (at least one): argon2 is CPU-bound,
/// and an unbounded number of parallel hashes would starve every other request of CPU.
fn permits() -> &'static tokio::sync::Semaphore {
    static SEM: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    SEM.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        tokio::sync::Semaphore::new(cores.saturating_sub(1).max(1))
    })
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, PasswordError> {
    let _permit = permits().acquire().await.map_err(|_| PasswordError::Join)?;
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| PasswordError::Join)
}

pub async fn hash(secret: String) -> Result<String, PasswordError> {
    blocking(move || {
        hasher()
            .hash_password(secret.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| PasswordError::Hash(e.to_string()))
    })
    .await?
}

/// True when `secret` matches the stored PHC string; a malformed stored hash never matches.
pub async fn verify(secret: String, stored: String) -> Result<bool, PasswordError> {
    blocking(move || match PasswordHash::new(&stored) {
        Ok(parsed) => hasher().verify_password(secret.as_bytes(), &parsed).is_ok(),
        Err(_) => false,
    })
    .await
}

/// [`verify`] against the account's hash, or when there is no account the same work against
/// a dummy hash (false): the time taken does not tell whether the account exists.
pub async fn verify_or_dummy(
    secret: String,
    stored: Option<String>,
) -> Result<bool, PasswordError> {
    match stored {
        Some(stored) => verify(secret, stored).await,
        None => {
            dummy_verify(secret).await;
            Ok(false)
        }
    }
}

/// A hash to verify against when no account exists, so that the time taken does not reveal it.
pub async fn dummy_verify(secret: String) {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let stored = DUMMY
        .get_or_init(|| {
            hasher()
                .hash_password(b"not-a-real-pin")
                .map(|h| h.to_string())
                .unwrap_or_default()
        })
        .clone();
    let _ = verify(secret, stored).await;
}
