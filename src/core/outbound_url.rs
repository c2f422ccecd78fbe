//! Guards outgoing requests to customer-supplied URLs (webhooks): only http(s), and no
//! loopback, private, link-local or otherwise internal addresses unless explicitly allowed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

/// How long a host name may take to resolve.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(3);

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
    // A URI is ASCII without spaces or controls (RFC 3986); the parser would quietly
    // punycode, escape or trim them, storing a URL the caller never sent.
    if !raw.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(UrlRefused::Invalid);
    }
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
        Some(url::Host::Domain(d)) => lookup(d, port).await?.into_iter().map(|a| a.ip()).collect(),
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

async fn lookup(host: &str, port: u16) -> Result<Vec<SocketAddr>, UrlRefused> {
    match tokio::time::timeout(LOOKUP_TIMEOUT, tokio::net::lookup_host((host, port))).await {
        Ok(Ok(it)) => Ok(it.collect()),
        _ => Err(UrlRefused::Unresolvable),
    }
}

/// The public addresses among `addrs`, in their order.
pub fn public_only(addrs: impl IntoIterator<Item = SocketAddr>) -> Vec<SocketAddr> {
    addrs.into_iter().filter(|a| is_public_ip(a.ip())).collect()
}

/// The DNS resolver of the HTTP client that calls customer URLs: it hands the connector only
/// public addresses, so the address connected to is one that passed [`is_public_ip`] even if
/// the name resolves differently than it did for [`check_public`] (DNS rebinding). A name
/// with no public address fails to resolve. (IP literals never reach a resolver; those are
/// refused by `check_public`.)
#[derive(Debug, Clone, Copy, Default)]
pub struct PublicOnlyResolver;

impl reqwest::dns::Resolve for PublicOnlyResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0: the client puts in the URL's port.
            let public = public_only(lookup(&host, 0).await?);
            if public.is_empty() {
                return Err(UrlRefused::Private.into());
            }
            Ok(Box::new(public.into_iter()) as reqwest::dns::Addrs)
        })
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

    #[test]
    fn the_resolver_keeps_only_public_addresses() {
        let addrs: Vec<SocketAddr> = [
            "127.0.0.1:0",
            "8.8.8.8:0",
            "10.0.0.1:0",
            "[::1]:0",
            "[2606:4700:4700::1111]:0",
            "[::ffff:192.168.0.1]:0",
            "169.254.169.254:0",
        ]
        .iter()
        .map(|a| a.parse().unwrap())
        .collect();
        let kept: Vec<String> = public_only(addrs).iter().map(|a| a.to_string()).collect();
        assert_eq!(kept, ["8.8.8.8:0", "[2606:4700:4700::1111]:0"]);
    }

    #[actix_web::test]
    async fn the_resolver_refuses_names_without_a_public_address() {
        use reqwest::dns::Resolve;
        let err = PublicOnlyResolver
            .resolve("localhost".parse().unwrap())
            .await
            .err()
            .expect("localhost is refused");
        assert_eq!(err.to_string(), UrlRefused::Private.to_string());
    }
}
