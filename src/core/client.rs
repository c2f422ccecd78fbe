//! Facts about the caller taken from the connection: address, masked address, device.

use actix_web::HttpRequest;
use std::net::IpAddr;

/// The peer address. Forwarded headers are not trusted, so a client cannot spoof its way
/// around per-IP limits.
pub fn ip(req: &HttpRequest) -> String {
    req.peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
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
