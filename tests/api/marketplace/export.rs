//! The dealer's export of their listings: CSV (RFC 4180, formula-safe) or JSON, streamed,
//! filtered by creation day and status.

use super::*;

async fn export(app: &TestApp, token: &str, query: &str) -> Response {
    get(app, &format!("/dealers/export/cars{query}"), Some(token)).await
}

#[actix_web::test]
async fn csv_cells_are_quoted_and_formulas_defused() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (token, _) = dealer(&app, &admin).await;
    let description = "=HYPERLINK(\"http://evil.example\",\"click\"), said \"Bob\"\nsecond line";
    let car = create_car(
        &app,
        &token,
        json!({"description": description, "color": "@red",
        "features": ["Sunroof", "Bluetooth"]}),
    )
    .await;
    // Another dealer's listing is not in this export.
    let (other, _) = dealer(&app, &admin).await;
    create_car(&app, &other, json!({"model": "Camry"})).await;

    let res = export(&app, &token, "").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/csv; charset=utf-8");
    let disposition = res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(disposition.starts_with("attachment"), "{disposition}");
    assert!(
        disposition.contains("filename=\"cars-") && disposition.contains(".csv"),
        "{disposition}"
    );
    let body = res.text().await.unwrap();
    let (header, rest) = body.split_once("\r\n").unwrap();
    assert!(header.starts_with("id,make,model,year,price"), "{header}");
    assert!(rest.starts_with(car["_id"].as_str().unwrap()), "{rest}");
    assert!(rest.contains(",'@red,"), "{rest}");
    assert!(
        rest.contains("\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\"), said \"\"Bob\"\"\nsecond line\""),
        "{rest}"
    );
    assert!(rest.contains(",Sunroof; Bluetooth,"), "{rest}");
    assert!(!rest.contains("Camry"), "{rest}");
    assert!(rest.ends_with("\r\n"));
    assert_eq!(rest.matches("\r\n").count(), 1, "one record: {rest}");
}

#[actix_web::test]
async fn json_exports_filter_by_day_and_status_and_stream_every_page() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let phone = crate::helpers::phone();
    let (token, _) = dealer_of(&app, &admin, &phone).await;
    let first = create_car(&app, &token, json!({"status": "sold"})).await;
    app.clock.advance(chrono::Duration::days(2));
    let token = login(&app, &phone).await;
    let later = create_car(&app, &token, json!({"model": "Camry"})).await;
    let today = app.now().format("%Y-%m-%d").to_string();
    let before = (app.now() - chrono::Duration::days(2))
        .format("%Y-%m-%d")
        .to_string();

    let ids = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| c["_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let res = export(&app, &token, "?format=json").await;
    assert_eq!(res.headers()["content-type"], "application/json");
    assert!(res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .contains(".json"));
    let all: Value = res.json().await.unwrap();
    assert_eq!(
        ids(&all),
        [
            first["_id"].as_str().unwrap(),
            later["_id"].as_str().unwrap()
        ]
    );
    assert_eq!(all[1]["model"], "Camry");
    for (query, expected) in [
        (format!("?format=json&dateFrom={today}"), vec![&later]),
        (format!("?format=json&dateTo={before}"), vec![&first]),
        (
            format!("?format=json&dateFrom={before}&dateTo={before}"),
            vec![&first],
        ),
        ("?format=json&status=sold".to_owned(), vec![&first]),
        ("?format=json&status=reserved".to_owned(), vec![]),
    ] {
        let v: Value = export(&app, &token, &query).await.json().await.unwrap();
        let want: Vec<String> = expected
            .iter()
            .map(|c| c["_id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids(&v), want, "{query}");
    }

    // More listings than one page of the stream: every one arrives once, in order.
    for _ in 0..205 {
        create_car(&app, &token, json!({})).await;
    }
    let res = export(&app, &token, "?format=json").await;
    assert!(
        res.headers().get("content-length").is_none(),
        "streamed, not buffered"
    );
    let all: Value = res.json().await.unwrap();
    let listed = ids(&all);
    assert_eq!(listed.len(), 207);
    let unique: std::collections::HashSet<_> = listed.iter().collect();
    assert_eq!(unique.len(), 207);
    let csv = export(&app, &token, "?format=csv")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(csv.matches("\r\n").count(), 208, "header and 207 records");
}

#[actix_web::test]
async fn bad_queries_and_other_roles_are_refused() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (token, _) = dealer(&app, &admin).await;
    for (query, field) in [
        ("?format=xml", "format"),
        ("?dateFrom=2026-13-01", "dateFrom"),
        ("?dateTo=yesterday", "dateTo"),
        ("?dateFrom=2026-05-02&dateTo=2026-05-01", "dateFrom"),
        ("?status=gone", "status"),
    ] {
        let v = assert_err(export(&app, &token, query).await, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{query}: {v}");
    }
    let (customer, _) = user(&app).await;
    assert_err(export(&app, &customer, "").await, 403, "forbidden").await;
    assert_err(export(&app, &admin, "").await, 403, "forbidden").await;
    let res = get(&app, "/dealers/export/cars", None).await;
    assert_err(res, 401, "invalid_token").await;
}
