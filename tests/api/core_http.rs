//! What every service gets from core: limits keyed by the matched route, the client address
//! behind trusted proxies, route-only access logs, security headers, 405 with `Allow`, the
//! health body and the start-up guard.

use crate::helpers::{
    assert_error, body, fresh_database_url, signin_phone_limits_off, spawn_app, spawn_app_with,
    TestApp,
};
use reqwest::Response;
use serde_json::json;
use std::time::Duration;
use switchboard::settings::Settings;
use switchboard::Application;

fn phone() -> String {
    format!("+1415555{:04}", rand_digits())
}

fn rand_digits() -> u32 {
    uuid::Uuid::new_v4().as_u128() as u32 % 10_000
}

async fn signin(app: &TestApp, path: &str, forwarded_for: Option<&str>) -> Response {
    let mut req = app
        .client
        .post(app.url(path))
        .json(&json!({"phone": phone(), "pin": "1234"}));
    if let Some(xff) = forwarded_for {
        req = req.header("X-Forwarded-For", xff);
    }
    req.send().await.expect("request")
}

#[actix_web::test]
async fn percent_encoded_paths_count_against_the_route_limit() {
    let app = spawn_app_with(|s| {
        s.services.identity.rate_limits.signin_per_ip.limit = 4;
        signin_phone_limits_off(s);
    })
    .await;
    for path in [
        "/auth/%73ignin",
        "/auth/signin",
        "/auth/%73ignin",
        "/auth/signin",
    ] {
        let res = signin(&app, path, None).await;
        assert_ne!(res.status(), 429, "{path} within the limit");
        assert_eq!(
            res.headers()["x-ratelimit-limit"],
            "4",
            "{path} in the sign-in bucket"
        );
    }
    assert_error(
        signin(&app, "/auth/%73ignin", None).await,
        429,
        "RATE_LIMITED",
    )
    .await;
    assert_error(
        signin(&app, "/auth/signin", None).await,
        429,
        "RATE_LIMITED",
    )
    .await;
}

#[actix_web::test]
async fn forwarded_for_is_believed_only_from_trusted_proxies() {
    let limited = |s: &mut Settings| {
        s.services.identity.rate_limits.signin_per_ip.limit = 2;
        signin_phone_limits_off(s);
    };
    let behind = spawn_app_with(|s| {
        limited(s);
        s.server.trusted_proxies = vec!["127.0.0.0/8".into()];
        // A proxy in front counts as exposed; this is a development machine.
        s.server.environment = "development".into();
    })
    .await;
    for _ in 0..2 {
        assert_ne!(
            signin(&behind, "/auth/signin", Some("198.51.100.1"))
                .await
                .status(),
            429
        );
    }
    let res = signin(&behind, "/auth/signin", Some("198.51.100.1")).await;
    assert_eq!(res.status(), 429);
    // Another client behind the same proxy has its own bucket; a client-written left part
    // of the header does not buy a new one.
    let res = signin(&behind, "/auth/signin", Some("198.51.100.2")).await;
    assert_ne!(res.status(), 429);
    let res = signin(&behind, "/auth/signin", Some("203.0.113.5, 198.51.100.1")).await;
    assert_eq!(res.status(), 429);

    let direct = spawn_app_with(limited).await;
    for _ in 0..2 {
        assert_ne!(
            signin(&direct, "/auth/signin", Some("198.51.100.1"))
                .await
                .status(),
            429
        );
    }
    let res = signin(&direct, "/auth/signin", Some("198.51.100.2")).await;
    assert_eq!(
        res.status(),
        429,
        "the header is ignored from an untrusted peer"
    );
}

/// An IPv6 caller cannot buy a fresh budget per address: its /64 is one caller.
#[actix_web::test]
async fn ipv6_callers_are_limited_by_their_64() {
    let behind = spawn_app_with(|s| {
        s.services.identity.rate_limits.signin_per_ip.limit = 2;
        signin_phone_limits_off(s);
        s.server.trusted_proxies = vec!["127.0.0.0/8".into()];
        s.server.environment = "development".into();
    })
    .await;
    for host in ["2001:db8:7:1::1", "2001:db8:7:1::2"] {
        assert_ne!(
            signin(&behind, "/auth/signin", Some(host)).await.status(),
            429
        );
    }
    let res = signin(&behind, "/auth/signin", Some("2001:db8:7:1:abcd::9")).await;
    assert_eq!(res.status(), 429, "another address of the same /64");
    let res = signin(&behind, "/auth/signin", Some("2001:db8:7:2::1")).await;
    assert_ne!(res.status(), 429, "the next /64 is another caller");
}

