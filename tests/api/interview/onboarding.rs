use super::support::*;
use crate::helpers::body;
use serde_json::json;

#[actix_web::test]
async fn onboarding_gathers_a_worker_profile() {
    let app = app().await;
    let res = app
        .client
        .post(url(&app, "/api/v1/onboarding/start"))
        .json(&json!({"user_id": "w-1", "session_type": "worker_onboarding"}))
        .send()
        .await
        .unwrap();
    assert_error(res, 401, "UNAUTHORIZED").await;
    let res = post_key(
        &app,
        "/api/v1/onboarding/start",
        json!({"user_id": "w-1", "session_type": "other"}),
    )
    .await;
    assert_error(res, 400, "INVALID_REQUEST").await;
    let res = post_key(
        &app,
        "/api/v1/onboarding/start",
        json!({"user_id": "w-1", "session_type": "worker_onboarding"}),
    )
    .await;
    assert_eq!(res.status(), 201);
    let s = body(res).await;
    assert!(s["greeting"].as_str().unwrap().contains("skills"));
    let sid = s["session_id"].as_str().unwrap().to_owned();
    let token = s["session_token"].as_str().unwrap().to_owned();
    let say = |content: &'static str| {
        let (app, sid, token) = (&app, sid.clone(), token.clone());
        async move {
            let res = post_token(
                app,
                &format!("/api/v1/onboarding/{sid}/message"),
                &token,
                Some(json!({"content": content})),
            )
            .await;
            assert_eq!(res.status(), 200);
            body(res).await
        }
    };
    let v = say("I do plumbing and some electrical work, 6 years now").await;
    assert_eq!(
        v["extracted_data"]["skills"],
        json!(["plumbing", "electrical"])
    );
    assert_eq!(v["extracted_data"]["years_experience"], 6);
    assert_eq!(v["profile_complete"], false);
    assert!(v["response"].as_str().unwrap().contains("area"));
    let v = say("Nairobi and Westlands").await;
    assert_eq!(v["extracted_data"]["service_area"], "Nairobi and Westlands");
    let v = say("weekdays and evenings").await;
    assert_eq!(v["extracted_data"]["availability"], "weekdays, evenings");
    let v = say("I charge $25 per hour").await;
    assert_eq!(v["extracted_data"]["hourly_rate"], 25.0);
    assert_eq!(v["profile_complete"], true);

    let res = post_token(
        &app,
        &format!("/api/v1/onboarding/{sid}/message"),
        "wrong",
        Some(json!({"content": "hi"})),
    )
    .await;
    assert_error(res, 401, "UNAUTHORIZED").await;
    let res = post_token(
        &app,
        &format!("/api/v1/onboarding/{sid}/message"),
        &token,
        Some(json!({"content": ""})),
    )
    .await;
    assert_error(res, 400, "INVALID_REQUEST").await;
    let res = post_key(
        &app,
        &format!("/api/v1/onboarding/{}/message", uuid::Uuid::new_v4()),
        json!({"content": "hi"}),
    )
    .await;
    assert_error(res, 404, "NOT_FOUND").await;
}
