//! Issue 19's marketplace corrections (API group): CORS, counters, private statistics,
//! bounded echoes, lenient clock text, error fields, view history, VIN models, settings.

use super::*;

const APP_ORIGIN: &str = "https://app.example.com";

async fn preflight(app: &TestApp, path: &str, origin: &str) -> reqwest::Response {
    req(app, reqwest::Method::OPTIONS, path)
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization, content-type",
        )
        .send()
        .await
        .unwrap()
}

fn header<'a>(res: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    res.headers().get(name).and_then(|v| v.to_str().ok())
}

#[actix_web::test]
async fn a_preflight_from_an_allowed_origin_is_answered_and_others_are_refused() {
    let app = app_with(|s| s.server.cors_allowed_origins = vec![APP_ORIGIN.into()]).await;
    let res = preflight(&app, "/cars", APP_ORIGIN).await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        header(&res, "access-control-allow-origin"),
        Some(APP_ORIGIN)
    );
    let methods = header(&res, "access-control-allow-methods").unwrap();
    assert!(
        methods.contains("POST") && methods.contains("DELETE"),
        "{methods}"
    );
    let headers = header(&res, "access-control-allow-headers").unwrap();
    assert!(headers.contains("authorization"), "{headers}");
    assert!(header(&res, "access-control-max-age").is_some());

    let res = preflight(&app, "/cars", "https://evil.example.com").await;
    assert!(header(&res, "access-control-allow-origin").is_none());
    assert_err(res, 403, "forbidden").await;

    // The actual request: allowed origin named, another origin's runs without it.
    let res = req(&app, reqwest::Method::GET, "/cars")
        .header("Origin", APP_ORIGIN)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        header(&res, "access-control-allow-origin"),
        Some(APP_ORIGIN)
    );
    let exposed = header(&res, "access-control-expose-headers").unwrap();
    assert!(exposed.contains("x-ratelimit-remaining"), "{exposed}");
    let res = req(&app, reqwest::Method::GET, "/cars")
        .header("Origin", "https://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(header(&res, "access-control-allow-origin").is_none());
}

#[actix_web::test]
async fn no_origin_is_allowed_unless_configured() {
    let app = app().await;
    let res = preflight(&app, "/cars", APP_ORIGIN).await;
    assert!(header(&res, "access-control-allow-origin").is_none());
    assert_err(res, 403, "forbidden").await;
    let any = app_with(|s| s.server.cors_allowed_origins = vec!["*".into()]).await;
    let res = preflight(&any, "/auth/login", "http://localhost:3000").await;
    assert_eq!(res.status(), 200);
    assert_eq!(header(&res, "access-control-allow-origin"), Some("*"));
}

/// `token`'s account (`id`) applies with `application` and `admin` approves it; answers
/// the approval path.
async fn apply_and_approve(
    app: &TestApp,
    admin: &str,
    token: &str,
    id: &str,
    application: Value,
) -> String {
    let res = send(
        app,
        reqwest::Method::POST,
        "/auth/dealer-application",
        token,
        Some(application),
    )
    .await;
    assert_ok(res, 201).await;
    let approve = format!("/dealers/{id}/approve");
    assert_ok(
        send(app, reqwest::Method::PUT, &approve, admin, None).await,
        200,
    )
    .await;
    approve
}

async fn total_sales(app: &TestApp, dealer_id: &str) -> Value {
    assert_ok(get(app, &format!("/dealers/{dealer_id}"), None).await, 200).await["totalSales"]
        .clone()
}

