use crate::helpers::*;
use chrono::Duration;
use serde_json::json;

#[actix_web::test]
async fn kyc_builtin_provider_verifies_through_its_page() {
    let app = spawn_app().await;
    let data = app.signup(&phone(), &handle(), "1234").await;
    let t = data["access_token"].as_str().unwrap().to_owned();
    let v = body(app.get_auth("/kyc/status", &t).await).await;
    assert_eq!(
        v["data"],
        json!({"status": "none", "verified_at": null, "level": null, "documents": []})
    );
    let res = app.post_auth("/kyc/initiate", &t, json!({})).await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["data"]["expires_in"], 1800);
    let url = v["data"]["verification_url"].as_str().unwrap().to_owned();
    assert!(url.starts_with(&app.settings.services.identity.public_url));
    let path = url
        .split_once("/kyc/")
        .map(|(_, p)| format!("/kyc/{p}"))
        .unwrap();
    assert_eq!(
        body(app.get_auth("/kyc/status", &t).await).await["data"]["status"],
        "pending"
    );
    let page = app.get(&path).await;
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert!(page.text().await.unwrap().contains("<form"));
    let done = app.client.post(app.url(&path)).send().await.unwrap();
    assert_eq!(done.status(), 200);
    let v = body(app.get_auth("/kyc/status", &t).await).await["data"].clone();
    assert_eq!(v["status"], "verified");
    assert_eq!(v["level"], "standard");
    assert_eq!(v["documents"], json!(["id_card"]));
    assert!(v["verified_at"].is_string());
    assert_eq!(
        body(app.get_auth("/users/me", &t).await).await["data"]["kyc_status"],
        "verified"
    );
    // Single use, and no second verification once verified.
    assert_eq!(
        app.client
            .post(app.url(&path))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    assert_error(
        app.post_auth("/kyc/initiate", &t, json!({})).await,
        400,
        "INVALID_REQUEST",
    )
    .await;
}

#[actix_web::test]
async fn kyc_link_expires_after_1800_seconds() {
    let app = spawn_app().await;
    let p = phone();
    let t = app.signup(&p, &handle(), "1234").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let url = body(app.post_auth("/kyc/initiate", &t, json!({})).await).await["data"]
        ["verification_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = url
        .split_once("/kyc/")
        .map(|(_, p)| format!("/kyc/{p}"))
        .unwrap();
    app.advance(Duration::seconds(1801));
    assert_eq!(app.get(&path).await.status(), 404);
    assert_eq!(
        app.client
            .post(app.url(&path))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let fresh = body(
        app.post("/auth/signin", json!({"phone": p, "pin": "1234"}))
            .await,
    )
    .await;
    let t = fresh["data"]["access_token"].as_str().unwrap();
    assert_eq!(
        body(app.get_auth("/kyc/status", t).await).await["data"]["status"],
        "none"
    );
    assert_error(app.get("/kyc/status").await, 401, "INVALID_TOKEN").await;
}
