//! The customer's side: favorites (idempotent add and remove), inquiries to the dealer who
//! lists a car, and the inquiry, liked-car and viewed-car histories.

use super::*;
use chrono::Duration;
use reqwest::Method;

fn ids(list: &Value) -> Vec<String> {
    list["data"].as_array().unwrap().iter().map(id_of).collect()
}

async fn inquire(app: &TestApp, token: &str, body: Value) -> Response {
    send(app, Method::POST, "/customers/inquiries", token, Some(body)).await
}

async fn view(app: &TestApp, token: &str, car: &str) -> Response {
    send(
        app,
        Method::POST,
        &format!("/cars/{car}/views"),
        token,
        None,
    )
    .await
}

#[actix_web::test]
async fn favorites_are_added_and_removed_idempotently_newest_first() {
    let app = app().await;
    let (seller, _) = user(&app).await;
    let older = id_of(&create_car(&app, &seller, json!({})).await);
    let newer = id_of(&create_car(&app, &seller, json!({"make": "Honda"})).await);
    let (a, _) = user(&app).await;
    let (b, _) = user(&app).await;
    let path = |id: &str| format!("/customers/favorites/{id}");

    let res = send(&app, Method::POST, &path(&newer), &a, None).await;
    assert_eq!(
        assert_ok(res, 201).await,
        json!({"favorited": true, "favoriteCount": 1})
    );
    let res = send(&app, Method::POST, &path(&newer), &a, None).await;
    assert_eq!(assert_ok(res, 200).await["favoriteCount"], 1, "added once");
    app.advance(Duration::seconds(5));
    assert_ok(send(&app, Method::POST, &path(&older), &a, None).await, 201).await;
    let res = send(&app, Method::POST, &path(&older), &b, None).await;
    assert_eq!(assert_ok(res, 201).await["favoriteCount"], 2);

    let list = json_body(get(&app, "/customers/favorites", Some(&a)).await).await;
    assert_eq!(
        ids(&list),
        vec![older.clone(), newer.clone()],
        "latest favorite first"
    );
    assert_eq!(list["pagination"]["totalItems"], 2);
    let list = json_body(get(&app, "/customers/favorites?page=2&limit=1", Some(&a)).await).await;
    assert_eq!(ids(&list), vec![newer.clone()]);

    let res = send(&app, Method::DELETE, &path(&older), &a, None).await;
    assert_eq!(
        assert_ok(res, 200).await,
        json!({"favorited": false, "favoriteCount": 1})
    );
    let res = send(&app, Method::DELETE, &path(&older), &a, None).await;
    assert_eq!(
        assert_ok(res, 200).await["favoriteCount"],
        1,
        "removed once"
    );
    let list = json_body(get(&app, "/customers/favorites", Some(&a)).await).await;
    assert_eq!(ids(&list), vec![newer.clone()]);
    let car = assert_ok(get(&app, &format!("/cars/{older}"), None).await, 200).await;
    assert_eq!(car["favoriteCount"], 1);

    for m in [Method::POST, Method::DELETE] {
        let res = send(
            &app,
            m.clone(),
            &path("00000000-0000-0000-0000-000000000000"),
            &a,
            None,
        )
        .await;
        assert_err(res, 404, "car_not_found").await;
        let res = req(&app, m, &path(&newer)).send().await.unwrap();
        assert_err(res, 401, "invalid_token").await;
    }
    assert_err(
        get(&app, "/customers/favorites", None).await,
        401,
        "invalid_token",
    )
    .await;
    let res = get(&app, "/customers/favorites?limit=101", Some(&a)).await;
    assert_err(res, 400, "validation_error").await;
}

