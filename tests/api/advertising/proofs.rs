//! A screenshot pays only for the post it shows (issue 31), through the public API: each
//! subscription has its own proof code; the white-page exploit and one ad's genuine proof
//! sent for another are not approved; staff see the evidence; posters who keep sending
//! pictures that do not show their video are refused for a while; older subscriptions keep
//! their referral code as their proof code.

use super::admin_accounts::admin;
use super::earning::{clip_ad, decided, genuine, ready, subscribe, upload};
use super::*;
use crate::providers::media::{ffmpeg, source_clip, test_clip, text_picture};
use std::path::Path;

fn white_page(dir: &Path, name: &str, code: &str) -> Vec<u8> {
    let file = dir.join(name);
    text_picture(&file, &["Posted!", code]);
    std::fs::read(file).unwrap()
}

/// A picture that shows neither the video nor any code.
fn unrelated(dir: &Path, name: &str, seed: u32) -> Vec<u8> {
    let file = dir.join(name);
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        &format!(
            "mandelbrot=size=540x960:start_scale={}",
            0.5 + f64::from(seed) * 0.7
        ),
        "-frames:v",
        "1",
        file.to_str().unwrap(),
    ]);
    std::fs::read(file).unwrap()
}

/// An ad made from a clip of its own (`source`, a lavfi test source) in `dir`.
fn ad_of(app: &TestApp, dir: &Path, source: &str) -> String {
    let clip = dir.join(format!("{source}.mp4"));
    source_clip(&clip, source, "640x360", 2);
    create_ad(
        app,
        &[
            "--title",
            source,
            "--country",
            "GB",
            "--video",
            clip.to_str().unwrap(),
            "--payout-usd",
            "2.50",
            "--budget-usd",
            "25",
        ],
    )
    .expect("ad created")
}

/// Uploads `picture` for `sub` and waits for the verifier; answers its id and decision.
async fn judged(app: &TestApp, token: &str, sub: &str, picture: Vec<u8>) -> (String, Value) {
    let mime = if picture.starts_with(b"\x89PNG") {
        "image/png"
    } else {
        "image/jpeg"
    };
    let shot = data(upload(app, token, sub, picture, "screenshot", mime).await).await;
    let id = shot["id"].as_str().unwrap().to_owned();
    let out = decided(app, token, &id).await;
    (id, out)
}

async fn staff_view(app: &TestApp, admin: &str, shot: &str) -> Value {
    data(get(app, &format!("/admin/screenshots/{shot}"), Some(admin)).await).await
}

#[actix_web::test]
async fn each_subscription_has_its_own_proof_code_shown_to_the_poster() {
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    let (token, user) = sign_in(&app, &phone()).await;
    let referral = user["referralCode"].as_str().unwrap().to_owned();
    let a = clip_ad(&app, dir.path(), "1", "10");
    let b = ad_of(&app, dir.path(), "mandelbrot");
    let made = data(
        post(
            &app,
            "/subscriptions",
            Some(&token),
            json!({"adId": a, "phoneInfo": {}}),
        )
        .await,
    )
    .await;
    let code_a = made["subscription"]["proofCode"]
        .as_str()
        .unwrap()
        .to_owned();
    let sub_a = made["subscription"]["id"].as_str().unwrap().to_owned();
    let sub_b = subscribe(&app, &token, &b).await;
    let one = data(get(&app, &format!("/subscriptions/{sub_b}"), Some(&token)).await).await;
    let code_b = one["proofCode"].as_str().unwrap().to_owned();
    for code in [&code_a, &code_b] {
        let (r, tag) = code.split_once('-').unwrap();
        assert_eq!(r, referral);
        assert_eq!(tag.len(), 4, "{code}");
        assert!(
            tag.bytes().all(|c| b"ACEFHKMNPRTUVWXY47".contains(&c)),
            "{code}"
        );
    }
    assert_ne!(code_a, code_b);
    let listed = data(get(&app, "/subscriptions", Some(&token)).await).await;
    let codes: Vec<&str> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["proofCode"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&code_a.as_str()) && codes.contains(&code_b.as_str()));
    ready(&app, &token, &sub_a).await;
}

