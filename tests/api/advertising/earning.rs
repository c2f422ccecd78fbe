//! The poster's whole path: subscribe, a real ffmpeg video with the subscription's proof
//! code behind a signed link (ranges included), a phone screenshot of it found and read and
//! approved, duplicates and doubtful ones, and the money that follows.

use super::*;
use crate::providers::media::{test_clip, text_picture, PhoneShot};
use reqwest::header;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// An ad made from a 2 s generated clip copied into the app's storage.
pub fn clip_ad(app: &TestApp, dir: &Path, payout: &str, budget: &str) -> String {
    let clip = dir.join("ad.mp4");
    if !clip.exists() {
        test_clip(&clip, "640x360", 2, true);
    }
    create_ad(
        app,
        &[
            "--title",
            "Clip",
            "--country",
            "GB",
            "--video",
            clip.to_str().unwrap(),
            "--payout-usd",
            payout,
            "--budget-usd",
            budget,
        ],
    )
    .expect("ad created")
}

/// Runs due jobs until `done` holds for the value `read` answers (at most a minute).
pub async fn until<F, Fut>(app: &TestApp, mut read: F, done: impl Fn(&Value) -> bool) -> Value
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    for _ in 0..600 {
        let _ = app.jobs.run_due().await;
        let v = read().await;
        if done(&v) {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never happened: {}", read().await);
}

pub async fn subscribe(app: &TestApp, token: &str, ad: &str) -> String {
    let d = data(
        post(
            app,
            "/subscriptions",
            Some(token),
            json!({"adId": ad, "phoneInfo": {"model": "Pixel 8", "os": "android 15"}}),
        )
        .await,
    )
    .await;
    assert_eq!(d["subscription"]["status"], "processing");
    assert_eq!(d["videoUrl"], Value::Null);
    d["subscription"]["id"].as_str().unwrap().to_owned()
}

/// Waits for the subscription's video; answers the video link body.
pub async fn ready(app: &TestApp, token: &str, sub: &str) -> Value {
    let path = format!("/subscriptions/{sub}/video");
    until(
        app,
        || async { data(get(app, &path, Some(token)).await).await },
        |v| v["status"] != "processing",
    )
    .await
}

pub async fn upload(
    app: &TestApp,
    token: &str,
    sub: &str,
    bytes: Vec<u8>,
    part: &str,
    mime: &str,
) -> reqwest::Response {
    let form = reqwest::multipart::Form::new()
        .text("subscriptionId", sub.to_owned())
        .part(
            part.to_owned(),
            reqwest::multipart::Part::bytes(bytes)
                .file_name("shot")
                .mime_str(mime)
                .unwrap(),
        );
    req(app, Method::POST, "/screenshots", Some(token))
        .multipart(form)
        .send()
        .await
        .unwrap()
}

pub async fn decided(app: &TestApp, token: &str, shot: &str) -> Value {
    let path = format!("/screenshots/{shot}/status");
    until(
        app,
        || async { data(get(app, &path, Some(token)).await).await },
        |v| v["status"] != "pending",
    )
    .await
}

/// The subscription's personalised video, fetched through its signed link into `dir`.
pub async fn video_file(app: &TestApp, token: &str, sub: &str, dir: &Path) -> std::path::PathBuf {
    let file = dir.join(format!("{sub}.mp4"));
    if !file.exists() {
        let link = ready(app, token, sub).await;
        let url = link["videoUrl"].as_str().expect("a ready video");
        let body = app
            .client
            .get(url)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        std::fs::write(&file, &body).unwrap();
    }
    file
}

/// A genuine proof: a phone screenshot of the poster's own video `at` seconds in.
pub async fn genuine(
    app: &TestApp,
    token: &str,
    sub: &str,
    dir: &Path,
    at: &'static str,
) -> Vec<u8> {
    let video = video_file(app, token, sub, dir).await;
    PhoneShot::of(&video, at).write(&dir.join(format!("{sub}-{at}.jpg")))
}

/// A phone screenshot of the ad's own clip (as `clip_ad` left it in `dir`): the video, but
/// no code on it.
pub fn source_shot(dir: &Path) -> Vec<u8> {
    PhoneShot::of(&dir.join("ad.mp4"), "1.0").write(&dir.join("source.jpg"))
}

fn picture(dir: &Path, name: &str, lines: &[&str]) -> Vec<u8> {
    let path = dir.join(name);
    text_picture(&path, lines);
    std::fs::read(path).unwrap()
}

#[actix_web::test]
async fn a_poster_gets_their_video_and_earns_from_an_approved_screenshot() {
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    let number = phone();
    let (token, user) = sign_in(&app, &number).await;
    let code = user["referralCode"].as_str().unwrap().to_owned();
    let ad = clip_ad(&app, dir.path(), "1.50", "10");
    let sub = subscribe(&app, &token, &ad).await;
    let listed = data(get(&app, "/subscriptions?status=processing", Some(&token)).await).await;
    assert_eq!(listed["total"], 1);

    // The video: H.264 MP4 behind a signed link that needs no token, in ranges too.
    let link = ready(&app, &token, &sub).await;
    assert_eq!(link["status"], "ready", "{link}");
    let url = link["videoUrl"].as_str().unwrap().to_owned();
    let whole = app.client.get(&url).send().await.unwrap();
    assert_eq!(whole.status(), 200);
    assert_eq!(whole.headers()[header::CONTENT_TYPE], "video/mp4");
    assert_eq!(whole.headers()[header::ACCEPT_RANGES], "bytes");
    let body = whole.bytes().await.unwrap();
    let total = body.len();
    let part = app
        .client
        .get(&url)
        .header(header::RANGE, "bytes=0-99")
        .send()
        .await
        .unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(
        part.headers()[header::CONTENT_RANGE],
        format!("bytes 0-99/{total}").as_str()
    );
    assert_eq!(part.bytes().await.unwrap(), body.slice(0..100));
    let tail = app
        .client
        .get(&url)
        .header(header::RANGE, "bytes=-10")
        .send()
        .await
        .unwrap();
    assert_eq!(tail.status(), 206);
    assert_eq!(tail.bytes().await.unwrap(), body.slice(total - 10..));
    let past = app
        .client
        .get(&url)
        .header(header::RANGE, format!("bytes={}-", total + 5))
        .send()
        .await
        .unwrap();
    assert_eq!(past.status(), 416);
    assert_eq!(
        past.headers()[header::CONTENT_RANGE],
        format!("bytes */{total}").as_str()
    );
    let video = dir.path().join("got.mp4");
    std::fs::write(&video, &body).unwrap();
    let probe = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=codec_name",
            "-of",
            "csv=p=0",
        ])
        .arg(&video)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&probe.stdout).trim(), "h264");
    // The code burnt in is the subscription's own: the referral code and a tag.
    let mine = data(get(&app, &format!("/subscriptions/{sub}"), Some(&token)).await).await;
    let proof = mine["proofCode"].as_str().unwrap().to_owned();
    assert!(proof.starts_with(&format!("{code}-")), "{proof}");
    // A link that was tampered with, or has expired, opens nothing.
    // The poster was told (WhatsApp to their phone; no device token, so no push).
    let _ = app.jobs.run_due().await;
    let told = |needle: &str| {
        app.outbox_for(&number).iter().any(|m| {
            m["channel"] == "whatsapp" && m["text"].as_str().unwrap_or("").contains(needle)
        })
    };
    assert!(told("video is ready"), "{:?}", app.outbox_for(&number));
    assert!(told(&proof), "the poster is told their proof code");
    let forged = url.replace(&url[url.len() - 4..], "0000");
    assert_eq!(app.client.get(&forged).send().await.unwrap().status(), 404);

    // The screenshot: the video in a phone's app, its proof code read, approved, paid.
    let shot = data(
        upload(
            &app,
            &token,
            &sub,
            PhoneShot::of(&video, "1.0").write(&dir.path().join("shot.jpg")),
            "screenshot",
            "image/jpeg",
        )
        .await,
    )
    .await;
    assert_eq!(shot["status"], "pending");
    assert_eq!(shot["payoutUsd"], "1.50");
    let id = shot["id"].as_str().unwrap().to_owned();
    let outcome = decided(&app, &token, &id).await;
    assert_eq!(outcome["status"], "approved", "{outcome}");
    assert_eq!(outcome["reasonCode"], "shown", "{outcome}");
    let _ = app.jobs.run_due().await;
    assert!(told("You earned $1.50"), "{:?}", app.outbox_for(&number));
    let b = data(get(&app, "/users/balance", Some(&token)).await).await;
    assert_eq!(
        (
            b["availableCents"].as_i64(),
            b["lifetimeUsd"].as_str(),
            b["underReviewCents"].as_i64()
        ),
        (Some(150), Some("1.50"), Some(0))
    );
    let txs = data(get(&app, "/transactions?type=earning", Some(&token)).await).await;
    assert_eq!(txs["total"], 1);
    let tx = &txs["items"][0];
    assert_eq!(tx["amountUsd"], "1.50");
    assert_eq!(tx["status"], "completed");
    let code_path = format!("/transactions/{}", tx["code"].as_str().unwrap());
    assert_eq!(
        data(get(&app, &code_path, Some(&token)).await).await["screenshotId"],
        id.as_str()
    );
    let stats = data(get(&app, &format!("/ads/{ad}/stats"), Some(&token)).await).await;
    assert_eq!(stats["screenshots"]["approved"], 1);
    assert_eq!(stats["spentUsd"], "1.50");
    assert_eq!(stats["freeBudgetUsd"], "8.50");
    // One approved screenshot per subscription.
    let again = upload(
        &app,
        &token,
        &sub,
        picture(dir.path(), "again.png", &["Again", &code]),
        "image",
        "image/png",
    )
    .await;
    refused(again, 409, "screenshot_already_approved").await;

    // Withdrawing holds the money at once.
    let w = data(
        post(
            &app,
            "/transactions/withdraw",
            Some(&token),
            json!({"amount": 1, "paymentMethodId": "pm_card_1"}),
        )
        .await,
    )
    .await;
    assert_eq!(w["status"], "pending");
    assert_eq!(w["transaction"]["type"], "withdrawal");
    let b = data(get(&app, "/users/balance", Some(&token)).await).await;
    assert_eq!(
        (b["availableCents"].as_i64(), b["pendingCents"].as_i64()),
        (Some(50), Some(100))
    );

    app.advance(chrono::Duration::hours(7));
    assert_eq!(app.client.get(&url).send().await.unwrap().status(), 410);
}

