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

/// A new staff member of `role`, signed in; answers their token.
pub async fn staff(app: &TestApp, role: &str) -> String {
    let email = format!("{role}-{}@example.com", uuid::Uuid::new_v4().simple());
    create_admin(app, &email, role, "correct horse battery").expect("admin created");
    let d = data(login(app, &email, "correct horse battery").await).await;
    assert_eq!(d["admin"]["role"], role);
    d["token"].as_str().expect("a token").to_owned()
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
    let first = app().await;
    let url = first.settings.database.url.clone();
    // Two more nodes on the same database, starting at once.
    let (second, third) = futures_util::join!(
        app_with(|s| s.database.url = url.clone()),
        app_with(|s| s.database.url = url.clone())
    );
    let db = sea_orm::Database::connect(&url).await.unwrap();
    use sea_orm::{EntityTrait, PaginatorTrait};
    let admins = switchboard_entities::advertising::admin::Entity::find()
        .count(&db)
        .await
        .unwrap();
    assert_eq!(admins, 1);
    admin(&second).await;
    admin(&third).await;
}

#[actix_web::test]
async fn the_command_adds_staff_with_a_role() {
    let app = app().await;
    let moderator = staff(&app, "moderator").await;
    let finance = staff(&app, "finance").await;
    assert_ne!(moderator, finance);
    let email = "Finance.Two@Example.com";
    create_admin(&app, email, "finance", "long enough pass").unwrap();
    let d = data(login(&app, "finance.two@example.com", "long enough pass").await).await;
    assert_eq!(d["admin"]["email"], "finance.two@example.com");
    // Refusals: the same address, a role that does not exist, a short password, no email.
    let dup = create_admin(&app, email, "admin", "long enough pass").unwrap_err();
    assert!(dup.contains("Exists"), "{dup}");
    let role = create_admin(&app, "x@example.com", "root", "long enough pass").unwrap_err();
    assert!(role.contains("--role"), "{role}");
    let short = create_admin(&app, "y@example.com", "admin", "short").unwrap_err();
    assert!(short.contains("--password"), "{short}");
    let bad = create_admin(&app, "not-an-email", "admin", "long enough pass").unwrap_err();
    assert!(bad.contains("--email"), "{bad}");
}
