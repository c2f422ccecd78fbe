//! Dealer profiles: the public list and page of a dealer, the dealer's own profile, business
//! hours and business info.

use super::*;
use reqwest::Method;

fn week() -> Value {
    json!({"monday": "09:00-18:00", "tuesday": "09:00-18:00", "wednesday": "09:00-18:00",
           "thursday": "09:00-20:00", "friday": "09:00-18:00", "saturday": "10:00-14:00",
           "sunday": "Closed"})
}

#[actix_web::test]
async fn approval_creates_a_public_profile_seeded_from_the_application() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let v = json_body(get(&app, "/dealers", None).await).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 0, "{v}");
    let (_, dealer_id) = dealer(&app, &admin).await;

    let one = assert_ok(
        get(&app, &format!("/dealers/{}", dealer_id), None).await,
        200,
    )
    .await;
    assert_eq!(one["_id"], dealer_id.as_str());
    assert_eq!(one["name"], "Ada Autos");
    assert_eq!(one["location"], "Berlin");
    assert_eq!(one["website"], "https://ada-autos.example.com");
    assert_eq!(one["businessPhone"], "+4930123456");
    assert_eq!(one["type"], "dealer");
    assert_eq!(one["isApproved"], true);
    assert_eq!(one["rating"], 0.0);
    assert_eq!(one["totalSales"], 0);
    assert!(one["joinedDate"].is_string());

    let v = json_body(get(&app, "/dealers?type=dealer&isApproved=true", None).await).await;
    assert_eq!(v["success"], true);
    assert_eq!(v["data"][0]["_id"], dealer_id.as_str(), "{v}");
    assert_eq!(v["pagination"]["totalItems"], 1);
    assert_eq!(v["pagination"]["itemsPerPage"], 10);
    let v = json_body(get(&app, "/dealers?isApproved=false", None).await).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["pagination"]["totalItems"], 0);

    // A pending applicant is no dealer yet.
    let applicant = user(&app).await.0;
    let pending = assert_ok(get(&app, "/auth/me", Some(&applicant)).await, 200).await;
    assert_ok(dealers::apply(&app, &applicant).await, 201).await;
    let path = format!("/dealers/{}", pending["_id"].as_str().unwrap());
    assert_err(get(&app, &path, None).await, 404, "dealer_not_found").await;
    for bad in [
        "/dealers/not-an-id",
        "/dealers/00000000-0000-0000-0000-000000000000",
    ] {
        assert_err(get(&app, bad, None).await, 404, "dealer_not_found").await;
    }
    for (query, field) in [
        ("type=private", "type"),
        ("isApproved=maybe", "isApproved"),
        ("limit=101", ""),
    ] {
        let res = get(&app, &format!("/dealers?{query}"), None).await;
        let v = assert_err(res, 400, "validation_error").await;
        if !field.is_empty() {
            assert_eq!(v["details"]["field"], field, "{v}");
        }
    }
}

#[actix_web::test]
async fn a_dealer_edits_their_profile_and_only_a_dealer_may() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, dealer_id) = dealer(&app, &admin).await;
    let customer = user(&app).await.0;

    let me = assert_ok(
        get(&app, "/dealers/profile/me", Some(&dealer_token)).await,
        200,
    )
    .await;
    assert_eq!(me["_id"], dealer_id.as_str());
    for token in [&customer, &admin] {
        let res = get(&app, "/dealers/profile/me", Some(token)).await;
        assert_err(res, 403, "forbidden").await;
        let res = send(
            &app,
            Method::PUT,
            "/dealers/profile/me",
            token,
            Some(json!({"name": "X"})),
        )
        .await;
        assert_err(res, 403, "forbidden").await;
        let res = get(&app, "/dealers/profile/business-hours", Some(token)).await;
        assert_err(res, 403, "forbidden").await;
    }
    assert_err(
        get(&app, "/dealers/profile/me", None).await,
        401,
        "invalid_token",
    )
    .await;

    let body = json!({"name": "Ada Motors", "location": "Hamburg", "description": "EVs only"});
    let res = send(
        &app,
        Method::PUT,
        "/dealers/profile/me",
        &dealer_token,
        Some(body),
    )
    .await;
    let updated = assert_ok(res, 200).await;
    assert_eq!(updated["name"], "Ada Motors");
    assert_eq!(updated["location"], "Hamburg");
    assert_eq!(updated["description"], "EVs only");
    // An absent field is kept.
    let res = send(
        &app,
        Method::PUT,
        "/dealers/profile/me",
        &dealer_token,
        Some(json!({"location": "Bremen"})),
    )
    .await;
    let updated = assert_ok(res, 200).await;
    assert_eq!(
        (updated["name"].as_str(), updated["location"].as_str()),
        (Some("Ada Motors"), Some("Bremen"))
    );
    let public = assert_ok(
        get(&app, &format!("/dealers/{}", dealer_id), None).await,
        200,
    )
    .await;
    assert_eq!(public["name"], "Ada Motors");

    for (body, field) in [
        (json!({}), "name"),
        (json!({"name": "  "}), "name"),
        (json!({"location": "x".repeat(201)}), "location"),
        (json!({"description": "x".repeat(2001)}), "description"),
    ] {
        let res = send(
            &app,
            Method::PUT,
            "/dealers/profile/me",
            &dealer_token,
            Some(body),
        )
        .await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{v}");
    }

    let info = json!({"website": "https://motors.example.com", "description": "Since 1999",
                      "businessPhone": "+4940111222"});
    let res = send(
        &app,
        Method::PUT,
        "/dealers/profile/business-info",
        &dealer_token,
        Some(info),
    )
    .await;
    let updated = assert_ok(res, 200).await;
    assert_eq!(updated["website"], "https://motors.example.com");
    assert_eq!(updated["businessPhone"], "+4940111222");
    assert_eq!(updated["description"], "Since 1999");
    for (body, field) in [
        (json!({"businessPhone": "040 111"}), "businessPhone"),
        (json!({"website": "motors"}), "website"),
        (json!({}), "website"),
    ] {
        let res = send(
            &app,
            Method::PUT,
            "/dealers/profile/business-info",
            &dealer_token,
            Some(body),
        )
        .await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{v}");
    }
    let res = send(
        &app,
        Method::PUT,
        "/dealers/profile/business-info",
        &customer,
        Some(json!({"website": "https://x.example.com"})),
    )
    .await;
    assert_err(res, 403, "forbidden").await;
}

