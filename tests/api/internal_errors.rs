//! A failing database answers 500 in each service's own envelope, with no detail of the
//! cause. The failure is real: a table the request needs is renamed away underneath the
//! running server (SQLite and PostgreSQL both).

use crate::helpers::*;
use crate::interview::support as iv;
use crate::messaging::{self as msg, MessagingApp};
use sea_orm::ConnectionTrait;
use serde_json::{json, Value};

async fn break_table(app: &TestApp, table: &str) {
    let conn = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .expect("database");
    conn.execute_unprepared(&format!("ALTER TABLE {table} RENAME TO {table}_gone"))
        .await
        .expect("rename");
    conn.close().await.ok();
}

/// The body says nothing of the cause (no table name, no SQL).
fn assert_opaque(v: &Value, table: &str) {
    let text = v.to_string().to_lowercase();
    for leak in [table, "sql", "no such table", "relation"] {
        assert!(!text.contains(leak), "500 body leaks {leak:?}: {v}");
    }
}

#[actix_web::test]
async fn identity_answers_500_in_its_envelope() {
    let app = spawn_app().await;
    let h = handle();
    app.signup(&phone(), &h, "1234").await;
    break_table(&app, "identity_users").await;
    let res = app.get(&format!("/users/@{h}")).await;
    let v = assert_error(res, 500, "INTERNAL_ERROR").await;
    assert!(v["error"]["message"].is_string(), "{v}");
    assert_opaque(&v, "identity_users");
}

#[actix_web::test]
async fn interview_answers_500_in_its_envelope() {
    let app = iv::app().await;
    let s = iv::create(&app, json!({})).await;
    break_table(&app, "interview_sessions").await;
    let res = iv::get_key(&app, &format!("/api/v1/sessions/{}", iv::id(&s))).await;
    let v = iv::assert_error(res, 500, "INTERNAL_ERROR").await;
    assert_opaque(&v, "interview_sessions");
}

#[actix_web::test]
async fn messaging_answers_500_in_its_envelope() {
    let app = msg::app().await;
    let ws = msg::workspace(&app, "10").await;
    break_table(&app, "messaging_messages").await;
    let res = app.get_key("/api/v1/messages", &ws.key).await;
    let v = msg::assert_err(res, 500, "internal_error").await;
    assert_opaque(&v, "messaging_messages");
}