fn assert_security_headers(res: &Response, what: &str) {
    let h = res.headers();
    assert_eq!(h["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(h["x-frame-options"], "DENY", "{what}");
    let csp = h["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{what}: {csp}");
}

#[actix_web::test]
async fn every_response_carries_security_headers_and_405_names_allowed_methods() {
    let app = spawn_app_with(|s| s.services.interview.api_key = "k".into()).await;
    let c = &app.client;
    for base in [&app.identity, &app.interview, &app.messaging] {
        let res = c.get(format!("{base}/health")).send().await.unwrap();
        assert_security_headers(&res, "health");
        let res = c.get(format!("{base}/no/such/route")).send().await.unwrap();
        assert_eq!(res.status(), 404);
        assert_security_headers(&res, "404");
        let res = c.post(format!("{base}/health")).send().await.unwrap();
        assert_security_headers(&res, "405");
        assert_eq!(res.headers()["allow"], "GET", "{base}");
        let v = body(res).await;
        assert_eq!(v["success"], false, "405 in the envelope: {v}");
    }
    let res = c.put(app.url("/users/me")).send().await.unwrap();
    assert_eq!(res.headers()["allow"], "GET, PATCH, DELETE");
    assert_error(res, 405, "METHOD_NOT_ALLOWED").await;
    let res = c
        .put(format!(
            "{}/api/v1/sessions/{}",
            app.interview,
            uuid::Uuid::new_v4()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    assert_eq!(res.headers()["allow"], "GET, DELETE");
    let res = c
        .get(format!("{}/api/v1/webhooks/x/deliveries", app.messaging))
        .send()
        .await
        .unwrap();
    assert_security_headers(&res, "messaging 401");

    // HTML pages: their own full policies.
    let res = c
        .get(app.url("/kyc/verify/not-a-token"))
        .send()
        .await
        .unwrap();
    assert_security_headers(&res, "KYC page");
    let csp = res.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    let res = c
        .get(format!("{}/interview/not-a-token", app.interview))
        .send()
        .await
        .unwrap();
    assert_security_headers(&res, "interview page");
    let csp = res.headers()["content-security-policy"].to_str().unwrap();
    let connect = csp
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("connect-src"))
        .unwrap();
    assert_eq!(connect, "connect-src 'self'");
}

/// Each handler is routed by its own method, so a path that a later templated route also
/// matches must still be refused by its own route, not taken by that one.
#[actix_web::test]
async fn a_wrong_method_is_refused_by_the_paths_own_route() {
    let app = spawn_app().await;
    let c = &app.client;
    for method in [reqwest::Method::GET, reqwest::Method::OPTIONS] {
        let res = c
            .request(
                method.clone(),
                format!("{}/api/v1/messages/send", app.messaging),
            )
            .header("X-API-Key", "sb_any")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 405, "{method} is not /api/v1/messages/{{id}}");
        assert_eq!(res.headers()["allow"], "POST", "{method}");
        assert_eq!(body(res).await["error"], "method_not_allowed");
    }
    let res = c
        .post(format!("{}/api/v1/sessions/token/start", app.interview))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["allow"], "GET");
    assert_error(res, 405, "METHOD_NOT_ALLOWED").await;
    let res = c
        .post(format!("{}/api/v1/messages/send", app.messaging))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        401,
        "the right method still reaches the handler"
    );
    // Identity refuses inside its scope, so the 405 is counted and says so.
    let res = c.put(app.url("/users/me")).send().await.unwrap();
    assert!(res.headers().contains_key("x-ratelimit-remaining"));
}