#[actix_web::test]
async fn total_sales_counts_the_sold_listings_there_are() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let p = crate::helpers::phone();
    // Sold while still a private seller, then approved: the sale counts from the start.
    let auth = signup(&app, &p, "secret1").await;
    let early = create_car(
        &app,
        auth["token"].as_str().unwrap(),
        json!({"status": "sold"}),
    )
    .await;
    let dealer_id = auth["user"]["_id"].as_str().unwrap().to_owned();
    let token = auth["token"].as_str().unwrap();
    let approve = apply_and_approve(&app, &admin, token, &dealer_id, dealers::application()).await;
    let token = login(&app, &p).await;
    assert_eq!(total_sales(&app, &dealer_id).await, 1);
    let car = |id: &str| format!("/cars/{id}");
    let active = json!({"status": "active"});
    let res = send(
        &app,
        reqwest::Method::PUT,
        &car(&id_of(&early)),
        &token,
        Some(active),
    )
    .await;
    assert_ok(res, 200).await;
    assert_eq!(total_sales(&app, &dealer_id).await, 0, "never below zero");

    // Created sold, then deleted: the sale goes with the listing.
    let mut sold = Vec::new();
    for _ in 0..3 {
        sold.push(id_of(
            &create_car(&app, &token, json!({"status": "sold"})).await,
        ));
    }
    assert_eq!(total_sales(&app, &dealer_id).await, 3);
    for id in &sold {
        let res = send(&app, reqwest::Method::DELETE, &car(id), &token, None).await;
        assert_eq!(res.status(), 200);
    }
    assert_eq!(total_sales(&app, &dealer_id).await, 0);
    // An administrator's delete counts the same.
    let listed = id_of(&create_car(&app, &token, json!({})).await);
    let sold_now = json!({"status": "sold"});
    let res = send(
        &app,
        reqwest::Method::PUT,
        &car(&listed),
        &token,
        Some(sold_now),
    )
    .await;
    assert_ok(res, 200).await;
    assert_eq!(total_sales(&app, &dealer_id).await, 1);
    let res = send(&app, reqwest::Method::DELETE, &car(&listed), &admin, None).await;
    assert_eq!(res.status(), 200);
    assert_eq!(total_sales(&app, &dealer_id).await, 0);

    // Approving again is a conflict with the dealer's state, not a missing dealer.
    let again = send(&app, reqwest::Method::PUT, &approve, &admin, None).await;
    assert_err(again, 409, "already_approved").await;
    let (_, nobody) = user(&app).await;
    let res = send(
        &app,
        reqwest::Method::PUT,
        &format!("/dealers/{nobody}/approve"),
        &admin,
        None,
    )
    .await;
    assert_err(res, 404, "dealer_not_found").await;
}

#[actix_web::test]
async fn batch_statistics_show_inquiries_to_the_seller_only() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, dealer_id) = dealer(&app, &admin).await;
    let car_id = id_of(&create_car(&app, &dealer_token, json!({})).await);
    let (customer, _) = user(&app).await;
    let inquiry = json!({"carId": car_id, "dealerId": dealer_id,
        "message": "Is the price negotiable?", "contactMethod": "phone"});
    let res = send(
        &app,
        reqwest::Method::POST,
        "/customers/inquiries",
        &customer,
        Some(inquiry),
    )
    .await;
    let created = assert_ok(res, 201).await;
    // The created inquiry carries its car as the list does.
    assert_eq!(created["car"]["_id"], car_id.as_str());
    assert_eq!(created["car"]["make"], "Toyota");
    let listed = json_body(get(&app, "/customers/inquiries", Some(&customer)).await).await;
    assert_eq!(created["car"], listed["data"][0]["car"]);

    let ids = json!({"carIds": [car_id]});
    let stats = |token: Option<String>| {
        let app = &app;
        let ids = ids.clone();
        async move {
            let mut r = req(app, reqwest::Method::POST, "/cars/stats/batch").json(&ids);
            if let Some(t) = token {
                r = r.bearer_auth(t);
            }
            assert_ok(r.send().await.unwrap(), 200).await["stats"][0].clone()
        }
    };
    for stranger in [None, Some(customer.clone())] {
        let s = stats(stranger).await;
        assert!(s["inquiries"].is_null(), "{s}");
        assert_eq!(s["likes"], 0, "public counters stay: {s}");
        assert_eq!(s["views"], 0, "{s}");
    }
    assert_eq!(stats(Some(dealer_token)).await["inquiries"], 1);
    assert_eq!(stats(Some(admin)).await["inquiries"], 1);
}

#[actix_web::test]
async fn a_comment_needs_no_rating_and_every_refusal_names_its_field() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (seller, _) = user(&app).await;
    let car_id = id_of(&create_car(&app, &seller, json!({})).await);
    let (buyer, _) = user(&app).await;
    let path = format!("/cars/{car_id}/comments");
    let res = send(
        &app,
        reqwest::Method::POST,
        &path,
        &buyer,
        Some(json!({"text": "Nice"})),
    )
    .await;
    let created = assert_ok(res, 201).await;
    assert!(created["rating"].is_null(), "{created}");
    assert_fields_refused(
        &app,
        &path,
        &buyer,
        vec![(json!({"text": "ok", "rating": 4.5}), "rating")],
    )
    .await;

    for (query, field) in [
        ("/cars?limit=101", "limit"),
        ("/cars?limit=0", "limit"),
        ("/cars?page=abc", "page"),
        ("/cars?page=0", "page"),
        ("/cars?limit=-3", "limit"),
        ("/dealers?page=abc", "page"),
        ("/cars/trending?limit=abc", "limit"),
        ("/customers/inquiries?limit=101", "limit"),
    ] {
        let v = assert_err(
            get(&app, query, Some(&buyer)).await,
            400,
            "validation_error",
        )
        .await;
        assert_eq!(v["details"]["field"], field, "{query}: {v}");
    }

    let (_, dealer_id) = dealer(&app, &admin).await;
    let reviews = format!("/dealers/{dealer_id}/reviews");
    let cases = vec![
        (json!({"rating": 4.5, "comment": "Good"}), "rating"),
        (json!({"rating": true, "comment": "Good"}), "rating"),
        (json!({"comment": "Good"}), "rating"),
        (json!({"rating": 4, "comment": 5}), "comment"),
    ];
    assert_fields_refused(&app, &reviews, &buyer, cases).await;
}