#[actix_web::test]
async fn business_hours_take_seven_days_of_ranges_or_closed() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, dealer_id) = dealer(&app, &admin).await;
    let path = "/dealers/profile/business-hours";

    let unset = assert_ok(get(&app, path, Some(&dealer_token)).await, 200).await;
    assert_eq!(unset["businessHours"], json!({}));
    let res = send(
        &app,
        Method::PUT,
        path,
        &dealer_token,
        Some(json!({"businessHours": week()})),
    )
    .await;
    let set = assert_ok(res, 200).await;
    assert_eq!(set["businessHours"], week());
    let read = assert_ok(get(&app, path, Some(&dealer_token)).await, 200).await;
    assert_eq!(read["businessHours"], week());
    let public = assert_ok(
        get(&app, &format!("/dealers/{}", dealer_id), None).await,
        200,
    )
    .await;
    assert_eq!(public["businessHours"]["thursday"], "09:00-20:00");
    assert_eq!(public["businessHours"]["sunday"], "Closed");

    let with = |day: &str, value: Value| {
        let mut w = week();
        w[day] = value;
        json!({"businessHours": w})
    };
    for (body, field) in [
        (with("friday", json!(9)), "businessHours.friday"),
        (with("sunday", json!(false)), "businessHours.sunday"),
        (with("sunday", json!({"open": "9"})), "businessHours.sunday"),
        (with("funday", json!("Closed")), "businessHours"),
        (json!({"businessHours": "always"}), "businessHours"),
        (json!({}), "businessHours"),
    ] {
        let res = send(&app, Method::PUT, path, &dealer_token, Some(body)).await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{v}");
    }
    // Nothing of the refused changes was stored.
    let read = assert_ok(get(&app, path, Some(&dealer_token)).await, 200).await;
    assert_eq!(read["businessHours"], week());
}