#[actix_web::test]
async fn an_inquiry_goes_to_the_dealer_who_lists_the_car() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, dealer_id) = dealer(&app, &admin).await;
    let car = create_car(
        &app,
        &dealer_token,
        json!({"images": ["https://img.example.com/a.jpg"]}),
    )
    .await;
    let car_id = id_of(&car);
    let (private_seller, private_id) = user(&app).await;
    let private_car = id_of(&create_car(&app, &private_seller, json!({})).await);
    let (customer, customer_id) = user(&app).await;
    let body = |over: Value| {
        let mut b = json!({"carId": car_id, "dealerId": dealer_id,
            "message": "Is the price negotiable?", "contactMethod": "whatsapp"});
        for (k, v) in over.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };

    let cases = [
        (json!({"carId": null}), "carId"),
        (json!({"carId": "not-an-id"}), "carId"),
        (json!({"dealerId": null}), "dealerId"),
        (json!({"dealerId": customer_id}), "dealerId"),
        (
            json!({"carId": private_car, "dealerId": private_id}),
            "dealerId",
        ),
        (json!({"message": "too short"}), "message"),
        (json!({"message": "x".repeat(1001)}), "message"),
        (json!({"contactMethod": "fax"}), "contactMethod"),
        (json!({"contactMethod": null}), "contactMethod"),
    ];
    let cases = cases.map(|(over, field)| (body(over), field)).to_vec();
    assert_fields_refused(&app, "/customers/inquiries", &customer, cases).await;
    let unknown = body(json!({"carId": "00000000-0000-0000-0000-000000000000"}));
    assert_err(
        inquire(&app, &customer, unknown).await,
        404,
        "car_not_found",
    )
    .await;
    assert_err(
        inquire(&app, &dealer_token, body(json!({}))).await,
        403,
        "own_car",
    )
    .await;
    assert_err(
        post(&app, "/customers/inquiries", body(json!({}))).await,
        401,
        "invalid_token",
    )
    .await;

    let created = assert_ok(inquire(&app, &customer, body(json!({}))).await, 201).await;
    assert_eq!(created["carId"], car_id.as_str());
    assert_eq!(created["dealerId"], dealer_id.as_str());
    assert_eq!(created["customerId"], customer_id.as_str());
    assert_eq!(created["contactMethod"], "whatsapp");
    app.advance(Duration::seconds(5));
    let second = body(json!({"contactMethod": "email", "message": "Can I see it on Monday?"}));
    let second = assert_ok(inquire(&app, &customer, second).await, 201).await;

    let list = json_body(get(&app, "/customers/inquiries", Some(&customer)).await).await;
    assert_eq!(
        ids(&list),
        vec![id_of(&second), id_of(&created)],
        "newest first"
    );
    let summary = &list["data"][0]["car"];
    assert_eq!(summary["_id"], car_id.as_str());
    assert_eq!(summary["make"], "Toyota");
    assert_eq!(summary["image"], "https://img.example.com/a.jpg");
    let theirs = json_body(get(&app, "/customers/inquiries", Some(&private_seller)).await).await;
    assert_eq!(
        theirs["pagination"]["totalItems"], 0,
        "only the caller's own"
    );
    assert_err(
        get(&app, "/customers/inquiries", None).await,
        401,
        "invalid_token",
    )
    .await;

    let ids = json!({"carIds": [car_id]});
    let stats = send(
        &app,
        Method::POST,
        "/cars/stats/batch",
        &dealer_token,
        Some(ids),
    )
    .await;
    assert_eq!(assert_ok(stats, 200).await["stats"][0]["inquiries"], 2);

    let res = send(
        &app,
        Method::PUT,
        &format!("/cars/{car_id}"),
        &dealer_token,
        Some(json!({"status": "sold"})),
    )
    .await;
    assert_ok(res, 200).await;
    assert_err(
        inquire(&app, &customer, body(json!({}))).await,
        409,
        "car_not_available",
    )
    .await;
}

#[actix_web::test]
async fn liked_and_viewed_cars_are_listed_latest_first_each_once() {
    let app = app().await;
    let (seller, _) = user(&app).await;
    let first = id_of(&create_car(&app, &seller, json!({})).await);
    let second = id_of(&create_car(&app, &seller, json!({"make": "Honda"})).await);
    let (a, _) = user(&app).await;
    let (b, _) = user(&app).await;

    for id in [&first, &second] {
        assert_ok(
            send(&app, Method::POST, &format!("/cars/{id}/like"), &a, None).await,
            200,
        )
        .await;
        app.advance(Duration::seconds(5));
    }
    for path in ["/customers/liked-cars", "/cars/user/liked"] {
        let list = json_body(get(&app, path, Some(&a)).await).await;
        assert_eq!(ids(&list), vec![second.clone(), first.clone()], "{path}");
        let none = json_body(get(&app, path, Some(&b)).await).await;
        assert_eq!(none["pagination"]["totalItems"], 0, "{path}");
        assert_err(get(&app, path, None).await, 401, "invalid_token").await;
    }

    assert_ok(view(&app, &a, &first).await, 200).await;
    app.advance(Duration::seconds(5));
    assert_ok(view(&app, &a, &second).await, 200).await;
    next_utc_day(&app);
    assert_ok(view(&app, &a, &first).await, 200).await;
    let path = "/customers/history/viewed-cars";
    let list = json_body(get(&app, path, Some(&a)).await).await;
    assert_eq!(ids(&list), vec![first.clone(), second.clone()], "{list}");
    assert_eq!(list["pagination"]["totalItems"], 2);
    let list = json_body(get(&app, &format!("{path}?page=2&limit=1"), Some(&a)).await).await;
    assert_eq!(ids(&list), vec![second.clone()]);
    // A repeat view the same day moves the car up too.
    assert_ok(view(&app, &a, &second).await, 200).await;
    let list = json_body(get(&app, path, Some(&a)).await).await;
    assert_eq!(ids(&list), vec![second.clone(), first.clone()]);
    assert_err(get(&app, path, None).await, 401, "invalid_token").await;
}