#[actix_web::test]
async fn duplicates_are_rejected_and_doubtful_screenshots_wait_for_a_person() {
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    let ad = clip_ad(&app, dir.path(), "2", "20");
    let (first, _) = sign_in(&app, &phone()).await;
    let sub1 = subscribe(&app, &first, &ad).await;
    let (second, _) = sign_in(&app, &phone()).await;
    let sub2 = subscribe(&app, &second, &ad).await;
    let (third, _) = sign_in(&app, &phone()).await;
    let sub3 = subscribe(&app, &third, &ad).await;

    let pic = genuine(&app, &first, &sub1, dir.path(), "1.0").await;
    let s1 = data(upload(&app, &first, &sub1, pic.clone(), "file", "image/jpeg").await).await;
    let s1_id = s1["id"].as_str().unwrap().to_owned();
    assert_eq!(decided(&app, &first, &s1_id).await["status"], "approved");
    // The same picture from someone else: a duplicate naming the first, and the reservation
    // goes back.
    let s2 = data(upload(&app, &second, &sub2, pic, "screenshot", "image/jpeg").await).await;
    let out = decided(&app, &second, s2["id"].as_str().unwrap()).await;
    assert_eq!(
        (out["status"].as_str(), out["reasonCode"].as_str()),
        (Some("rejected"), Some("duplicate")),
        "{out}"
    );
    assert!(out["reason"].as_str().unwrap().contains(&s1_id), "{out}");
    let stats = data(get(&app, &format!("/ads/{ad}/stats"), Some(&second)).await).await;
    assert_eq!(
        (
            stats["reservedCents"].as_i64(),
            stats["spentCents"].as_i64()
        ),
        (Some(0), Some(200))
    );
    // Another poster's own screenshot of the same moment of the same ad looks alike by
    // design: their code decides, and it is theirs.
    let own = genuine(&app, &third, &sub3, dir.path(), "1.0").await;
    let s3 = data(upload(&app, &third, &sub3, own, "screenshot", "image/jpeg").await).await;
    let out = decided(&app, &third, s3["id"].as_str().unwrap()).await;
    assert_eq!(out["status"], "approved", "{out}");

    // The ad's video without the poster's code: a person will look; the payout stays
    // reserved meanwhile.
    let doubtful = source_shot(dir.path());
    let s4 = data(upload(&app, &second, &sub2, doubtful, "screenshot", "image/jpeg").await).await;
    let out = decided(&app, &second, s4["id"].as_str().unwrap()).await;
    assert_eq!(
        (out["status"].as_str(), out["reasonCode"].as_str()),
        (Some("needs_review"), Some("video_without_code")),
        "{out}"
    );
    let b = data(get(&app, "/transactions/pending-amount", Some(&second)).await).await;
    assert_eq!(b["underReviewUsd"], "2.00");
    let again = upload(
        &app,
        &second,
        &sub2,
        picture(dir.path(), "c.png", &["More"]),
        "screenshot",
        "image/png",
    )
    .await;
    refused(again, 409, "screenshot_pending").await;
    let mine = data(get(&app, "/screenshots?status=needs_review", Some(&second)).await).await;
    assert_eq!(mine["total"], 1);
    refused(
        get(
            &app,
            &format!("/screenshots/{}", s4["id"].as_str().unwrap()),
            Some(&first),
        )
        .await,
        404,
        "screenshot_not_found",
    )
    .await;
}