#[actix_web::test]
async fn the_white_page_exploit_and_another_ads_proof_are_not_approved() {
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    let admin = admin(&app).await;
    let token = poster(&app).await;
    let a = clip_ad(&app, dir.path(), "2.50", "25");
    let b = ad_of(&app, dir.path(), "mandelbrot");
    let sub_a = subscribe(&app, &token, &a).await;
    let sub_b = subscribe(&app, &token, &b).await;
    let code_of = |sub: &str| {
        let sub = sub.to_owned();
        let app = &app;
        let token = token.clone();
        async move {
            data(get(app, &format!("/subscriptions/{sub}"), Some(&token)).await).await["proofCode"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let (code_a, code_b) = (code_of(&sub_a).await, code_of(&sub_b).await);
    ready(&app, &token, &sub_a).await;
    ready(&app, &token, &sub_b).await;

    // The exploit: each subscription's code typed on a white page. Neither is paid; a
    // person will look (the code is there, the video is not).
    for (sub, code) in [(&sub_a, &code_a), (&sub_b, &code_b)] {
        let (id, out) = judged(&app, &token, sub, white_page(dir.path(), "w.png", code)).await;
        let e = staff_view(&app, &admin, &id).await["evidence"].clone();
        assert_eq!(
            (out["status"].as_str(), out["reasonCode"].as_str()),
            (Some("needs_review"), Some("code_without_video")),
            "{out} {e}"
        );
        assert_eq!(e["expectedCode"], code.as_str(), "{e}");
        assert_eq!(
            (e["videoFound"].as_bool(), e["codeMatched"].as_bool()),
            (Some(false), Some(false)),
            "{e}"
        );
        assert_eq!(e["codeFoundIn"], "picture", "{e}");
        assert!(e["ocrText"].as_str().unwrap().contains("Posted"), "{e}");
        data(
            post(
                &app,
                &format!("/admin/screenshots/{id}/reject"),
                Some(&admin),
                json!({"reason": "no post"}),
            )
            .await,
        )
        .await;
    }
    // The same page sent again for its subscription is a copy; the two pages, alike at a
    // whole picture's print, were not copies of each other.
    let (_, out) = judged(
        &app,
        &token,
        &sub_a,
        white_page(dir.path(), "w.png", &code_a),
    )
    .await;
    assert_eq!(out["reasonCode"], "duplicate", "{out}");
    let b = data(get(&app, "/users/balance", Some(&token)).await).await;
    assert_eq!(b["availableCents"], 0, "{b}");

    // A genuine proof of ad A sent for ad B: B's video is not in it, nor B's code.
    let proof_a = genuine(&app, &token, &sub_a, dir.path(), "1.0").await;
    let (id, out) = judged(&app, &token, &sub_b, proof_a.clone()).await;
    assert_eq!(
        (out["status"].as_str(), out["reasonCode"].as_str()),
        (Some("rejected"), Some("not_shown")),
        "{out}"
    );
    assert_eq!(out["reason"], "this picture does not show your video");
    let e = staff_view(&app, &admin, &id).await["evidence"].clone();
    assert!(e["video"]["score"].as_f64().unwrap() < 0.7, "{e}");

    // The same proof for its own subscription: paid, with the evidence kept.
    let (id, out) = judged(&app, &token, &sub_a, proof_a).await;
    assert_eq!(out["status"], "approved", "{out}");
    let view = staff_view(&app, &admin, &id).await;
    let e = &view["evidence"];
    assert_eq!(
        (e["videoFound"].as_bool(), e["codeMatched"].as_bool()),
        (Some(true), Some(true)),
        "{e}"
    );
    assert_eq!(e["codeFoundIn"], "code_box");
    assert_eq!(e["verifier"], "builtin");
    assert!(e["video"]["score"].as_f64().unwrap() >= 0.9, "{e}");
    assert!(e["video"]["codeBoxScore"].as_f64().unwrap() >= 0.6, "{e}");
    for k in ["x", "y", "w", "h"] {
        assert!(e["video"]["rect"][k].is_u64(), "{e}");
    }
    assert!(e["duplicates"].as_array().unwrap().is_empty(), "{e}");
    assert!(e["elapsedMs"].is_u64());
    // Posters see the outcome and its reason, never the evidence.
    let mine = data(get(&app, &format!("/screenshots/{id}"), Some(&token)).await).await;
    assert!(mine.get("evidence").is_none(), "{mine}");
    let b = data(get(&app, "/users/balance", Some(&token)).await).await;
    assert_eq!(b["availableCents"], 250, "{b}");
}

#[actix_web::test]
async fn posters_whose_pictures_keep_missing_their_video_are_refused_for_a_while() {
    let dir = tempfile::tempdir().unwrap();
    let app = app_with(|s| {
        s.services.advertising.proof_rejection_limit = 2;
        s.services.advertising.proof_rejection_window_secs = 3600;
    })
    .await;
    let admin = admin(&app).await;
    let (token, user) = sign_in(&app, &phone()).await;
    let ad = clip_ad(&app, dir.path(), "1", "10");
    let sub = subscribe(&app, &token, &ad).await;
    ready(&app, &token, &sub).await;
    for n in 0..2 {
        let picture = unrelated(dir.path(), &format!("u{n}.png"), n);
        let (_, out) = judged(&app, &token, &sub, picture).await;
        assert_eq!(out["reasonCode"], "not_shown", "{out}");
        app.advance(chrono::Duration::minutes(10));
    }
    // The third is refused before anything is stored, for the time left in the window.
    let refused_now = refused(
        upload(
            &app,
            &token,
            &sub,
            unrelated(dir.path(), "u2.png", 2),
            "screenshot",
            "image/png",
        )
        .await,
        429,
        "too_many_rejected_screenshots",
    )
    .await;
    let wait = refused_now["retryAfter"].as_i64().unwrap();
    // The oldest was decided 20 minutes (and the test's own seconds) ago: its hour ends in
    // under 40 minutes.
    assert!((2300..=2400).contains(&wait), "{refused_now}");
    let listed = data(get(&app, "/screenshots", Some(&token)).await).await;
    assert_eq!(listed["total"], 2);
    let user_id = user["id"].as_str().unwrap();
    let seen = data(get(&app, &format!("/admin/users/{user_id}"), Some(&admin)).await).await;
    let r = &seen["proofRejections"];
    assert_eq!(
        (r["count"].as_u64(), r["limit"].as_u64()),
        (Some(2), Some(2)),
        "{seen}"
    );
    assert!(r["blockedUntil"].is_string(), "{seen}");
    // Once the first leaves the window the poster may try again (and the proof pays).
    app.advance(chrono::Duration::seconds(wait));
    let proof = genuine(&app, &token, &sub, dir.path(), "1.0").await;
    let (_, out) = judged(&app, &token, &sub, proof).await;
    assert_eq!(out["status"], "approved", "{out}");
    let seen = data(get(&app, &format!("/admin/users/{user_id}"), Some(&admin)).await).await;
    assert_eq!(seen["proofRejections"]["count"], 1, "{seen}");
    assert!(seen["proofRejections"]["blockedUntil"].is_null(), "{seen}");
}

#[actix_web::test]
async fn older_subscriptions_keep_their_referral_code_and_get_key_frames_when_needed() {
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::advertising::subscription;
    use switchboard_migration::{Migrator, MigratorTrait};
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    let (token, user) = sign_in(&app, &phone()).await;
    let referral = user["referralCode"].as_str().unwrap().to_owned();
    let ad = clip_ad(&app, dir.path(), "1", "10");
    let sub = subscribe(&app, &token, &ad).await;
    ready(&app, &token, &sub).await;
    // Back to the schema before proofs, with a video made then: the referral code burnt in.
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let all = Migrator::migrations();
    let proofs = all
        .iter()
        .position(|m| m.name() == "m20261208_000001_advertising_proofs")
        .unwrap();
    Migrator::down(&db, Some((all.len() - proofs) as u32))
        .await
        .unwrap();
    let old = dir.path().join("old.mp4");
    test_clip(&dir.path().join("src.mp4"), "640x360", 2, false);
    let videos = switchboard::providers::video::from_settings(&Default::default());
    videos
        .personalise(&dir.path().join("src.mp4"), &old, &referral)
        .await
        .unwrap();
    let media = &app.settings.providers.storage.path;
    let key = format!("videos/personalised/{sub}-old.mp4");
    std::fs::create_dir_all(Path::new(media).join("videos/personalised")).unwrap();
    std::fs::copy(&old, Path::new(media).join(&key)).unwrap();
    subscription::Entity::update_many()
        .col_expr(subscription::Column::VideoKey, Expr::value(key))
        .filter(subscription::Column::Id.eq(uuid::Uuid::parse_str(&sub).unwrap()))
        .exec(&db)
        .await
        .unwrap();
    Migrator::up(&db, None).await.unwrap();
    let one = data(get(&app, &format!("/subscriptions/{sub}"), Some(&token)).await).await;
    assert_eq!(one["proofCode"], referral.as_str(), "{one}");
    // Its first screenshot makes the key frames from the old video and is judged on them.
    let shot =
        crate::providers::media::PhoneShot::of(&old, "1.0").write(&dir.path().join("old.jpg"));
    let (_, out) = judged(&app, &token, &sub, shot).await;
    assert_eq!(out["status"], "approved", "{out}");
}
