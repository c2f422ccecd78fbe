//! Dealer applications: apply, status, the admin's pending list and approval.

use super::*;
use crate::helpers::phone;

pub fn application() -> Value {
    json!({"businessName": "Ada Autos", "location": "Berlin", "businessPhone": "+4930123456",
           "website": "https://ada-autos.example.com", "description": "Used cars since 1999"})
}

#[actix_web::test]
async fn a_user_applies_once_and_an_admin_approves() {
    let app = app().await;
    let auth = signup(&app, &phone(), "secret1").await;
    let token = auth["token"].as_str().unwrap();
    let user_id = auth["user"]["_id"].as_str().unwrap();

    let status = assert_ok(
        get(&app, "/auth/dealer-application-status", Some(token)).await,
        200,
    )
    .await;
    assert_eq!(status["hasApplication"], false);
    assert_eq!(status["canApply"], true);
    assert!(status["application"].is_null());
    let created = assert_ok(apply(&app, token).await, 201).await;
    assert_eq!(created["businessName"], "Ada Autos");
    assert_eq!(created["status"], "pending");
    let res = apply(&app, token).await;
    assert_err(res, 409, "application_exists").await;

    let status = assert_ok(
        get(&app, "/auth/dealer-application-status", Some(token)).await,
        200,
    )
    .await;
    assert_eq!(status["hasApplication"], true);
    assert_eq!(status["applicationStatus"], "pending");
    assert_eq!(status["isDealer"], false);
    assert_eq!(status["canApply"], false);
    assert_eq!(status["application"]["businessName"], "Ada Autos");
    assert!(status["application"]["submittedAt"].is_string());

    // Only an administrator sees and approves.
    let res = get(&app, "/dealers/admin/pending", Some(token)).await;
    assert_err(res, 403, "forbidden").await;
    let approve = format!("/dealers/{user_id}/approve");
    assert_err(
        send(&app, reqwest::Method::PUT, &approve, token, None).await,
        403,
        "forbidden",
    )
    .await;

    let admin = admin_token(&app).await;
    let res = get(&app, "/dealers/admin/pending", Some(&admin)).await;
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["data"][0]["_id"], user_id);
    assert_eq!(v["data"][0]["isApproved"], false);
    assert_eq!(v["data"][0]["type"], "dealer");
    assert_eq!(v["pagination"]["totalItems"], 1);
    assert_eq!(v["pagination"]["itemsPerPage"], 10);
    assert_eq!(v["pagination"]["currentPage"], 1);

    let dealer = assert_ok(
        send(&app, reqwest::Method::PUT, &approve, &admin, None).await,
        200,
    )
    .await;
    assert_eq!(dealer["isApproved"], true);
    assert_eq!(dealer["name"], "Ada Autos");
    let res = send(&app, reqwest::Method::PUT, &approve, &admin, None).await;
    assert_err(res, 409, "already_approved").await;
    let v = json_body(get(&app, "/dealers/admin/pending", Some(&admin)).await).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 0, "{v}");

    let status = assert_ok(
        get(&app, "/auth/dealer-application-status", Some(token)).await,
        200,
    )
    .await;
    assert_eq!(status["applicationStatus"], "approved");
    assert_eq!(status["isDealer"], true);
    assert_eq!(status["canApply"], false);
    // The dealer role reaches the token at the next refresh.
    let res = post(
        &app,
        "/auth/refresh-token",
        json!({"refreshToken": auth["refreshToken"]}),
    )
    .await;
    let refreshed = assert_ok(res, 200).await;
    let me = assert_ok(
        get(&app, "/auth/me", refreshed["accessToken"].as_str()).await,
        200,
    )
    .await;
    assert_eq!(me["role"], "dealer");
    let res = apply(&app, token).await;
    assert_err(res, 409, "already_dealer").await;
}

#[actix_web::test]
async fn applications_are_validated_and_pending_lists_page() {
    let app = app().await;
    let token = signup(&app, &phone(), "secret1").await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = "/auth/dealer-application";
    let mut cases = Vec::new();
    for (field, value) in [
        ("businessName", json!(null)),
        ("location", json!("  ")),
        ("businessPhone", json!("030 123")),
        ("website", json!("not a url")),
        ("description", json!("x".repeat(2001))),
    ] {
        let mut body = application();
        body[field] = value;
        cases.push((field, body));
    }
    for (field, body) in cases {
        let res = send(&app, reqwest::Method::POST, path, &token, Some(body)).await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{v}");
    }
    assert_err(post(&app, path, application()).await, 401, "invalid_token").await;

    for _ in 0..3 {
        let t = signup(&app, &phone(), "secret1").await["token"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_ok(apply(&app, &t).await, 201).await;
    }
    let admin = admin_token(&app).await;
    let v = json_body(get(&app, "/dealers/admin/pending?page=2&limit=2", Some(&admin)).await).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["pagination"]["totalPages"], 2);
    assert_eq!(v["pagination"]["hasPrevPage"], true);
    assert_eq!(v["pagination"]["hasNextPage"], false);
    let res = get(&app, "/dealers/admin/pending?limit=101", Some(&admin)).await;
    assert_err(res, 400, "validation_error").await;
    let res = send(
        &app,
        reqwest::Method::PUT,
        "/dealers/not-an-id/approve",
        &admin,
        None,
    )
    .await;
    assert_err(res, 404, "dealer_not_found").await;
}

pub async fn apply(app: &TestApp, token: &str) -> Response {
    let path = "/auth/dealer-application";
    send(app, reqwest::Method::POST, path, token, Some(application())).await
}
