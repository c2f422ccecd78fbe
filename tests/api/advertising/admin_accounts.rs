//! Administrators: the seeded first one, sign-in by email and password, more made by the
//! operator's command, logout, and the roles that keep each /admin route to its staff.

use super::*;
use serde_json::json;

/// Runs `switchboard admin create-ads-admin`; answers the printed id or the error.
pub fn create_admin(
    app: &TestApp,
    email: &str,
    role: &str,
    password: &str,
) -> Result<String, String> {
    let args = [
        "create-ads-admin",
        "--email",
        email,
        "--role",
        role,
        "--password",
        password,
    ];
    run_cli(app, &args, "admin_id")
}

pub async fn login(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    post(
        app,
        "/admin/auth/login",
        None,
        json!({"email": email, "password": password}),
    )
    .await
}

/// The seeded administrator's token (role `admin`).
pub async fn admin(app: &TestApp) -> String {
    let seed = &app.settings.services.advertising.admin;
    let d = data(login(app, &seed.email, &seed.password).await).await;
    d["token"].as_str().expect("a token").to_owned()
}

/// A new staff member of `role`, signed in; answers their token. Written straight to the
/// database (the command is tested on its own): a second process writing to SQLite while
/// the server works may meet "database is locked".
pub async fn staff(app: &TestApp, role: &str) -> String {
    staff_with_email(app, role).await.0
}

/// As [`staff`]: the token and the staff member's email.
pub async fn staff_with_email(app: &TestApp, role: &str) -> (String, String) {
    use sea_orm::ActiveModelTrait;
    let email = format!("{role}-{}@example.com", uuid::Uuid::new_v4().simple());
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let now = chrono::Utc::now();
    switchboard_entities::advertising::admin::ActiveModel {
        id: sea_orm::Set(uuid::Uuid::new_v4()),
        email: sea_orm::Set(email.clone()),
        password_hash: sea_orm::Set(
            switchboard::core::password::hash("correct horse battery".into())
                .await
                .unwrap(),
        ),
        role: sea_orm::Set(role.into()),
        created_at: sea_orm::Set(now),
        updated_at: sea_orm::Set(now),
    }
    .insert(&db)
    .await
    .unwrap();
    db.close().await.ok();
    let d = data(login(app, &email, "correct horse battery").await).await;
    assert_eq!(d["admin"]["role"], role);
    (d["token"].as_str().expect("a token").to_owned(), email)
}

/// Asserts that each of `tokens` is refused `method path` with 403 and no token with 401.
pub async fn only_for(
    app: &TestApp,
    method: Method,
    path: &str,
    body: Option<Value>,
    tokens: &[&str],
) {
    for t in tokens {
        let res = call(app, method.clone(), path, Some(t), body.clone()).await;
        refused(res, 403, "forbidden").await;
    }
    refused(
        call(app, method, path, None, body).await,
        401,
        "unauthorized",
    )
    .await;
}

#[actix_web::test]
async fn the_seeded_administrator_signs_in_and_out() {
    let app = app().await;
    let seed = app.settings.services.advertising.admin.clone();
    let d = data(login(&app, &seed.email.to_uppercase(), &seed.password).await).await;
    assert_eq!(d["admin"]["email"], seed.email);
    assert_eq!(d["admin"]["role"], "admin");
    assert!(d["admin"].get("passwordHash").is_none(), "{d}");
    let token = d["token"].as_str().unwrap().to_owned();

    // A wrong password and an unknown address answer alike.
    let wrong = refused(
        login(&app, &seed.email, "not the password").await,
        401,
        "invalid_credentials",
    )
    .await;
    let unknown = refused(
        login(&app, "nobody@example.com", &seed.password).await,
        401,
        "invalid_credentials",
    )
    .await;
    assert_eq!(wrong, unknown);
    let missing = post(
        &app,
        "/admin/auth/login",
        None,
        json!({"email": seed.email}),
    )
    .await;
    refused(missing, 400, "validation_error").await;

    data(post(&app, "/admin/auth/logout", Some(&token), json!({})).await).await;
    let again = post(&app, "/admin/auth/logout", Some(&token), json!({})).await;
    refused(again, 401, "unauthorized").await;
    // A poster is no administrator.
    let p = poster(&app).await;
    refused(
        post(&app, "/admin/auth/logout", Some(&p), json!({})).await,
        403,
        "forbidden",
    )
    .await;
}