#[actix_web::test]
async fn health_has_one_shape_in_every_service() {
    let app = spawn_app_with(|_| {}).await;
    for (name, base) in [
        ("identity", &app.identity),
        ("interview", &app.interview),
        ("messaging", &app.messaging),
    ] {
        let res = app
            .client
            .get(format!("{base}/health"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let v = body(res).await;
        assert_eq!(v["status"], "healthy", "{name}: {v}");
        assert_eq!(v["service"], name);
        assert_eq!(v["version"], "1.0", "{name}: interface version");
        assert_eq!(v["build"], env!("CARGO_PKG_VERSION"));
        assert!(v["timestamp"].as_str().unwrap().contains('T'));
        assert!(v.get("success").is_none(), "not wrapped");
    }
}

/// Settings for a start-up attempt on a fresh database.
async fn settings(dir: &std::path::Path, tweak: impl FnOnce(&mut Settings)) -> Settings {
    let mut s = Settings::default();
    s.database.url = fresh_database_url(dir).await;
    s.outbox.path = dir.join("outbox.jsonl").display().to_string();
    s.services.identity.bind = "127.0.0.1:0".into();
    s.services.interview.bind = "127.0.0.1:0".into();
    s.services.messaging.bind = "127.0.0.1:0".into();
    tweak(&mut s);
    s
}

#[actix_web::test]
async fn exposed_binds_refuse_weak_settings_naming_each_key() {
    let dir = tempfile::tempdir().unwrap();
    let exposed = |s: &mut Settings| {
        s.services.messaging.bind = "0.0.0.0:0".into();
        s.services.messaging.webhooks.allow_private_urls = true;
    };
    let Err(e) = Application::build(settings(dir.path(), exposed).await).await else {
        panic!("a non-loopback bind with development secrets must be refused");
    };
    let msg = e.to_string();
    for key in [
        "auth.jwt_secret",
        "services.interview.api_key",
        "services.interview.admin_key",
        "providers.sms.auth_token",
        "services.messaging.webhooks.allow_private_urls",
        "services.identity.kyc_sandbox",
        "providers.payments.webhook_secret",
        "providers.payments.provider",
    ] {
        assert!(msg.contains(key), "{key} named in: {msg}");
    }
    let dev = settings(dir.path(), |s| {
        exposed(s);
        s.server.environment = "development".into();
    })
    .await;
    assert!(Application::build(dev).await.is_ok(), "development says so");
    let loopback = settings(dir.path(), |s| {
        s.services.messaging.webhooks.allow_private_urls = true
    })
    .await;
    assert!(Application::build(loopback).await.is_ok(), "loopback only");
}

#[actix_web::test]
async fn access_logs_name_the_route_not_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let server = crate::helpers::ServedBinary::start("interview", dir.path(), &[]).await;
    let secret = "tok3n-in-the-path-0123456789";
    let res = crate::helpers::http_client()
        .get(format!("{}/interview/{secret}", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logs = server.stop();
    assert!(logs.contains("/interview/{token}"), "route logged: {logs}");
    assert!(!logs.contains(secret), "token logged: {logs}");
}

#[actix_web::test]
async fn array_bodies_are_refused_not_read_by_position() {
    let app = spawn_app_with(|_| {}).await;
    let res = app
        .client
        .post(app.url("/auth/signin"))
        .json(&json!([phone(), "1234"]))
        .send()
        .await
        .unwrap();
    let v = assert_error(res, 400, "INVALID_REQUEST").await;
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("JSON object"),
        "{v}"
    );
}

#[actix_web::test]
async fn schemathesis_findings_in_messaging() {
    use crate::messaging::{app, workspace, MessagingApp};
    let app = app().await;
    let ws = workspace(&app, "10").await;
    // A URI is ASCII: "https://Ï" was stored as its punycode.
    for url in ["https://\u{cf}/hook", "https://example.com/a b"] {
        let res = app
            .post_key(
                "/api/v1/webhooks",
                &ws.key,
                json!({"url": url, "events": ["credit.low"]}),
            )
            .await;
        assert_eq!(res.status(), 400, "{url}");
    }
    // Credentials sent in Authorization that are not a bearer token are refused, not
    // passed over for the API key.
    let res = app
        .client
        .get(app.m("/api/v1/account"))
        .header("X-API-Key", &ws.key)
        .header("Authorization", "Basic Zm9vOmJhcg==")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(app.get_key("/api/v1/account", &ws.key).await.status(), 200);
}

#[actix_web::test]
async fn serve_refuses_an_exposed_bind_naming_only_the_started_services_keys() {
    let dir = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args([
            "--config",
            &dir.path().join("none.toml").display().to_string(),
        ])
        .args(["serve", "--only", "identity"])
        .env(
            "SWITCHBOARD__DATABASE__URL",
            format!("sqlite://{}/db.sqlite?mode=rwc", dir.path().display()),
        )
        .env("SWITCHBOARD__SERVICES__IDENTITY__BIND", "0.0.0.0:0")
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), out)
        .await
        .expect("refused promptly")
        .unwrap();
    assert!(!out.status.success());
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(err.contains("auth.jwt_secret"), "{err}");
    assert!(err.contains("services.identity.kyc_sandbox"), "{err}");
    assert!(
        !err.contains("services.interview.api_key"),
        "--only identity: {err}"
    );
}

/// Private webhook addresses are allowed per service: an interview backend on a private
/// network does not open messaging customers' webhooks to internal addresses.
#[actix_web::test]
async fn private_webhook_addresses_are_allowed_per_service() {
    use crate::interview::support as iv;
    use crate::messaging::{self as msg, MessagingApp};
    let app = spawn_app_with(|s| {
        iv::fast(s);
        s.services.interview.webhook.allow_private_urls = true;
    })
    .await;
    assert!(!app.settings.services.messaging.webhooks.allow_private_urls);
    let internal = "http://10.0.0.7/hook";
    // Accepted (201) by interview, whose backend may sit on a private network…
    iv::create(&app, serde_json::json!({ "webhook_url": internal })).await;
    // …refused by messaging, whose switch is off.
    let ws = msg::workspace(&app, "5").await;
    let res = app
        .post_key(
            "/api/v1/webhooks",
            &ws.key,
            serde_json::json!({"url": internal, "events": ["message.delivered"]}),
        )
        .await;
    msg::assert_err(res, 400, "validation_error").await;
}
