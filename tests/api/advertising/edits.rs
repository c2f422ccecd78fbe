//! Edits against staff's moves and storage: an edit whose body is still arriving never
//! revives an ad an administrator deleted, rejected or paused meanwhile; edits count as
//! uploads; storage keeps only what a record points at (replaced uploads, stale transcodes
//! and orphans go; rejected and deleted ads' media after the retention).

use super::admin_accounts::admin;
use super::advertisers::advertiser;
use super::earning::until;
use super::*;
use crate::providers::media::test_clip;
use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, Set};
use std::path::{Path, PathBuf};
use switchboard_entities::advertising::ad;

async fn row(app: &TestApp, id: &str) -> ad::Model {
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    ad::Entity::find_by_id(uuid::Uuid::parse_str(id).unwrap())
        .one(&db)
        .await
        .unwrap()
        .unwrap()
}

/// A campaign by URL, approved and funded as payments and moderators would leave it.
async fn approved_campaign(app: &TestApp, token: &str) -> String {
    let c = data(
        post(
            app,
            "/advertisers/campaigns",
            Some(token),
            json!({"title": "Racing", "video": "https://videos.example.com/a.mp4", "budgetUsd": 50,
                   "countryCode": "GB", "demographics": {"ageMin": 18, "ageMax": 60, "genders": []}}),
        )
        .await,
    )
    .await;
    let id = c["id"].as_str().unwrap().to_owned();
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let mut a = row(app, &id).await.into_active_model();
    a.status = Set(ad::AdStatus::Approved);
    a.video_status = Set(Some(ad::VideoStatus::Ready));
    a.funded_cents = Set(5000);
    a.listed = Set(true);
    a.update(&db).await.unwrap();
    id
}

/// Files under `folder` of the app's local storage.
fn stored(app: &TestApp, folder: &str) -> Vec<PathBuf> {
    let dir = Path::new(&app.settings.providers.storage.path).join(folder);
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

const BOUNDARY: &str = "switchboard-edit-boundary";

/// A multipart edit of `path` (a new title and the video `clip`) whose body stops after its
/// first half until `go` is notified.
fn slow_edit(
    app: &TestApp,
    token: &str,
    path: &str,
    clip: Vec<u8>,
    go: std::sync::Arc<tokio::sync::Notify>,
) -> tokio::task::JoinHandle<reqwest::Response> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nBack again\r\n\
         --{BOUNDARY}\r\nContent-Disposition: form-data; name=\"video\"; filename=\"v.mp4\"\r\n\
         Content-Type: video/mp4\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&clip);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    let half = body.len() / 2;
    let (first, rest) = (body[..half].to_vec(), body[half..].to_vec());
    let stream = futures_util::stream::unfold(0u8, move |step| {
        let (first, rest, go) = (first.clone(), rest.clone(), go.clone());
        async move {
            match step {
                0 => Some((Ok::<_, std::io::Error>(first), 1)),
                1 => {
                    go.notified().await;
                    Some((Ok(rest), 2))
                }
                _ => None,
            }
        }
    });
    let r = req(app, Method::PUT, path, Some(token))
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(reqwest::Body::wrap_stream(stream));
    tokio::spawn(async move { r.send().await.unwrap() })
}

#[actix_web::test]
async fn an_edit_in_flight_never_revives_an_ad_staff_deleted_rejected_or_paused() {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("v.mp4");
    test_clip(&clip, "160x120", 1, false);
    let clip = std::fs::read(clip).unwrap();
    let app = app().await;
    let admin = admin(&app).await;
    let (token, _) = advertiser(&app).await;
    let moves: [(&str, Method, &str, u16, &str); 3] = [
        ("deleted", Method::DELETE, "", 404, "ad_not_found"),
        ("rejected", Method::PUT, "/reject", 409, "ad_changed"),
        ("paused", Method::PUT, "/pause", 409, "ad_changed"),
    ];
    for (status, method, suffix, code, error) in moves {
        let id = approved_campaign(&app, &token).await;
        let go = std::sync::Arc::new(tokio::sync::Notify::new());
        let edit = slow_edit(
            &app,
            &token,
            &format!("/ads/{id}"),
            clip.clone(),
            go.clone(),
        );
        // The edit's checks have passed and its body is arriving: staff move the ad.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let body = (status == "rejected").then(|| json!({"reason": "misleading"}));
        let moved = call(
            &app,
            method,
            &format!("/admin/ads/{id}{suffix}"),
            Some(&admin),
            body,
        )
        .await;
        assert_eq!(moved.status(), 200, "{status}");
        go.notify_one();
        let answer = edit.await.unwrap();
        refused(answer, code, error).await;
        let a = row(&app, &id).await;
        assert_eq!(a.status.as_str(), status, "the edit did not revive it");
        assert_eq!(a.title, "Racing");
        assert_eq!(a.video_source, "https://videos.example.com/a.mp4");
        // And the upload the edit stored is gone with it.
        assert!(stored(&app, "videos/ads/uploads").is_empty(), "{status}");
        // Staff's decision stands against later edits too.
        if status != "deleted" {
            let later = call(
                &app,
                Method::PUT,
                &format!("/ads/{id}"),
                Some(&token),
                Some(json!({"title": "x"})),
            )
            .await;
            refused(later, 409, "ad_not_editable").await;
        }
    }
}

