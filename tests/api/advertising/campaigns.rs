//! Campaigns: an advertiser's ads made from an uploaded or linked video, edited back to
//! review, listed with their money, their statistics (views once per poster per day), the
//! ad video job (a real ffmpeg transcode, and a file that is no video), and the balance.

use super::advertisers::advertiser;
use super::earning::until;
use super::*;
use crate::providers::media::test_clip;
use chrono::Duration;
use reqwest::multipart::{Form, Part};
use sea_orm::EntityTrait;
use serde_json::json;
use switchboard_entities::advertising::ad;

async fn db(app: &TestApp) -> sea_orm::DatabaseConnection {
    sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap()
}

/// Sets the ad's status and money as an administrator and payments would.
async fn set(app: &TestApp, id: &str, status: &str, money: [i64; 3]) {
    use sea_orm::{ActiveModelTrait, Set};
    let [funded, spent, reserved] = money;
    let mut a: ad::ActiveModel = row(app, id).await.into();
    a.status = Set(ad::AdStatus::parse(status).expect("an ad status"));
    a.funded_cents = Set(funded);
    a.spent_cents = Set(spent);
    a.reserved_cents = Set(reserved);
    a.listed = Set(status == "approved");
    a.update(&db(app).await).await.unwrap();
}

async fn row(app: &TestApp, id: &str) -> ad::Model {
    ad::Entity::find_by_id(uuid::Uuid::parse_str(id).unwrap())
        .one(&db(app).await)
        .await
        .unwrap()
        .unwrap()
}

fn body() -> Value {
    json!({
        "title": "Summer sale",
        "video": "https://videos.example.com/summer.mp4",
        "budgetUsd": 100,
        "countryCode": "GB",
        "demographics": {"ageMin": 18, "ageMax": 35, "genders": ["female", "other"]},
        "description": "Everything half price",
    })
}

