use super::*;
use crate::helpers::*;
use serde_json::json;

#[actix_web::test]
async fn api_key_buys_a_bearer_token_for_the_account() {
    let app = app().await;
    let ws = workspace(&app, "12.34").await;
    let res = app.post_key("/api/v1/auth/token", &ws.key, json!({})).await;
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["data"]["token_type"], "Bearer");
    let token = v["data"]["access_token"].as_str().unwrap().to_owned();
    let res = app
        .client
        .get(app.m("/api/v1/account"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["success"], true);
    assert_eq!(v["data"]["credits_balance"], json!(12.34));
    assert_eq!(v["data"]["workspace_id"], json!(ws.id));
    // The X-API-Key works too; a bad or expired token does not.
    assert_eq!(app.balance(&ws.key).await, json!(12.34));
    let res = app
        .client
        .get(app.m("/api/v1/account"))
        .bearer_auth("nope")
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "unauthorized").await;
    assert_err(
        app.client
            .get(app.m("/api/v1/account"))
            .send()
            .await
            .unwrap(),
        401,
        "unauthorized",
    )
    .await;
    app.advance(chrono::Duration::hours(2));
    let res = app
        .client
        .get(app.m("/api/v1/account"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "unauthorized").await;
    let res = app
        .client
        .post(app.m("/api/v1/auth/token"))
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "unauthorized").await;
}

#[actix_web::test]
async fn identity_tokens_are_not_messaging_tokens() {
    let app = app().await;
    workspace(&app, "1").await;
    let data = app.signup(&phone(), &handle(), "4821").await;
    let access = data["access_token"].as_str().unwrap();
    let res = app
        .client
        .get(app.m("/api/v1/account"))
        .bearer_auth(access)
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "unauthorized").await;
}