#[actix_web::test]
async fn subscribing_and_uploading_refuse_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let app = app_with(|s| s.services.advertising.max_screenshot_bytes = 200_000).await;
    let token = poster(&app).await;
    let ad = clip_ad(&app, dir.path(), "1", "1");
    // A video that cannot be fetched stays `processing` through its retries' backoff (a
    // short clip may already be ready by the next request, so it cannot show this).
    let unreachable = super::ad(&app, "Unreachable video", "GB", "1", "10");
    // A poster in the US cannot take up an ad bought for GB.
    let us = "+12015550123";
    let ask = json!({"phoneNumber": us, "countryId": "US"});
    data(post(&app, "/auth/request-otp", None, ask).await).await;
    let check = json!({"phoneNumber": us, "code": app.last_code(us)});
    let us_poster = data(post(&app, "/auth/verify-otp", None, check).await).await;
    let us_token = us_poster["token"].as_str().unwrap();
    refused(
        post(
            &app,
            "/subscriptions",
            Some(us_token),
            json!({"adId": ad, "phoneInfo": {}}),
        )
        .await,
        403,
        "ad_not_available_in_country",
    )
    .await;
    for (body, field) in [
        (json!({"phoneInfo": {}}), "adId"),
        (json!({"adId": ad}), "phoneInfo"),
        (json!({"adId": ad, "phoneInfo": [1]}), "phoneInfo"),
        (
            json!({"adId": ad, "phoneInfo": {"junk": "x".repeat(2100)}}),
            "phoneInfo",
        ),
    ] {
        let err = refused(
            post(&app, "/subscriptions", Some(&token), body).await,
            400,
            "validation_error",
        )
        .await;
        assert_eq!(err["details"]["field"], field, "{err}");
    }
    refused(
        post(
            &app,
            "/subscriptions",
            Some(&token),
            json!({"adId": uuid::Uuid::new_v4(), "phoneInfo": {}}),
        )
        .await,
        404,
        "ad_not_found",
    )
    .await;
    refused(
        post(
            &app,
            "/subscriptions",
            None,
            json!({"adId": ad, "phoneInfo": {}}),
        )
        .await,
        401,
        "unauthorized",
    )
    .await;
    let sub = subscribe(&app, &token, &ad).await;
    refused(
        post(
            &app,
            "/subscriptions",
            Some(&token),
            json!({"adId": ad, "phoneInfo": {}}),
        )
        .await,
        409,
        "already_subscribed",
    )
    .await;
    // The whole budget is one payout: reserved by another poster, nobody else may subscribe.
    let png = picture(dir.path(), "p.png", &["hello"]);
    let waiting = subscribe(&app, &token, &unreachable).await;
    refused(
        upload(
            &app,
            &token,
            &waiting,
            png.clone(),
            "screenshot",
            "image/png",
        )
        .await,
        400,
        "video_not_ready",
    )
    .await;
    ready(&app, &token, &sub).await;
    refused(
        upload(
            &app,
            &token,
            &sub,
            b"GIF89a not a picture".to_vec(),
            "screenshot",
            "image/gif",
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    refused(
        upload(
            &app,
            &token,
            &sub,
            vec![0x89; 200_001],
            "screenshot",
            "image/png",
        )
        .await,
        413,
        "payload_too_large",
    )
    .await;
    refused(
        upload(
            &app,
            &token,
            &uuid::Uuid::new_v4().to_string(),
            png.clone(),
            "screenshot",
            "image/png",
        )
        .await,
        404,
        "subscription_not_found",
    )
    .await;
    let other = poster(&app).await;
    refused(
        upload(&app, &other, &sub, png.clone(), "screenshot", "image/png").await,
        404,
        "subscription_not_found",
    )
    .await;
    refused(
        get(&app, &format!("/subscriptions/{sub}"), Some(&other)).await,
        404,
        "subscription_not_found",
    )
    .await;
    refused(
        get(&app, &format!("/subscriptions/{sub}/video"), Some(&other)).await,
        404,
        "subscription_not_found",
    )
    .await;
    refused(
        get(&app, "/subscriptions?status=done", Some(&token)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/screenshots?limit=500", Some(&token)).await,
        400,
        "validation_error",
    )
    .await;
    let tiny = dir.path().join("tiny.png");
    crate::providers::media::ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=white:size=50x50",
        "-frames:v",
        "1",
        tiny.to_str().unwrap(),
    ]);
    refused(
        upload(
            &app,
            &token,
            &sub,
            std::fs::read(&tiny).unwrap(),
            "screenshot",
            "image/png",
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    let form = reqwest::multipart::Form::new().text("subscriptionId", sub.clone());
    refused(
        req(&app, Method::POST, "/screenshots", Some(&token))
            .multipart(form)
            .send()
            .await
            .unwrap(),
        400,
        "validation_error",
    )
    .await;
    // The one payout of the budget is reserved: the ad is no longer open.
    let s = data(upload(&app, &token, &sub, png, "screenshot", "image/png").await).await;
    assert_eq!(s["status"], "pending");
    refused(
        post(
            &app,
            "/subscriptions",
            Some(&other),
            json!({"adId": ad, "phoneInfo": {}}),
        )
        .await,
        409,
        "ad_not_available",
    )
    .await;
    let ads = data(get(&app, "/ads", Some(&other)).await).await;
    let ids: Vec<&Value> = ads["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["id"])
        .collect();
    assert!(!ids.contains(&&json!(ad)), "{ads}");
}

#[actix_web::test]
async fn money_stays_exact_under_racing_approvals_and_withdrawals() {
    use switchboard::core::jobs::NewJob;
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    let token = poster(&app).await;
    let ad = clip_ad(&app, dir.path(), "3", "30");
    let sub = subscribe(&app, &token, &ad).await;
    let proof = genuine(&app, &token, &sub, dir.path(), "1.0").await;
    let shot = data(upload(&app, &token, &sub, proof, "screenshot", "image/jpeg").await).await;
    let id = shot["id"].as_str().unwrap().to_owned();
    // Three deciders race the verifier for one pending screenshot.
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    for n in 0..3 {
        let job = NewJob::new(
            "screenshot-processed",
            json!({"screenshot_id": id, "outcome": "approved", "reason": null}),
        )
        .key(format!("race-{n}-{id}"));
        app.jobs.enqueue(&db, job).await.unwrap();
    }
    let _ = futures_util::future::join_all((0..4).map(|_| app.jobs.run_due())).await;
    assert_eq!(decided(&app, &token, &id).await["status"], "approved");
    let _ = app.jobs.run_due().await;
    let b = data(get(&app, "/users/balance", Some(&token)).await).await;
    assert_eq!(
        (b["availableCents"].as_i64(), b["lifetimeCents"].as_i64()),
        (Some(300), Some(300)),
        "{b}"
    );
    let stats = data(get(&app, &format!("/ads/{ad}/stats"), Some(&token)).await).await;
    assert_eq!(
        (
            stats["spentCents"].as_i64(),
            stats["reservedCents"].as_i64()
        ),
        (Some(300), Some(0))
    );
    let txs = data(get(&app, "/transactions", Some(&token)).await).await;
    assert_eq!(txs["total"], 1, "one earning: {txs}");

    // Eight withdrawals of 1.00 at once from 3.00: exactly three are held.
    let tries = futures_util::future::join_all((0..8).map(|n| {
        post(
            &app,
            "/transactions/withdraw",
            Some(&token),
            json!({"amount": "1.00", "paymentMethodId": format!("pm_{n}")}),
        )
    }))
    .await;
    let mut codes: Vec<u16> = tries.iter().map(|r| r.status().as_u16()).collect();
    codes.sort_unstable();
    assert_eq!(codes, [200, 200, 200, 400, 400, 400, 400, 400]);
    let b = data(get(&app, "/users/balance", Some(&token)).await).await;
    assert_eq!(
        (b["availableCents"].as_i64(), b["pendingCents"].as_i64()),
        (Some(0), Some(300)),
        "{b}"
    );
    let stats = data(get(&app, "/users/stats", Some(&token)).await).await;
    assert_eq!(stats["subscriptions"]["ready"], 1);
    assert_eq!(stats["screenshots"]["approved"], 1);
    assert_eq!(stats["approvalRate"], 1.0);
    assert_eq!(stats["lifetimeEarningsUsd"], "3.00");
}

#[actix_web::test]
async fn an_ad_video_url_inside_the_network_fails_the_subscription_with_a_reason() {
    let app = app().await;
    let token = poster(&app).await;
    let ad = create_ad(
        &app,
        &[
            "--title",
            "Inside",
            "--country",
            "GB",
            "--video",
            "https://127.0.0.1:9/ad.mp4",
            "--payout-usd",
            "1",
            "--budget-usd",
            "5",
        ],
    )
    .unwrap();
    let sub = subscribe(&app, &token, &ad).await;
    // Refused on every try (with the queue's backoff between them), then failed with a reason.
    let path = format!("/subscriptions/{sub}/video");
    let v = until(
        &app,
        || async {
            app.advance(chrono::Duration::minutes(2));
            data(get(&app, &path, Some(&token)).await).await
        },
        |v| v["status"] != "processing",
    )
    .await;
    assert_eq!(v["status"], "failed", "{v}");
    assert_eq!(v["videoUrl"], Value::Null);
    assert!(
        v["failureReason"]
            .as_str()
            .unwrap()
            .contains("could not be used"),
        "{v}"
    );
    let s = data(get(&app, &format!("/subscriptions/{sub}"), Some(&token)).await).await;
    assert_eq!(s["status"], "failed");
}

/// The totals of the poster's ad list and of its Technology ads (`/ads` answers them from
/// kept counts), each checked against the items the list actually pages through.
async fn totals(app: &TestApp, token: &str) -> (u64, u64) {
    let mut out = vec![];
    for query in ["", "&categoryId=technology"] {
        let (mut seen, mut page) = (0, 1);
        let total = loop {
            let path = format!("/ads?limit=1&page={page}{query}");
            let d = data(get(app, &path, Some(token)).await).await;
            let n = d["items"].as_array().unwrap().len() as u64;
            if n == 0 {
                break d["total"].as_u64().unwrap();
            }
            seen += n;
            page += 1;
        };
        assert_eq!(seen, total, "the total drifted from the list ({query})");
        out.push(total);
    }
    (out[0], out[1])
}

#[actix_web::test]
async fn list_totals_and_trending_follow_an_ad_running_out_of_budget_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    // Budget for two payouts; the other ad (Technology) is never touched.
    let ad = clip_ad(&app, dir.path(), "2", "4");
    let _other = super::ad(&app, "Other", "GB", "1", "10");
    let first = poster(&app).await;
    let second = poster(&app).await;
    assert_eq!(totals(&app, &first).await, (2, 1));
    let sub1 = subscribe(&app, &first, &ad).await;
    let sub2 = subscribe(&app, &second, &ad).await;
    ready(&app, &first, &sub1).await;
    ready(&app, &second, &sub2).await;

    // Approved: spent 2 of 4, still open to a second payout.
    let pic = genuine(&app, &first, &sub1, dir.path(), "1.0").await;
    let s1 = data(upload(&app, &first, &sub1, pic.clone(), "screenshot", "image/jpeg").await).await;
    assert_eq!(
        decided(&app, &first, s1["id"].as_str().unwrap()).await["status"],
        "approved"
    );
    assert_eq!(totals(&app, &first).await, (2, 1));
    // A duplicate reserves the last payout, then is rejected: listed again.
    let s2 = data(upload(&app, &second, &sub2, pic, "screenshot", "image/jpeg").await).await;
    assert_eq!(
        decided(&app, &second, s2["id"].as_str().unwrap()).await["status"],
        "rejected"
    );
    assert_eq!(totals(&app, &first).await, (2, 1));

    // Two subscriptions (1 each) and one approved screenshot (3) in the last 24 hours,
    // weighed 2^-(0 + 1/2)/2; two days later each weighs half as much.
    let trending = data(get(&app, "/ads/trending", Some(&first)).await).await;
    assert_eq!(trending.as_array().unwrap().len(), 1, "{trending}");
    assert_eq!(trending[0]["id"], ad.as_str());
    assert_eq!(trending[0]["score"].as_f64(), Some(4.204));
    app.advance(chrono::Duration::days(2));
    let later = data(get(&app, "/ads/trending", Some(&first)).await).await;
    assert_eq!(later[0]["score"].as_f64(), Some(2.102));

    // A screenshot waiting for a person holds the last payout: the ad leaves the list, its
    // total and trending.
    let doubtful = source_shot(dir.path());
    let s3 = data(upload(&app, &second, &sub2, doubtful, "screenshot", "image/jpeg").await).await;
    assert_eq!(
        decided(&app, &second, s3["id"].as_str().unwrap()).await["status"],
        "needs_review"
    );
    assert_eq!(totals(&app, &first).await, (1, 1));
    let gone = data(get(&app, "/ads/trending", Some(&first)).await).await;
    assert_eq!(gone, json!([]));
}