#[actix_web::test]
async fn edits_count_as_uploads_and_storage_keeps_only_the_last_video() {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("v.mp4");
    test_clip(&clip, "160x120", 1, false);
    let clip = std::fs::read(clip).unwrap();
    let app = app_with(|s| s.services.advertising.rate_limits.uploads.limit = 30).await;
    let (token, _) = advertiser(&app).await;
    let id = approved_campaign(&app, &token).await;
    let path = format!("/ads/{id}");
    let mut ok = 0;
    let mut limited = 0;
    for _ in 0..40 {
        let form = reqwest::multipart::Form::new().part(
            "video",
            reqwest::multipart::Part::bytes(clip.clone()).file_name("v.mp4"),
        );
        let r = req(&app, Method::PUT, &path, Some(&token))
            .multipart(form)
            .send()
            .await
            .unwrap();
        match r.status().as_u16() {
            200 => ok += 1,
            429 => {
                refused(r, 429, "rate_limit_exceeded").await;
                limited += 1;
            }
            other => panic!("edit answered {other}"),
        }
    }
    // The campaign itself was the first upload of the hour.
    assert_eq!((ok, limited), (29, 11));
    let uploads = stored(&app, "videos/ads/uploads");
    assert_eq!(uploads.len(), 1, "{uploads:?}");
    assert!(row(&app, &id)
        .await
        .video_source
        .ends_with(uploads[0].file_name().unwrap().to_str().unwrap()));
    // Jobs queued for replaced videos make nothing; the last one its transcode.
    until(
        &app,
        || async { json!(row(&app, &id).await.video_status.map(|v| v.as_str())) },
        |s| s != "processing",
    )
    .await;
    let a = row(&app, &id).await;
    assert_eq!(a.video_status.map(|v| v.as_str()), Some("ready"));
    let made = stored(
        &app,
        &format!(
            "videos/ads/{}",
            uuid::Uuid::parse_str(&id).unwrap().simple()
        ),
    );
    assert_eq!(made.len(), 2, "a video and its thumbnail: {made:?}");
}

#[actix_web::test]
async fn the_sweep_removes_orphans_and_old_rejected_ads_media() {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("v.mp4");
    test_clip(&clip, "160x120", 1, false);
    let app = app().await;
    let (token, _) = advertiser(&app).await;
    let admin = admin(&app).await;
    // An upload whose row was never written (a crash between the two), and a kept one.
    let media = Path::new(&app.settings.providers.storage.path);
    std::fs::create_dir_all(media.join("videos/ads/uploads")).unwrap();
    std::fs::copy(&clip, media.join("videos/ads/uploads/orphan")).unwrap();
    let bytes = std::fs::read(&clip).unwrap();
    let kept = data(super::campaigns::upload(&app, &token, "v.mp4", bytes).await).await;
    let kept_id = kept["id"].as_str().unwrap().to_owned();
    until(
        &app,
        || async { json!(row(&app, &kept_id).await.video_status.map(|v| v.as_str())) },
        |s| s != "processing",
    )
    .await;
    let rejected = approved_campaign(&app, &token).await;
    let reject = call(
        &app,
        Method::PUT,
        &format!("/admin/ads/{rejected}/reject"),
        Some(&admin),
        Some(json!({"reason": "misleading"})),
    )
    .await;
    assert_eq!(reject.status(), 200);
    let before = stored(&app, "videos/ads").len();
    assert_eq!(
        before, 4,
        "the orphan, the kept upload, its video and thumbnail"
    );

    // Two hours on: the orphan is past its grace; the kept ad's media stay.
    app.advance(chrono::Duration::hours(2));
    until(
        &app,
        || async { json!(stored(&app, "videos/ads").len()) },
        |n| n == 3,
    )
    .await;
    assert!(!media.join("videos/ads/uploads/orphan").exists());
    let k = row(&app, &kept_id).await;
    assert!(media.join(&k.video_source).exists());
    assert!(media.join(k.video_key.as_ref().unwrap()).exists());

    // Past the retention, a rejected ad's media go and its row says so; its money stays.
    let mut a = row(&app, &kept_id).await.into_active_model();
    a.status = Set(ad::AdStatus::Rejected);
    a.update(
        &sea_orm::Database::connect(&app.settings.database.url)
            .await
            .unwrap(),
    )
    .await
    .unwrap();
    app.advance(chrono::Duration::days(31));
    until(
        &app,
        || async { json!(stored(&app, "videos/ads").len()) },
        |n| n == 0,
    )
    .await;
    let k = row(&app, &kept_id).await;
    assert_eq!(k.video_status.map(|v| v.as_str()), Some("purged"));
    assert_eq!((k.video_key, k.thumbnail_key), (None, None));
    assert_eq!(row(&app, &rejected).await.status.as_str(), "rejected");
}
