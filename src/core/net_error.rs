//! Why a connection failed, in words an operator acts on: read from an error's whole source
//! chain (HTTP, database, Redis and SMTP clients wrap the cause several layers down, where
//! their own message says only "error sending request").

use std::error::Error;
use std::time::Duration;

/// The causes worth naming; anything else reads as the innermost error's own message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The peer's certificate chain does not end at a trusted root.
    CertificateNotTrusted,
    /// The certificate is trusted but names another host.
    CertificateWrongHost,
    CertificateExpired,
    /// Nothing listens there.
    ConnectionRefused,
    /// The host name does not resolve.
    UnknownHost,
    TimedOut,
}

impl Cause {
    pub fn text(self) -> &'static str {
        match self {
            Self::CertificateNotTrusted => "certificate not trusted",
            Self::CertificateWrongHost => "certificate not valid for this host name",
            Self::CertificateExpired => "certificate expired or not yet valid",
            Self::ConnectionRefused => "connection refused",
            Self::UnknownHost => "host name not found",
            Self::TimedOut => "timed out",
        }
    }
}

/// Each error of the chain from `err` down. An `io::Error` carrying another error yields
/// that one next: its own `source()` skips it (it returns the inner error's source).
pub fn chain<'a>(
    err: &'a (dyn Error + 'static),
) -> impl Iterator<Item = &'a (dyn Error + 'static)> {
    let mut next = Some(err);
    std::iter::from_fn(move || {
        let current = next?;
        next = match current.downcast_ref::<std::io::Error>() {
            Some(io) => io.get_ref().map(|e| e as &(dyn Error + 'static)),
            None => current.source(),
        };
        Some(current)
    })
}

/// The first nameable cause in `err`'s chain.
pub fn cause(err: &(dyn Error + 'static)) -> Option<Cause> {
    chain(err).find_map(cause_of_one)
}

fn cause_of_one(err: &(dyn Error + 'static)) -> Option<Cause> {
    use rustls::CertificateError as C;
    if let Some(rustls::Error::InvalidCertificate(c)) = err.downcast_ref::<rustls::Error>() {
        return Some(match c {
            C::NotValidForName | C::NotValidForNameContext { .. } => Cause::CertificateWrongHost,
            C::Expired
            | C::ExpiredContext { .. }
            | C::NotValidYet
            | C::NotValidYetContext { .. } => Cause::CertificateExpired,
            _ => Cause::CertificateNotTrusted,
        });
    }
    if let Some(io) = err.downcast_ref::<std::io::Error>() {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => return Some(Cause::ConnectionRefused),
            std::io::ErrorKind::TimedOut => return Some(Cause::TimedOut),
            _ => {}
        }
    }
    // Some clients keep only the text of their cause (the redis crate flattens rustls's
    // and the OS's errors into its own; resolvers report in words).
    let text = err.to_string();
    let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
    if has(&["invalid peer certificate: NotValidForName"]) {
        Some(Cause::CertificateWrongHost)
    } else if has(&[
        "invalid peer certificate: Expired",
        "invalid peer certificate: NotValidYet",
    ]) {
        Some(Cause::CertificateExpired)
    } else if has(&["invalid peer certificate: "]) {
        Some(Cause::CertificateNotTrusted)
    } else if has(&["Connection refused (os error"]) {
        Some(Cause::ConnectionRefused)
    } else if has(&["failed to lookup address", "Name or service not known"]) {
        Some(Cause::UnknownHost)
    } else {
        None
    }
}

/// The innermost message of `err`'s chain: the most specific one when no cause is named.
pub fn innermost(err: &(dyn Error + 'static)) -> String {
    chain(err).last().map(|e| e.to_string()).unwrap_or_default()
}

/// The named cause of `err`, else its own message (SMTP and Redis errors say enough once
/// their cause is not a certificate or a refused connection).
pub fn describe(err: &(dyn Error + 'static)) -> String {
    cause(err).map_or_else(|| err.to_string(), |c| c.text().to_owned())
}

/// What a delivery record says of a failed outbound HTTP request (webhooks, providers):
/// "certificate not trusted", "connection refused", "timed out after 10 s", …
pub fn describe_http(err: &reqwest::Error, timeout: Duration) -> String {
    if err.is_timeout() {
        return timed_out(timeout);
    }
    match cause(err) {
        Some(Cause::TimedOut) => timed_out(timeout),
        Some(c) => c.text().to_owned(),
        // Below reqwest's own error (whose text carries the URL, maybe a customer's token).
        None => err
            .source()
            .map(innermost)
            .unwrap_or_else(|| "request failed".to_owned()),
    }
}

fn timed_out(timeout: Duration) -> String {
    format!("timed out after {} s", timeout.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_inside_an_io_error_is_found() {
        let tls = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        assert_eq!(cause(&tls), Some(Cause::CertificateNotTrusted));
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(cause(&refused), Some(Cause::ConnectionRefused));
        let other = std::io::Error::other("disk on fire");
        assert_eq!(cause(&other), None);
        assert_eq!(innermost(&other), "disk on fire");
    }
}
