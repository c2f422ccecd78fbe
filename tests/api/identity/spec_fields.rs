//! Every field of the spec's auth responses, by name and type.

use crate::helpers::*;
use serde_json::{json, Value};

const AUTH_USER: [&str; 7] = [
    "id",
    "phone",
    "handle",
    "name",
    "avatar_url",
    "kyc_status",
    "created_at",
];

fn assert_auth_user(u: &Value) {
    let o = u.as_object().unwrap_or_else(|| panic!("user object: {u}"));
    for k in AUTH_USER {
        assert!(o.contains_key(k), "{k} in {u}");
    }
    for k in ["id", "phone", "handle", "name", "kyc_status"] {
        assert!(u[k].is_string(), "{k} is a string in {u}");
    }
    assert!(u["avatar_url"].is_null() || u["avatar_url"].is_string());
    uuid::Uuid::parse_str(u["id"].as_str().unwrap()).expect("id is a uuid");
    chrono::DateTime::parse_from_rfc3339(u["created_at"].as_str().unwrap()).expect("ISO 8601");
    assert!(["none", "verified"].contains(&u["kyc_status"].as_str().unwrap()));
}

fn assert_token_set(d: &Value) {
    assert!(
        d["access_token"]
            .as_str()
            .is_some_and(|t| t.split('.').count() == 3),
        "JWT: {d}"
    );
    assert!(
        d["refresh_token"].as_str().is_some_and(|t| t.len() >= 32),
        "{d}"
    );
    assert_eq!(d["expires_in"].as_u64(), Some(900), "{d}");
}

#[actix_web::test]
async fn signup_and_signin_return_the_auth_user_and_token_set() {
    let app = spawn_app().await;
    let p = phone();
    let h = handle();
    let signup = app.signup(&p, &h, "4321").await;
    assert_auth_user(&signup["user"]);
    assert_token_set(&signup);
    assert_eq!(signup["user"]["handle"], h);

    let res = app
        .post("/auth/signin", json!({"phone": p, "pin": "4321"}))
        .await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["success"], true);
    assert_auth_user(&v["data"]["user"]);
    assert_token_set(&v["data"]);
    assert_eq!(v["data"]["user"]["id"], signup["user"]["id"]);
}