#[actix_web::test]
async fn a_refused_value_is_echoed_at_most_100_characters() {
    let app = app().await;
    let long = "a".repeat(20_000);
    let res = get(&app, &format!("/cars?make={long}"), None).await;
    let bytes = res.content_length();
    let v = assert_err(res, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], "make");
    let echoed = v["details"]["value"].as_str().unwrap();
    assert_eq!(echoed.chars().count(), 100, "{echoed}");
    assert!(long.starts_with(echoed.trim_end_matches('…')));
    assert!(v.to_string().len() < 1000, "{}", v.to_string().len());
    assert!(bytes.is_none_or(|b| b < 1000));
    // serde's refusal quotes the value (a text where a list belongs): bounded too.
    let res = post(&app, "/cars/stats/batch", json!({"carIds": long})).await;
    let v = assert_err(res, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], "carIds");
    assert!(v.to_string().len() < 1000, "{v}");
    let sort = format!("/cars?sort={long}");
    let v = assert_err(get(&app, &sort, None).await, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], "sort");
    assert!(v.to_string().len() < 1000, "{}", v.to_string().len());
}

#[actix_web::test]
async fn clock_text_is_taken_as_written() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, _) = dealer(&app, &admin).await;
    let path = "/dealers/profile/business-hours";
    let hours = json!({"monday": "9:00 AM - 6:00 PM", "tuesday": "09:00-18:00",
                       "saturday": "closed", "sunday": "By appointment"});
    let body = Some(json!({"businessHours": hours}));
    let set = assert_ok(
        send(&app, reqwest::Method::PUT, path, &dealer_token, body).await,
        200,
    )
    .await;
    let expected = json!({"monday": "9:00 AM - 6:00 PM", "tuesday": "09:00-18:00",
                          "saturday": "Closed", "sunday": "By appointment"});
    assert_eq!(set["businessHours"], expected);
    let read = assert_ok(get(&app, path, Some(&dealer_token)).await, 200).await;
    assert_eq!(read["businessHours"], expected);
    for bad in [json!({"monday": 9}), json!({"monday": ["9-5"]})] {
        let body = Some(json!({"businessHours": bad}));
        let res = send(&app, reqwest::Method::PUT, path, &dealer_token, body).await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], "businessHours.monday", "{v}");
    }

    let car_id = id_of(&create_car(&app, &dealer_token, json!({})).await);
    let drive = format!("/cars/{car_id}/test-drive");
    let tomorrow = (app.now().date_naive() + chrono::Duration::days(1)).to_string();
    for (time, clock) in [
        ("2:30 PM", json!("14:30")),
        ("9:30", json!("09:30")),
        ("14:30:00", json!("14:30")),
        ("after lunch", Value::Null),
    ] {
        let (buyer, _) = user(&app).await;
        let body = json!({"preferredDate": tomorrow, "preferredTime": time});
        let res = send(&app, reqwest::Method::POST, &drive, &buyer, Some(body)).await;
        let created = assert_ok(res, 201).await;
        assert_eq!(created["preferredTime"], time);
        assert_eq!(created["preferredClock"], clock, "{time}");
    }
    let (buyer, _) = user(&app).await;
    for bad in [json!(1430), json!({"h": 14})] {
        let body = json!({"preferredDate": tomorrow, "preferredTime": bad});
        let res = send(&app, reqwest::Method::POST, &drive, &buyer, Some(body)).await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], "preferredTime", "{v}");
    }
}