#[actix_web::test]
async fn seeding_is_once_however_many_times_and_nodes_start() {
    // Three nodes' first starts at once on an empty database: each migrates it and seeds
    // the first administrator, and exactly one administrator is made.
    let dir = tempfile::tempdir().unwrap();
    let url = crate::helpers::empty_database_url(dir.path()).await;
    let (first, second, third) = futures_util::join!(
        app_with(|s| s.database.url = url.clone()),
        app_with(|s| s.database.url = url.clone()),
        app_with(|s| s.database.url = url.clone())
    );
    let count = || async {
        let db = sea_orm::Database::connect(&url).await.unwrap();
        use sea_orm::{EntityTrait, PaginatorTrait};
        switchboard_entities::advertising::admin::Entity::find()
            .count(&db)
            .await
            .unwrap()
    };
    assert_eq!(count().await, 1);
    for node in [&first, &second, &third] {
        admin(node).await;
    }
    // A later start seeds nothing more.
    let fourth = app_with(|s| s.database.url = url.clone()).await;
    admin(&fourth).await;
    assert_eq!(count().await, 1);
}

#[actix_web::test]
async fn the_command_adds_staff_with_a_role() {
    let app = app().await;
    create_admin(&app, "mod@example.com", "moderator", "long enough pass").unwrap();
    let d = data(login(&app, "mod@example.com", "long enough pass").await).await;
    assert_eq!(d["admin"]["role"], "moderator");
    let email = "Finance.Two@Example.com";
    create_admin(&app, email, "finance", "long enough pass").unwrap();
    let d = data(login(&app, "finance.two@example.com", "long enough pass").await).await;
    assert_eq!(d["admin"]["email"], "finance.two@example.com");
    // Refusals: the same address, a role that does not exist, a short password, no email.
    let dup = create_admin(&app, email, "admin", "long enough pass").unwrap_err();
    assert!(dup.contains("already exists"), "{dup}");
    let role = create_admin(&app, "x@example.com", "root", "long enough pass").unwrap_err();
    assert!(role.contains("--role"), "{role}");
    let short = create_admin(&app, "y@example.com", "admin", "short").unwrap_err();
    assert!(short.contains("--password"), "{short}");
    let bad = create_admin(&app, "not-an-email", "admin", "long enough pass").unwrap_err();
    assert!(bad.contains("--email"), "{bad}");
}

#[actix_web::test]
async fn beyond_loopback_the_development_password_and_dashboard_key_are_refused() {
    use switchboard::startup::Application;
    let mut s = switchboard::settings::Settings::default();
    s.services.advertising.bind = "0.0.0.0:0".into();
    s.server.environment = String::new();
    let Err(e) = Application::build(s.clone()).await else {
        panic!("an exposed advertising service with development keys started");
    };
    let msg = e.to_string();
    for key in [
        "services.advertising.admin.password",
        "services.advertising.dashboard_api_key",
    ] {
        assert!(msg.contains(key), "{key} named in {msg}");
    }
    s.services.advertising.admin.password = "an operator's own password".into();
    s.services.advertising.dashboard_api_key = "k".repeat(40);
    let Err(e) = Application::build(s).await else {
        panic!("the core's development secret is still refused");
    };
    let msg = e.to_string();
    assert!(!msg.contains("services.advertising."), "{msg}");
}

#[actix_web::test]
async fn administrator_sign_ins_are_rate_limited_per_address() {
    let app = app_with(|s| s.services.advertising.rate_limits.auth.limit = 3).await;
    let seed = app.settings.services.advertising.admin.clone();
    for _ in 0..3 {
        refused(
            login(&app, &seed.email, "not the password").await,
            401,
            "invalid_credentials",
        )
        .await;
    }
    // Even the right password waits: guessing is what the limit stops.
    refused(
        login(&app, &seed.email, &seed.password).await,
        429,
        "rate_limit_exceeded",
    )
    .await;
}
