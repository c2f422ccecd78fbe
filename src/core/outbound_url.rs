//! Guards outgoing requests to customer-supplied URLs (webhooks): only http(s), and no
//! loopback, private, link-local or otherwise internal addresses unless explicitly allowed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

/// Whether an address is reachable on the public internet.
pub fn is_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let s = v6.segments();
            // NAT64 (64:ff9b::/96) embeds an IPv4 address.
            if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
                let [a, b] = s[6].to_be_bytes();
                let [c, d] = s[7].to_be_bytes();
                return is_public_v4(Ipv4Addr::new(a, b, c, d));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link local
                || (s[0] & 0xffc0) == 0xfec0 // site local (deprecated)
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
                || v6 == Ipv6Addr::from([0u8; 16]))
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || o[0] == 0
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // carrier-grade NAT 100.64/10
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking 198.18/15
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || o[0] >= 240)
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UrlRefused {
    #[error("url must be an absolute http or https URL")]
    Invalid,
    #[error("url host could not be resolved")]
    Unresolvable,
    #[error("url resolves to a loopback or private address, which is not allowed")]
    Private,
}

/// Parses `raw` as an http(s) URL with a host.
pub fn parse_http_url(raw: &str) -> Result<url::Url, UrlRefused> {
    let url = url::Url::parse(raw).map_err(|_| UrlRefused::Invalid)?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() || raw.len() > 2048 {
        return Err(UrlRefused::Invalid);
    }
    Ok(url)
}

/// Checks that every address `url` resolves to is public (skipped when private targets are
/// allowed). Resolution is bounded by a short timeout.
pub async fn check_public(url: &url::Url, allow_private: bool) -> Result<(), UrlRefused> {
    if allow_private {
        return Ok(());
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs: Vec<IpAddr> = match url.host() {
        Some(url::Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
        Some(url::Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
        Some(url::Host::Domain(d)) => {
            let lookup = tokio::net::lookup_host((d.to_owned(), port));
            match tokio::time::timeout(Duration::from_secs(3), lookup).await {
                Ok(Ok(it)) => it.map(|a| a.ip()).collect(),
                _ => return Err(UrlRefused::Unresolvable),
            }
        }
        None => return Err(UrlRefused::Invalid),
    };
    if addrs.is_empty() {
        return Err(UrlRefused::Unresolvable);
    }
    if addrs.into_iter().all(is_public_ip) {
        Ok(())
    } else {
        Err(UrlRefused::Private)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "64:ff9b::a00:1",
        ] {
            assert!(!is_public_ip(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"] {
            assert!(is_public_ip(ip.parse().unwrap()), "{ip}");
        }
    }

    #[actix_web::test]
    async fn loopback_urls_are_refused_unless_allowed() {
        let url = parse_http_url("http://127.0.0.1:9/hook").unwrap();
        assert_eq!(check_public(&url, false).await, Err(UrlRefused::Private));
        assert_eq!(check_public(&url, true).await, Ok(()));
        let url = parse_http_url("http://localhost:9/hook").unwrap();
        assert_eq!(check_public(&url, false).await, Err(UrlRefused::Private));
        assert!(parse_http_url("ftp://example.com").is_err());
        assert!(parse_http_url("not a url").is_err());
    }
}