async fn put(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> Response {
    call(app, Method::PUT, path, token, Some(body)).await
}

/// A campaign made from `body`: its view.
async fn campaign(app: &TestApp, token: &str, body: Value) -> Value {
    data(post(app, "/advertisers/campaigns", Some(token), body).await).await
}

/// A campaign whose video is the file `bytes` (named `name`), sent as a form.
pub async fn upload(app: &TestApp, token: &str, name: &str, bytes: Vec<u8>) -> Response {
    let form = Form::new()
        .text("title", "Uploaded")
        .text("budgetUsd", "25.50")
        .text("payoutUsd", "1.25")
        .text("countryCode", "gb")
        .text(
            "demographics",
            r#"{"ageMin": 21, "ageMax": 60, "genders": []}"#,
        )
        .part("video", Part::bytes(bytes).file_name(name.to_owned()));
    req(app, Method::POST, "/advertisers/campaigns", Some(token))
        .multipart(form)
        .send()
        .await
        .unwrap()
}

/// Runs due jobs until the campaign's video has left `processing`; answers its view.
async fn processed(app: &TestApp, token: &str, id: &str) -> Value {
    until(
        app,
        || listed(app, token, id),
        |c| c["videoStatus"] != "processing",
    )
    .await
}

/// The advertiser's campaign `id` as their list shows it.
pub async fn listed(app: &TestApp, token: &str, id: &str) -> Value {
    let list = data(get(app, "/advertisers/campaigns?limit=100", Some(token)).await).await;
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .cloned()
        .unwrap()
}

#[actix_web::test]
async fn an_uploaded_video_is_transcoded_to_h264_at_most_720p_with_a_thumbnail() {
    let app = app().await;
    let (token, _) = advertiser(&app).await;
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("big.mp4");
    test_clip(&clip, "1920x1080", 1, true);
    let res = upload(&app, &token, "big.mp4", std::fs::read(&clip).unwrap()).await;
    let c = data(res).await;
    assert_eq!(c["status"], "pending");
    assert_eq!(c["videoStatus"], "processing");
    assert_eq!(c["budgetUsd"], "25.50");
    assert_eq!(c["payoutUsd"], "1.25");
    assert_eq!(c["fundedCents"], 0);
    assert_eq!(c["listed"], false);
    assert_eq!(
        c["demographics"],
        json!({"ageMin": 21, "ageMax": 60, "genders": []})
    );
    let id = c["id"].as_str().unwrap();
    let done = processed(&app, &token, id).await;
    assert_eq!(done["videoStatus"], "ready", "{done}");
    assert_eq!(done["videoError"], Value::Null);
    assert_eq!(done["status"], "pending", "processing approves nothing");

    let a = row(&app, id).await;
    let media = std::path::Path::new(&app.settings.providers.storage.path);
    let video = media.join(a.video_key.as_deref().unwrap());
    let info = switchboard::providers::video::from_settings(&Default::default())
        .probe(&video)
        .await
        .unwrap();
    assert_eq!(info.video_codec.as_deref(), Some("h264"), "{info:?}");
    assert_eq!(info.audio_codec.as_deref(), Some("aac"), "{info:?}");
    assert!(info.width.min(info.height) <= 720, "{info:?}");
    assert_eq!((info.width, info.height), (1280, 720));
    let thumb = std::fs::read(media.join(a.thumbnail_key.as_deref().unwrap())).unwrap();
    assert_eq!(&thumb[..2], &[0xFF, 0xD8], "a JPEG");

    // A personalised video is made from the transcoded one.
    set(&app, id, "approved", [2550, 0, 0]).await;
    let poster = poster(&app).await;
    let sub = super::earning::subscribe(&app, &poster, id).await;
    let payload: Value = {
        use switchboard_entities::core::job;
        let jobs = job::Entity::find().all(&db(&app).await).await.unwrap();
        jobs.into_iter()
            .map(|j| j.payload)
            .find(|p| p["subscription_id"] == sub.as_str())
            .expect("the personalised job")
    };
    assert_eq!(payload["video_url"], a.video_key.unwrap());
}

#[actix_web::test]
async fn a_file_that_is_no_video_fails_with_a_reason_and_the_ad_stays_pending() {
    let app = app().await;
    let (token, _) = advertiser(&app).await;
    let res = upload(
        &app,
        &token,
        "notes.mp4",
        b"these are not frames".repeat(50),
    )
    .await;
    let id = data(res).await["id"].as_str().unwrap().to_owned();
    let done = processed(&app, &token, &id).await;
    assert_eq!(done["videoStatus"], "failed", "{done}");
    let why = done["videoError"].as_str().unwrap();
    assert!(why.contains("not a readable video"), "{why}");
    assert!(!why.contains("/tmp"), "no server paths: {why}");
    assert_eq!(done["status"], "pending");
    // A moderator cannot approve it until the advertiser replaces the video.
    let staff = super::admin_accounts::admin(&app).await;
    let path = format!("/admin/ads/{id}/approve");
    let res = call(&app, Method::PUT, &path, Some(&staff), None).await;
    let err = refused(res, 409, "video_failed").await;
    assert!(
        err["error"]
            .as_str()
            .unwrap()
            .contains("not a readable video"),
        "{err}"
    );
    let ad = data(get(&app, &format!("/admin/ads/{id}"), Some(&staff)).await).await;
    assert_eq!(ad["status"], "pending");
}

#[actix_web::test]
async fn a_campaign_is_not_approved_before_its_video_is_ready() {
    let app = app().await;
    let (token, _) = advertiser(&app).await;
    let c = campaign(&app, &token, body()).await;
    assert_eq!(c["videoStatus"], "processing");
    let id = c["id"].as_str().unwrap();
    // Held at `processing` as a long transcode would be (this URL's fetch fails at once:
    // that outcome lands first, so it cannot overwrite the hold).
    processed(&app, &token, id).await;
    {
        use sea_orm::{ActiveModelTrait, Set};
        let mut a: ad::ActiveModel = row(&app, id).await.into();
        a.video_status = Set(Some(ad::VideoStatus::Processing));
        a.update(&db(&app).await).await.unwrap();
    }
    let staff = super::admin_accounts::admin(&app).await;
    let path = format!("/admin/ads/{id}/approve");
    refused(
        call(&app, Method::PUT, &path, Some(&staff), None).await,
        409,
        "video_not_ready",
    )
    .await;
    let ad = data(get(&app, &format!("/admin/ads/{id}"), Some(&staff)).await).await;
    assert_eq!(
        (ad["status"].as_str(), ad["listed"].as_bool()),
        (Some("pending"), Some(false))
    );
}

#[actix_web::test]
async fn a_campaign_by_url_is_pending_and_queues_its_ad_video_job() {
    let app = app().await;
    let (token, a) = advertiser(&app).await;
    let c = campaign(&app, &token, body()).await;
    assert_eq!(c["status"], "pending");
    assert_eq!(c["title"], "Summer sale");
    assert_eq!(c["description"], "Everything half price");
    assert_eq!(c["budgetCents"], 10000);
    // The default payout: `[services.advertising] default_payout_usd`.
    assert_eq!(c["payoutUsd"], "0.50");
    assert_eq!(c["videoStatus"], "processing");
    assert_eq!(c["freeBudgetCents"], 0, "nothing is funded yet");
    let jobs = {
        use switchboard_entities::core::job;
        job::Entity::find().all(&db(&app).await).await.unwrap()
    };
    let job = jobs
        .iter()
        .find(|j| j.topic == "video-processing")
        .expect("a video job");
    assert_eq!(
        job.payload,
        json!({"ad_id": c["id"], "video_url": "https://videos.example.com/summer.mp4", "type": "ad", "subscription_id": null})
    );
    // POST /ads is the same.
    let same = data(post(&app, "/ads", Some(&token), body()).await).await;
    assert_eq!(same["status"], "pending");
    let row = row(&app, c["id"].as_str().unwrap()).await;
    assert_eq!(
        row.advertiser_id.unwrap().to_string(),
        a["id"].as_str().unwrap()
    );
    // Unpaid, it is not listed to posters.
    let poster = poster(&app).await;
    let listed = data(get(&app, "/ads", Some(&poster)).await).await;
    assert_eq!(listed["total"], 0, "{listed}");

    let list = data(get(&app, "/advertisers/campaigns?limit=1", Some(&token)).await).await;
    assert_eq!(list["total"], 2);
    assert_eq!(list["items"][0]["id"], same["id"], "newest first");
    refused(
        get(&app, "/advertisers/campaigns?limit=500", Some(&token)).await,
        400,
        "validation_error",
    )
    .await;
}

#[actix_web::test]
async fn campaign_input_is_refused_naming_the_field() {
    let app = app().await;
    let (token, _) = advertiser(&app).await;
    let with = |key: &str, value: Value| {
        let mut b = body();
        b[key] = value;
        b
    };
    let without = |key: &str| {
        let mut b = body();
        b.as_object_mut().unwrap().remove(key);
        b
    };
    for (b, field) in [
        (without("title"), "title"),
        (without("video"), "video"),
        (without("budgetUsd"), "budgetUsd"),
        (without("countryCode"), "countryCode"),
        (without("demographics"), "demographics"),
        (with("title", json!("")), "title"),
        (with("title", json!(7)), "title"),
        (
            with("video", json!("http://videos.example.com/a.mp4")),
            "video",
        ),
        (with("budgetUsd", json!(0)), "budgetUsd"),
        (with("budgetUsd", json!("1.001")), "budgetUsd"),
        (with("budgetUsd", json!(0.25)), "budgetUsd"),
        (with("payoutUsd", json!(-1)), "payoutUsd"),
        (with("countryCode", json!("XX")), "countryCode"),
        (
            with(
                "demographics",
                json!({"ageMin": 5, "ageMax": 30, "genders": []}),
            ),
            "demographics",
        ),
        (
            with(
                "demographics",
                json!({"ageMin": 40, "ageMax": 30, "genders": []}),
            ),
            "demographics",
        ),
        (
            with(
                "demographics",
                json!({"ageMin": 20, "ageMax": 30, "genders": ["robot"]}),
            ),
            "demographics",
        ),
        (with("demographics", json!("not json")), "demographics"),
        (with("categoryId", json!("no-such-category")), "categoryId"),
        (with("colour", json!("red")), "colour"),
    ] {
        let res = post(&app, "/advertisers/campaigns", Some(&token), b).await;
        let err = refused(res, 400, "validation_error").await;
        assert_eq!(err["details"]["field"], field, "{err}");
    }
    let text = req(&app, Method::POST, "/advertisers/campaigns", Some(&token))
        .header("content-type", "text/plain")
        .body("title=x")
        .send()
        .await
        .unwrap();
    refused(text, 415, "unsupported_media_type").await;
    let poster = poster(&app).await;
    refused(
        post(&app, "/advertisers/campaigns", Some(&poster), body()).await,
        403,
        "forbidden",
    )
    .await;
    refused(
        post(&app, "/ads", Some(&poster), body()).await,
        403,
        "forbidden",
    )
    .await;
    refused(
        get(&app, "/advertisers/campaigns", Some(&poster)).await,
        403,
        "forbidden",
    )
    .await;
    refused(
        post(&app, "/advertisers/campaigns", None, body()).await,
        401,
        "unauthorized",
    )
    .await;
}

#[actix_web::test]
async fn an_uploaded_video_over_the_limit_is_refused() {
    let app = app_with(|s| s.services.advertising.max_video_bytes = 4096).await;
    let (token, _) = advertiser(&app).await;
    refused(
        upload(&app, &token, "big.mp4", vec![0; 5000]).await,
        413,
        "payload_too_large",
    )
    .await;
}

#[actix_web::test]
async fn only_the_owner_edits_an_ad_and_an_edit_sends_it_back_to_pending() {
    let app = app().await;
    let (owner, _) = advertiser(&app).await;
    let (other, _) = advertiser(&app).await;
    let c = campaign(&app, &owner, body()).await;
    let id = c["id"].as_str().unwrap();
    let path = format!("/ads/{id}");
    set(&app, id, "approved", [5000, 0, 0]).await;
    refused(
        put(&app, &path, Some(&other), json!({"title": "Mine"})).await,
        404,
        "ad_not_found",
    )
    .await;
    refused(
        put(&app, "/ads/not-an-id", Some(&owner), json!({"title": "x"})).await,
        404,
        "ad_not_found",
    )
    .await;
    let poster = poster(&app).await;
    refused(
        put(&app, &path, Some(&poster), json!({"title": "x"})).await,
        403,
        "forbidden",
    )
    .await;
    // Literal routes still win over the id.
    data(get(&app, "/ads/trending", Some(&poster)).await).await;

    refused(
        put(&app, &path, Some(&owner), json!({"budgetUsd": 40})).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        put(&app, &path, Some(&owner), json!({"title": ""})).await,
        400,
        "validation_error",
    )
    .await;
    let edited = data(
        put(&app, &path, Some(&owner), json!({"title": "Winter sale", "demographics": {"ageMin": 30, "ageMax": 50, "genders": ["male"]}}))
            .await,
    )
    .await;
    assert_eq!(edited["title"], "Winter sale");
    assert_eq!(edited["status"], "pending");
    assert_eq!(edited["listed"], false);
    assert_eq!(edited["fundedCents"], 5000, "money stays");
    assert_eq!(
        edited["description"], "Everything half price",
        "absent keys stay"
    );
    assert_eq!(edited["demographics"]["genders"], json!(["male"]));
    assert_eq!(
        row(&app, id).await.video_source,
        "https://videos.example.com/summer.mp4",
        "the video is kept as it was"
    );
    let new_video = data(
        put(
            &app,
            &path,
            Some(&owner),
            json!({"video": "https://videos.example.com/winter.mp4"}),
        )
        .await,
    )
    .await;
    assert_eq!(new_video["videoStatus"], "processing");
    assert_eq!(
        row(&app, id).await.video_source,
        "https://videos.example.com/winter.mp4"
    );
}

#[actix_web::test]
async fn views_count_once_per_poster_per_day_and_stats_are_the_owners() {
    let app = app().await;
    let (owner, _) = advertiser(&app).await;
    let (other, _) = advertiser(&app).await;
    let c = campaign(&app, &owner, body()).await;
    let id = c["id"].as_str().unwrap();
    set(&app, id, "approved", [6000, 1000, 500]).await;
    let stats_path = format!("/advertisers/campaigns/{id}/stats");
    let stats = data(get(&app, &stats_path, Some(&owner)).await).await;
    assert_eq!(stats["views"], 0);
    let (p1, p2) = (poster(&app).await, poster(&app).await);
    let ad_path = format!("/ads/{id}");
    for p in [&p1, &p1, &p2, &p1] {
        data(get(&app, &ad_path, Some(p)).await).await;
    }
    let stats = data(get(&app, &stats_path, Some(&owner)).await).await;
    assert_eq!(stats["views"], 2, "{stats}");
    assert_eq!(stats["subscriptions"], 0);
    assert_eq!(
        stats["screenshots"],
        json!({"pending": 0, "needsReview": 0, "approved": 0, "rejected": 0})
    );
    assert_eq!(stats["spentCents"], 1000);
    assert_eq!(stats["spentUsd"], "10.00");
    assert_eq!(stats["reservedCents"], 500);
    assert_eq!(stats["freeBudgetCents"], 4500);
    assert_eq!(stats["freeBudgetUsd"], "45.00");
    app.advance(Duration::days(1));
    data(get(&app, &ad_path, Some(&p1)).await).await;
    assert_eq!(
        data(get(&app, &stats_path, Some(&owner)).await).await["views"],
        3
    );

    refused(
        get(&app, &stats_path, Some(&other)).await,
        404,
        "ad_not_found",
    )
    .await;
    refused(
        get(&app, "/advertisers/campaigns/nope/stats", Some(&owner)).await,
        404,
        "ad_not_found",
    )
    .await;
    refused(get(&app, &stats_path, Some(&p1)).await, 403, "forbidden").await;
}

#[actix_web::test]
async fn the_balance_sums_deposits_spending_reservations_and_deleted_ads_left_over() {
    let app = app().await;
    let (token, _) = advertiser(&app).await;
    let zero = data(get(&app, "/advertisers/balance", Some(&token)).await).await;
    assert_eq!(
        zero,
        json!({"depositsCents": 0, "depositsUsd": "0.00", "spentCents": 0, "spentUsd": "0.00",
               "reservedCents": 0, "reservedUsd": "0.00", "unspentDeletedCents": 0, "unspentDeletedUsd": "0.00",
               "refundedCents": 0, "refundedUsd": "0.00", "disputedCents": 0, "disputedUsd": "0.00",
               "owedCents": 0, "owedUsd": "0.00"})
    );
    let live = campaign(&app, &token, body()).await;
    let gone = campaign(&app, &token, body()).await;
    let (other, _) = advertiser(&app).await;
    let theirs = campaign(&app, &other, body()).await;
    let id = |c: &Value| c["id"].as_str().unwrap().to_owned();
    set(&app, &id(&live), "pending", [10000, 3000, 1000]).await;
    set(&app, &id(&gone), "deleted", [5000, 1000, 500]).await;
    set(&app, &id(&theirs), "approved", [7000, 0, 0]).await;
    let b = data(get(&app, "/advertisers/balance", Some(&token)).await).await;
    assert_eq!(
        b,
        json!({"depositsCents": 15000, "depositsUsd": "150.00", "spentCents": 4000, "spentUsd": "40.00",
               "reservedCents": 1500, "reservedUsd": "15.00", "unspentDeletedCents": 3500, "unspentDeletedUsd": "35.00",
               "refundedCents": 0, "refundedUsd": "0.00", "disputedCents": 0, "disputedUsd": "0.00",
               "owedCents": 0, "owedUsd": "0.00"})
    );
    // A deleted ad is the advertiser's to see, not to edit.
    refused(
        put(
            &app,
            &format!("/ads/{}", gone["id"].as_str().unwrap()),
            Some(&token),
            json!({"title": "x"}),
        )
        .await,
        404,
        "ad_not_found",
    )
    .await;
    let poster = poster(&app).await;
    refused(
        get(&app, "/advertisers/balance", Some(&poster)).await,
        403,
        "forbidden",
    )
    .await;
    refused(
        get(&app, "/advertisers/balance", None).await,
        401,
        "unauthorized",
    )
    .await;
}
