//! The sandbox: the same marketplace on its own bind and database; every response there
//! says `X-Test-Mode: true`, none of production does, and nothing crosses between them.

use super::*;
use crate::helpers::phone;
use reqwest::Method;

pub(super) struct Sandbox {
    pub(super) app: TestApp,
    base: String,
    _dir: tempfile::TempDir,
}

async fn with_sandbox() -> Sandbox {
    with_sandbox_and(|_| {}).await
}

/// The app with its sandbox, `tweak` applied to the settings last.
pub(super) async fn with_sandbox_and(tweak: impl FnOnce(&mut Settings)) -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/sandbox.db?mode=rwc", dir.path().display());
    // Bound where the system picks, as every test listener is: a port found free and then
    // released could be taken by a parallel test before the sandbox binds it.
    let app = app_with(|s| {
        s.services.marketplace.sandbox.enabled = true;
        s.services.marketplace.sandbox.bind = "127.0.0.1:0".into();
        s.services.marketplace.sandbox.database_url = url;
        tweak(s);
    })
    .await;
    Sandbox {
        base: app.sandbox.clone(),
        app,
        _dir: dir,
    }
}

impl Sandbox {
    pub(super) fn req(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.app
            .client
            .request(method, format!("{}{path}", self.base))
    }
}

fn test_mode(res: &Response) -> Option<&str> {
    res.headers()
        .get("x-test-mode")
        .and_then(|v| v.to_str().ok())
}

#[actix_web::test]
async fn accounts_made_in_the_sandbox_do_not_exist_in_production() {
    let sb = with_sandbox().await;
    let p = phone();
    let body = json!({"phone": p, "password": "secret1", "name": "Tess Tester"});
    let res = sb
        .req(Method::POST, "/auth/signup")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(test_mode(&res), Some("true"));
    let auth = assert_ok(res, 201).await;
    let sandbox_token = auth["token"].as_str().unwrap().to_owned();
    let res = sb
        .req(Method::GET, "/auth/me")
        .bearer_auth(&sandbox_token)
        .send()
        .await
        .unwrap();
    assert_eq!(assert_ok(res, 200).await["name"], "Tess Tester");

    // Production knows neither the account nor the sandbox's tokens.
    let login = json!({"phone": p, "password": "secret1"});
    let res = post(&sb.app, "/auth/login", login.clone()).await;
    assert_eq!(test_mode(&res), None);
    assert_err(res, 401, "invalid_credentials").await;
    let res = get(&sb.app, "/auth/me", Some(&sandbox_token)).await;
    assert_err(res, 401, "invalid_token").await;
    let prod = assert_ok(post(&sb.app, "/auth/signup", body.clone()).await, 201).await;
    let res = sb
        .req(Method::GET, "/auth/me")
        .bearer_auth(prod["token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "invalid_token").await;
    // The sandbox's catalogue is its own, filled the same way.
    let res = sb.req(Method::GET, "/cars/makes").send().await.unwrap();
    assert!(assert_ok(res, 200).await.as_array().unwrap().len() >= 40);
}

/// The sandbox reads its own database, not production's: a listing made in production is
/// not there (its catalogue alone cannot tell, both are filled the same way).
#[actix_web::test]
async fn listings_made_in_production_are_not_in_the_sandbox() {
    let sb = with_sandbox().await;
    let (seller, _) = user(&sb.app).await;
    let car = create_car(&sb.app, &seller, json!({})).await;
    let path = format!("/cars/{}", car["_id"].as_str().unwrap());
    assert_ok(get(&sb.app, &path, None).await, 200).await;
    let res = sb.req(Method::GET, &path).send().await.unwrap();
    assert_eq!(test_mode(&res), Some("true"));
    assert_err(res, 404, "car_not_found").await;
    let res = sb.req(Method::GET, "/cars").send().await.unwrap();
    assert_eq!(json_body(res).await["pagination"]["totalItems"], 0);
    let prod = json_body(get(&sb.app, "/cars", None).await).await;
    assert_eq!(prod["pagination"]["totalItems"], 1);
}

#[actix_web::test]
async fn every_sandbox_response_says_test_mode_and_no_production_one_does() {
    let sb = with_sandbox().await;
    // (method, path, body, Accept, status): one of each kind of response.
    type Case = (
        Method,
        &'static str,
        Option<Value>,
        Option<&'static str>,
        u16,
    );
    let cases: [Case; 6] = [
        (Method::GET, "/health", None, None, 200),
        (
            Method::POST,
            "/auth/signup",
            Some(json!({"phone": "12"})),
            None,
            400,
        ),
        (Method::GET, "/auth/me", None, None, 401),
        (Method::GET, "/no/such/path", None, None, 404),
        (Method::DELETE, "/auth/login", None, None, 405),
        (
            Method::GET,
            "/health",
            None,
            Some("application/vnd.service.v2+json"),
            406,
        ),
    ];
    for (method, path, body, accept, status) in cases {
        let build = |base: &str| {
            let mut r = sb
                .app
                .client
                .request(method.clone(), format!("{base}{path}"));
            if let Some(b) = &body {
                r = r.json(b);
            }
            if let Some(a) = accept {
                r = r.header("accept", a);
            }
            r
        };
        let res = build(&sb.base).send().await.unwrap();
        assert_eq!(res.status().as_u16(), status, "sandbox {method} {path}");
        assert_eq!(test_mode(&res), Some("true"), "sandbox {method} {path}");
        let res = build(&sb.app.marketplace).send().await.unwrap();
        assert_eq!(res.status().as_u16(), status, "production {method} {path}");
        assert_eq!(test_mode(&res), None, "production {method} {path}");
    }
}
