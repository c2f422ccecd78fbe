//! Facts about the caller taken from the connection: address, masked address, device.

use actix_web::{web, HttpRequest};
use ipnet::IpNet;
use std::net::IpAddr;

/// Proxies whose `X-Forwarded-For` is believed (`[server] trusted_proxies`).
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Each entry is an address (`10.0.0.1`, `::1`) or a CIDR block (`10.0.0.0/8`).
    pub fn parse(entries: &[String]) -> Result<Self, String> {
        entries
            .iter()
            .map(|e| {
                let e = e.trim();
                e.parse::<IpNet>()
                    .or_else(|_| e.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("server.trusted_proxies: `{e}` is not an address or CIDR"))
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client address: the peer, unless the peer is a trusted proxy, in which case the
    /// right-most `X-Forwarded-For` entry that is not itself a trusted proxy (entries to its
    /// left were written by the client and prove nothing).
    pub fn client_ip(&self, peer: IpAddr, forwarded_for: &[&str]) -> IpAddr {
        if !self.trusts(peer) {
            return canonical(peer);
        }
        let mut client = canonical(peer);
        for entry in forwarded_for
            .iter()
            .rev()
            .flat_map(|h| h.rsplit(','))
            .map(str::trim)
        {
            let Some(ip) = parse_forwarded(entry) else {
                break; // garbage: stop at the last address a trusted hop vouched for
            };
            client = canonical(ip);
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

/// `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or `[2001:db8::1]:5678`.
fn parse_forwarded(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<std::net::SocketAddr>().ok().map(|s| s.ip()))
}

/// IPv4-mapped IPv6 addresses count as the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The client address, the one place it is decided: the peer, or behind a trusted proxy
/// the address it forwarded. Forwarded headers from anyone else are ignored, so a client
/// cannot spoof its way around per-IP limits.
pub fn ip(req: &HttpRequest) -> String {
    let Some(peer) = req.peer_addr().map(|a| a.ip()) else {
        return "unknown".into();
    };
    let Some(proxies) = req.app_data::<web::Data<TrustedProxies>>() else {
        return canonical(peer).to_string();
    };
    let headers: Vec<&str> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .collect();
    proxies.client_ip(peer, &headers).to_string()
}

/// Whom per-address limits count: the IPv4 address, or an IPv6 caller's /64 — one
/// subscriber's usual allocation, so the 2^64 addresses of one host or network are one
/// caller, not a fresh budget each.
pub fn limit_key(req: &HttpRequest) -> String {
    network(&ip(req))
}

fn network(ip: &str) -> String {
    match ip.parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        _ => ip.to_owned(),
    }
}

/// `203.0.113.***` for IPv4; the first three groups for IPv6.
pub fn mask_ip(ip: &str) -> String {
    match ip.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => {
            let o = v4.octets();
            format!("{}.{}.{}.***", o[0], o[1], o[2])
        }
        Ok(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:****", s[0], s[1], s[2])
        }
        Err(_) => "***".into(),
    }
}

pub fn user_agent(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(actix_web::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.chars().take(256).collect())
}

/// Platform guessed from a User-Agent: ios, android, web, or the client's own name.
pub fn platform_from_user_agent(ua: &str) -> &'static str {
    let l = ua.to_ascii_lowercase();
    if l.contains("iphone") || l.contains("ipad") || l.contains("ios") || l.contains("cfnetwork") {
        "ios"
    } else if l.contains("android") || l.contains("okhttp") {
        "android"
    } else if l.contains("mozilla") {
        "web"
    } else {
        "api"
    }
}

/// A short device name from a User-Agent, e.g. "Chrome on Windows" or "curl".
pub fn device_from_user_agent(ua: &str) -> String {
    let l = ua.to_ascii_lowercase();
    let os = [
        ("iphone", "iPhone"),
        ("ipad", "iPad"),
        ("android", "Android"),
        ("windows", "Windows"),
        ("mac os", "macOS"),
        ("linux", "Linux"),
    ]
    .iter()
    .find(|(k, _)| l.contains(k))
    .map(|(_, v)| *v);
    let browser = [
        ("edg/", "Edge"),
        ("chrome/", "Chrome"),
        ("firefox/", "Firefox"),
        ("safari/", "Safari"),
    ]
    .iter()
    .find(|(k, _)| l.contains(k))
    .map(|(_, v)| *v);
    match (browser, os) {
        (Some(b), Some(o)) => format!("{b} on {o}"),
        (None, Some(o)) => o.to_owned(),
        (Some(b), None) => b.to_owned(),
        (None, None) => ua
            .split(['/', ' '])
            .next()
            .unwrap_or("Unknown")
            .chars()
            .take(64)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ipv6_callers_are_one_per_64() {
        assert_eq!(network("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_eq!(network("2001:db8:1:2:ffff:1:2:3"), "2001:db8:1:2::/64");
        assert_eq!(network("2001:db8:1:3::1"), "2001:db8:1:3::/64");
        assert_eq!(network("203.0.113.7"), "203.0.113.7");
        assert_eq!(network("unknown"), "unknown");
    }

    #[test]
    fn forwarded_for_only_from_trusted_peers() {
        let none = TrustedProxies::default();
        assert_eq!(none.client_ip(ip("10.0.0.1"), &["1.2.3.4"]), ip("10.0.0.1"));
        let t = TrustedProxies::parse(&["10.0.0.0/8".into(), "192.0.2.7".into()]).unwrap();
        assert_eq!(
            t.client_ip(ip("203.0.113.9"), &["1.2.3.4"]),
            ip("203.0.113.9")
        );
        assert_eq!(t.client_ip(ip("10.1.2.3"), &["1.2.3.4"]), ip("1.2.3.4"));
        // Right-most untrusted entry; the client-written left part is ignored.
        assert_eq!(
            t.client_ip(ip("10.1.2.3"), &["6.6.6.6, 1.2.3.4", "192.0.2.7"]),
            ip("1.2.3.4")
        );
        assert_eq!(t.client_ip(ip("10.1.2.3"), &["junk"]), ip("10.1.2.3"));
        assert_eq!(t.client_ip(ip("10.1.2.3"), &[]), ip("10.1.2.3"));
        assert_eq!(
            t.client_ip(ip("::ffff:10.0.0.1"), &["[2001:db8::1]:443"]),
            ip("2001:db8::1")
        );
        assert!(TrustedProxies::parse(&["nope".into()]).is_err());
    }
}