#[actix_web::test]
async fn a_dealer_page_lists_active_cars_and_the_dealer_sees_their_statistics() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let phone = crate::helpers::phone();
    let (token, id) = dealer_of(&app, &admin, &phone).await;
    let empty = assert_ok(get(&app, "/dealers/stats", Some(&token)).await, 200).await;
    assert_eq!(
        empty,
        json!({"totalCars": 0, "totalViews": 0, "totalInquiries": 0, "salesThisMonth": 0,
               "revenueThisMonth": 0.0})
    );
    let active = create_car(&app, &token, json!({"price": 1000})).await;
    create_car(&app, &token, json!({"price": 2000, "status": "reserved"})).await;
    let sold_earlier = create_car(&app, &token, json!({"price": 4000})).await;
    let path = format!("/cars/{}", sold_earlier["_id"].as_str().unwrap());
    let res = send(
        &app,
        Method::PUT,
        &path,
        &token,
        Some(json!({"status": "sold"})),
    )
    .await;
    assert_ok(res, 200).await;
    // Next month (access tokens last a day, so sign in again).
    app.clock.advance(chrono::Duration::days(40));
    let admin = admin_token(&app).await;
    let token = login(&app, &phone).await;
    create_car(&app, &token, json!({"price": 8000.5, "status": "sold"})).await;
    create_car(&app, &token, json!({"price": 16000, "status": "sold"})).await;
    sql(
        &app,
        "UPDATE marketplace_cars SET view_count = 7, inquiry_count = 2 WHERE price < 2500",
    )
    .await;
    // Another dealer's listings count for them only.
    let (other, _) = dealer(&app, &admin).await;
    create_car(&app, &other, json!({"price": 99, "status": "sold"})).await;

    let stats = assert_ok(get(&app, "/dealers/stats", Some(&token)).await, 200).await;
    assert_eq!(stats["totalCars"], 5);
    assert_eq!(stats["totalViews"], 14);
    assert_eq!(stats["totalInquiries"], 4);
    assert_eq!(stats["salesThisMonth"], 2, "{stats}");
    assert_eq!(stats["revenueThisMonth"], 24000.5);
    let (customer, _) = user(&app).await;
    assert_err(
        get(&app, "/dealers/stats", Some(&customer)).await,
        403,
        "forbidden",
    )
    .await;
    assert_err(
        get(&app, "/dealers/stats", None).await,
        401,
        "invalid_token",
    )
    .await;

    let me = assert_ok(get(&app, &format!("/dealers/{id}"), None).await, 200).await;
    assert_eq!(me["totalSales"], 3);

    let v = json_body(get(&app, &format!("/dealers/{id}/cars?limit=5"), None).await).await;
    assert_eq!(v["success"], true);
    assert_eq!(v["data"][0]["_id"], active["_id"], "{v}");
    assert_eq!(v["pagination"]["totalItems"], 1);
    let (_, customer_id) = user(&app).await;
    let res = get(&app, &format!("/dealers/{customer_id}/cars"), None).await;
    assert_err(res, 404, "dealer_not_found").await;
    assert_err(
        get(&app, "/dealers/x/cars", None).await,
        404,
        "dealer_not_found",
    )
    .await;
}

/// A dealer as the public sees it, by id and in the list (which must agree).
async fn public_dealer(app: &TestApp, id: &str) -> Value {
    let one = assert_ok(get(app, &format!("/dealers/{id}"), None).await, 200).await;
    let list = json_body(get(app, "/dealers", None).await).await;
    let listed = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["_id"] == one["_id"])
        .cloned()
        .expect("listed");
    assert_eq!(one["phone"], listed["phone"], "{one} {listed}");
    one
}

#[actix_web::test]
async fn the_public_sees_the_business_phone_never_the_login_phone_unless_chosen() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let login_phone = crate::helpers::phone();
    let (token, id) = dealer_of(&app, &admin, &login_phone).await;
    // The application gave a business phone: that is the dealer's public number.
    let one = public_dealer(&app, &id).await;
    assert_eq!(one["phone"], "+4930123456", "{one}");
    assert_eq!(one["publishLoginPhone"], false);
    assert!(!one.to_string().contains(&login_phone), "{one}");
    // The dealer sees their own login phone.
    let own = assert_ok(get(&app, "/dealers/profile/me", Some(&token)).await, 200).await;
    assert_eq!(own["phone"], login_phone.as_str());

    // A dealer without a business phone publishes no number...
    let p2 = crate::helpers::phone();
    let auth = signup(&app, &p2, "secret1").await;
    let t2 = auth["token"].as_str().unwrap().to_owned();
    let id2 = auth["user"]["_id"].as_str().unwrap().to_owned();
    let body = json!({"businessName": "Bo Cars", "location": "Oslo"});
    let res = send(
        &app,
        Method::POST,
        "/auth/dealer-application",
        &t2,
        Some(body),
    )
    .await;
    assert_ok(res, 201).await;
    let path = format!("/dealers/{id2}/approve");
    assert_ok(send(&app, Method::PUT, &path, &admin, None).await, 200).await;
    let t2 = login(&app, &p2).await;
    let one = public_dealer(&app, &id2).await;
    assert!(one["phone"].is_null(), "{one}");
    assert!(!one.to_string().contains(&p2), "{one}");
    // ...until they choose to publish their login phone.
    let info = "/dealers/profile/business-info";
    let res = send(
        &app,
        Method::PUT,
        info,
        &t2,
        Some(json!({"publishLoginPhone": true})),
    )
    .await;
    assert_eq!(assert_ok(res, 200).await["publishLoginPhone"], true);
    let one = public_dealer(&app, &id2).await;
    assert_eq!(one["phone"], p2.as_str(), "{one}");
    // A business phone set later wins over the login phone.
    let res = send(
        &app,
        Method::PUT,
        info,
        &t2,
        Some(json!({"businessPhone": "+4722334455"})),
    )
    .await;
    assert_ok(res, 200).await;
    let one = public_dealer(&app, &id2).await;
    assert_eq!(one["phone"], "+4722334455", "{one}");
    // The choice is a boolean.
    let res = send(
        &app,
        Method::PUT,
        info,
        &t2,
        Some(json!({"publishLoginPhone": "yes"})),
    )
    .await;
    let v = assert_err(res, 400, "validation_error").await;
    assert!(v.to_string().contains("publishLoginPhone"), "{v}");
}