#[actix_web::test]
async fn dealers_show_unset_fields_as_null_and_exports_agree_on_times() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let auth = signup(&app, &crate::helpers::phone(), "secret1").await;
    let token = auth["token"].as_str().unwrap();
    let dealer_id = auth["user"]["_id"].as_str().unwrap();
    let bare = json!({"businessName": "Bare Motors", "location": "Leeds"});
    apply_and_approve(&app, &admin, token, dealer_id, bare).await;
    let d = assert_ok(get(&app, &format!("/dealers/{dealer_id}"), None).await, 200).await;
    for field in [
        "email",
        "businessHours",
        "website",
        "description",
        "businessPhone",
    ] {
        assert!(d.get(field).is_some_and(Value::is_null), "{field}: {d}");
    }

    // A UK number of the range kept for drama is in international format.
    let body = json!({"phone": "+447700900123", "password": "secret1"});
    let res = post(&app, "/auth/signup", body).await;
    let status = res.status();
    let uk = json_body(res).await;
    assert_eq!(status, 201, "{uk}");
    assert_eq!(uk["data"]["user"]["phone"], "+447700900123");

    let (dealer_token, _) = dealer(&app, &admin).await;
    app.advance(chrono::Duration::milliseconds(1500));
    let car = create_car(&app, &dealer_token, json!({"status": "sold"})).await;
    let csv = get(&app, "/dealers/export/cars?format=csv", Some(&dealer_token)).await;
    let csv = csv.text().await.unwrap();
    let json = get(
        &app,
        "/dealers/export/cars?format=json",
        Some(&dealer_token),
    )
    .await;
    let json: Value = json.json().await.unwrap();
    let listed = &json[0];
    assert_eq!(listed["_id"], car["_id"]);
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let created = listed["createdAt"].as_str().unwrap();
    assert_eq!(row[row.len() - 2], created, "{csv}");
    if let Some(sold) = listed["soldAt"].as_str() {
        assert_eq!(row[row.len() - 1], sold, "{csv}");
    }
}

#[actix_web::test]
async fn reading_a_car_with_a_token_puts_it_in_the_history() {
    let app = app().await;
    let (seller, _) = user(&app).await;
    let first = id_of(&create_car(&app, &seller, json!({})).await);
    let second = id_of(&create_car(&app, &seller, json!({"model": "Camry"})).await);
    let (reader, _) = user(&app).await;
    let history = |token: String| {
        let app = &app;
        async move {
            let v = json_body(get(app, "/customers/history/viewed-cars", Some(&token)).await).await;
            v["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(id_of)
                .collect::<Vec<_>>()
        }
    };
    assert!(history(reader.clone()).await.is_empty());
    assert_ok(get(&app, &format!("/cars/{first}"), None).await, 200).await;
    assert!(
        history(reader.clone()).await.is_empty(),
        "anonymous reads are no one's"
    );
    let read = assert_ok(
        get(&app, &format!("/cars/{first}"), Some(&reader)).await,
        200,
    )
    .await;
    assert_eq!(read["viewCount"], 1, "{read}");
    app.advance(chrono::Duration::seconds(5));
    assert_ok(
        get(&app, &format!("/cars/{second}"), Some(&reader)).await,
        200,
    )
    .await;
    assert_eq!(
        history(reader.clone()).await,
        [second.clone(), first.clone()]
    );
    // Read again the same day: first again, counted once.
    app.advance(chrono::Duration::seconds(5));
    let again = assert_ok(
        get(&app, &format!("/cars/{first}"), Some(&reader)).await,
        200,
    )
    .await;
    assert_eq!(again["viewCount"], 1);
    assert_eq!(history(reader.clone()).await, [first.clone(), second]);
    // The seller's own reads are no views.
    let own = assert_ok(
        get(&app, &format!("/cars/{first}"), Some(&seller)).await,
        200,
    )
    .await;
    assert_eq!(own["viewCount"], 1);
}

#[actix_web::test]
async fn a_vin_names_the_model_where_the_maker_publishes_its_coding() {
    let app = app().await;
    let admin = admin_token(&app).await;
    for (vin, model) in [
        ("5YJ3E1EB8PF000001", json!("Model 3")),
        ("7SAYGDEF9RA000001", json!("Model Y")),
        ("1HGCM82633A004352", Value::Null),
    ] {
        let v = assert_ok(
            get(&app, &format!("/vin/lookup/{vin}"), Some(&admin)).await,
            200,
        )
        .await;
        assert_eq!(v["model"], model, "{vin}: {v}");
    }
}

#[actix_web::test]
async fn one_field_of_an_unnamed_limit_from_the_environment_starts_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let url = crate::helpers::fresh_database_url(dir.path()).await;
    let server = crate::helpers::ServedBinary::start(
        "marketplace",
        dir.path(),
        &[
            ("SWITCHBOARD__DATABASE__URL", url),
            (
                "SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__GENERAL__LIMIT",
                "5".into(),
            ),
            (
                "SWITCHBOARD__SERVICES__INTERVIEW__RATE_LIMITS__ANSWER__WINDOW_SECS",
                "30".into(),
            ),
        ],
    )
    .await;
    let client = crate::helpers::http_client();
    let res = client
        .get(format!("{}/cars", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // The limit set, the window kept (900 s): the reset is minutes away, not seconds.
    assert_eq!(res.headers()["x-ratelimit-limit"], "5");
    let reset: i64 = res.headers()["x-ratelimit-reset"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(reset - chrono::Utc::now().timestamp() > 60, "{reset}");
    drop(res);
}