#[actix_web::test]
async fn openapi_and_swagger_ui_are_served() {
    let app = app().await;
    let res = app
        .client
        .get(app.m("/api-docs/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let doc = json_body(res).await;
    for p in [
        "/api/v1/messages/send",
        "/api/v1/messages/bulk",
        "/api/v1/account",
        "/api/v1/webhooks/{id}/deliveries",
        "/carrier/status",
        "/carrier/inbound",
        "/api/v1/suppressions",
        "/api/v1/suppressions/{channel}/{address}",
        "/api/v1/account/consent",
        "/unsubscribe/{token}",
        "/providers/email/events",
    ] {
        assert!(doc["paths"].get(p).is_some(), "{p}");
    }
    // A new webhook, a sent message and a new suppression link to what reads and changes them.
    assert_eq!(assert_operations_and_links_consistent(&doc), 6);
    let events = &doc["components"]["schemas"]["WebhookEventName"]["enum"];
    assert!(
        events
            .as_array()
            .is_some_and(|e| e.contains(&json!("contact.opted_out"))),
        "{events}"
    );
    let created = &doc["paths"]["/api/v1/webhooks"]["post"]["responses"]["201"]["links"];
    assert_eq!(created["Get"]["operationId"], "get_webhook");
    assert_eq!(
        created["Get"]["parameters"]["id"],
        "$response.body#/data/webhook/id"
    );
    let res = app.client.get(app.m("/api-docs/")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("swagger"));
    let res = app.client.get(app.m("/api-docs")).send().await.unwrap();
    assert_eq!(res.status(), 301);
}

#[actix_web::test]
async fn the_admin_cli_creates_a_workspace_with_a_working_key() {
    let dir = tempfile::tempdir().unwrap();
    let url = fresh_database_url(dir.path()).await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args([
            "--config",
            "/nonexistent.toml",
            "admin",
            "create-workspace",
            "--name",
            "CLI Co",
            "--credits",
            "7.5",
            "--phone-number",
            "+15550003333",
        ])
        .env("SWITCHBOARD__DATABASE__URL", &url)
        .env("RUST_LOG", "error")
        .output()
        .expect("run the CLI");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let key = stdout
        .lines()
        .find_map(|l| l.strip_prefix("api_key: "))
        .expect("key printed")
        .to_owned();
    let db = sea_orm::Database::connect(&url).await.unwrap();
    use sea_orm::EntityTrait;
    let rows = switchboard_entities::messaging::workspace::Entity::find()
        .all(&db)
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_ne!(rows[0].api_key_hash, key, "stored hashed");
    assert!(!rows[0].api_key_hash.contains(&key));
    db.close().await.ok();
    let app = spawn_app_with(|s| {
        test_settings(s);
        s.database.url = url.clone();
    })
    .await;
    assert_eq!(app.balance(&key).await, json!(7.5));
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args([
            "--config",
            "/nonexistent.toml",
            "admin",
            "create-workspace",
            "--name",
            "X",
            "--credits",
            "1.234",
        ])
        .env("SWITCHBOARD__DATABASE__URL", &url)
        .output()
        .unwrap();
    assert!(!bad.status.success());
}

#[actix_web::test]
async fn health_reports_service_and_database() {
    let app = app().await;
    let res = app.client.get(app.m("/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["status"], "healthy");
    assert_eq!(v["service"], "messaging");
    assert!(v["version"].is_string() && v["timestamp"].is_string());
    let res = app.client.post(app.m("/health")).send().await.unwrap();
    assert_eq!(res.status(), 405);
}

#[actix_web::test]
async fn the_ledger_lists_every_balance_change_and_sums_to_the_balance() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let first = send_until(&app, &ws.key, "+14155550123", "first", "delivered").await;
    // 161 characters: two segments, two credits.
    let second = send_until(&app, &ws.key, "+14155550124", &"b".repeat(161), "delivered").await;
    let rows = ledger(&app, &ws.key).await;
    let summary: Vec<(Option<String>, i64, &str)> = rows
        .iter()
        .map(|r| {
            (
                r.message_id.map(|id| id.to_string()),
                r.amount,
                r.reason.as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (Some(second.clone()), -200, "message"),
            (Some(first.clone()), -100, "message"),
            (None, 1000, "grant"),
        ],
        "newest first"
    );
    assert_eq!(rows.iter().map(|r| r.amount).sum::<i64>(), 700);
    assert_eq!(app.balance(&ws.key).await, json!(7));

    // Filters: one message's entries, one reason; paging.
    let v = json_body(
        app.get_key(
            &format!("/api/v1/account/ledger?message_id={first}"),
            &ws.key,
        )
        .await,
    )
    .await;
    let entries = v["data"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["amount"], json!(-1));
    assert_eq!(entries[0]["reason"], "message");
    let v = json_body(
        app.get_key("/api/v1/account/ledger?reason=grant", &ws.key)
            .await,
    )
    .await;
    assert_eq!(v["data"]["entries"].as_array().unwrap().len(), 1);
    assert_eq!(v["data"]["entries"][0]["amount"], json!(10));
    let v = json_body(
        app.get_key("/api/v1/account/ledger?limit=1&page=2", &ws.key)
            .await,
    )
    .await;
    assert_eq!(v["data"]["entries"][0]["message_id"], json!(first));
    assert_eq!(v["data"]["pagination"]["total"], json!(3));

    // Another workspace sees only its own.
    let other = workspace(&app, "1").await;
    let rows = ledger(&app, &other.key).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].reason, "grant");
}

#[actix_web::test]
async fn the_ledger_refuses_bad_filters_and_missing_credentials() {
    let app = app().await;
    let ws = workspace(&app, "1").await;
    for query in [
        "reason=bonus",
        "message_id=not-a-uuid",
        "page=0",
        "limit=0",
        "limit=abc",
    ] {
        let res = app
            .get_key(&format!("/api/v1/account/ledger?{query}"), &ws.key)
            .await;
        assert_err(res, 400, "validation_error").await;
    }
    let res = app
        .client
        .get(app.m("/api/v1/account/ledger"))
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "unauthorized").await;
}
