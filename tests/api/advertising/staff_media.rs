//! What moderators judge: the admin views' staff links (the screenshot, the subscription's
//! video, the ad's thumbnail, duplicates' pictures) open the stored bytes, expire, refuse
//! tampering and other roles, and never reach posters; the ad view's video; a ticket's
//! thread; and two moderators on one screenshot.

use super::admin_accounts::{only_for, staff, staff_with_email};
use super::admin_moderation::{pending_shot, poster_with_id};
use super::earning::{clip_ad, decided, genuine, source_shot, subscribe, upload};
use super::*;
use crate::providers::media::test_clip;
use chrono::Duration;
use serde_json::json;

/// GETs a staff link without any token (players and `<img>` fetch it so).
async fn open(app: &TestApp, url: &str) -> Response {
    app.client.get(url).send().await.unwrap()
}

/// The link's bytes and content type, after a 200.
async fn opened(app: &TestApp, url: &str) -> (String, Vec<u8>) {
    let res = open(app, url).await;
    assert_eq!(res.status(), 200, "{url}");
    let kind = res.headers()["content-type"].to_str().unwrap().to_owned();
    (kind, res.bytes().await.unwrap().to_vec())
}

fn link<'a>(v: &'a Value, field: &str) -> &'a str {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} in {v}"))
}

#[actix_web::test]
async fn staff_see_the_screenshot_beside_the_video_and_the_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    let ad = clip_ad(&app, dir.path(), "2", "20");
    let (first, _) = sign_in(&app, &phone()).await;
    let sub1 = subscribe(&app, &first, &ad).await;
    let (second, _) = sign_in(&app, &phone()).await;
    let sub2 = subscribe(&app, &second, &ad).await;
    let pic = genuine(&app, &first, &sub1, dir.path(), "1.0").await;
    let s1 = data(upload(&app, &first, &sub1, pic.clone(), "screenshot", "image/jpeg").await).await;
    let s1 = s1["id"].as_str().unwrap().to_owned();
    assert_eq!(decided(&app, &first, &s1).await["status"], "approved");
    // The same picture from someone else: a duplicate of the first.
    let s2 = data(
        upload(
            &app,
            &second,
            &sub2,
            pic.clone(),
            "screenshot",
            "image/jpeg",
        )
        .await,
    )
    .await;
    let s2 = s2["id"].as_str().unwrap().to_owned();
    assert_eq!(decided(&app, &second, &s2).await["reasonCode"], "duplicate");
    // The ad's video without the code: waits for a person.
    let doubtful = source_shot(dir.path());
    let s3 = data(
        upload(
            &app,
            &second,
            &sub2,
            doubtful.clone(),
            "screenshot",
            "image/jpeg",
        )
        .await,
    )
    .await;
    let s3 = s3["id"].as_str().unwrap().to_owned();
    assert_eq!(decided(&app, &second, &s3).await["status"], "needs_review");

    let moderator = staff(&app, "moderator").await;
    let queue = data(get(&app, "/admin/screenshots", Some(&moderator)).await).await;
    assert_eq!(queue["total"], 1, "{queue}");
    let item = &queue["items"][0];
    assert_eq!(item["id"], s3.as_str());
    let proof = data(get(&app, &format!("/subscriptions/{sub2}"), Some(&second)).await).await
        ["proofCode"]
        .clone();
    assert_eq!(item["proofCode"], proof);
    assert_eq!(item["evidence"]["expectedCode"], proof);
    assert_eq!(item["adTitle"], "Clip");
    // The picture as uploaded, the ad's thumbnail and the subscription's video.
    assert_eq!(
        opened(&app, link(item, "imageUrl")).await,
        ("image/jpeg".to_owned(), doubtful)
    );
    // An ad an operator made from a file plays it as given: no thumbnail (a campaign's
    // transcoded video has one: the ad view's test).
    assert!(item["thumbnailUrl"].is_null(), "{item}");
    let (kind, video) = opened(&app, link(item, "videoUrl")).await;
    assert_eq!(kind, "video/mp4");
    assert!(video.len() > 1000);
    // A player's range request.
    let part = app
        .client
        .get(link(item, "videoUrl"))
        .header("Range", "bytes=0-99")
        .send()
        .await
        .unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(part.bytes().await.unwrap().len(), 100);

    // The duplicate names the first screenshot, with its own picture.
    let dup = data(get(&app, &format!("/admin/screenshots/{s2}"), Some(&moderator)).await).await;
    let near = &dup["duplicates"][0];
    assert_eq!(near["id"], s1.as_str(), "{dup}");
    assert_eq!(near["status"], "approved");
    assert_eq!(opened(&app, link(near, "imageUrl")).await.1, pic);

    // Tampered: another signature, another object in the token's place, garbage.
    let url = link(item, "imageUrl").to_owned();
    let token = url.rsplit('/').next().unwrap().to_owned();
    let (subject, rest) = token.split_once('.').unwrap();
    let flipped = {
        let mut t = token.clone().into_bytes();
        let last = t.len() - 1;
        t[last] = if t[last] == b'0' { b'1' } else { b'0' };
        String::from_utf8(t).unwrap()
    };
    use base64::Engine;
    let other_key = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("videos/ads/other.mp4");
    assert_ne!(subject, other_key);
    for bad in [flipped, format!("{other_key}.{rest}"), "nope".into()] {
        refused(
            open(&app, &url.replace(&token, &bad)).await,
            404,
            "file_not_found",
        )
        .await;
    }
    // A poster's video link does not open as a staff link, nor a staff link as a video.
    let video_link = data(get(&app, &format!("/subscriptions/{sub2}/video"), Some(&second)).await)
        .await["videoUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    let video_token = video_link.rsplit('/').next().unwrap();
    refused(
        open(&app, &url.replace(&token, video_token)).await,
        404,
        "file_not_found",
    )
    .await;
    refused(
        open(&app, &video_link.replace(video_token, &token)).await,
        404,
        "video_not_found",
    )
    .await;

    // Links expire with the setting (15 minutes by default).
    app.advance(Duration::minutes(16));
    refused(open(&app, &url).await, 410, "link_expired").await;
    let fresh = data(get(&app, &format!("/admin/screenshots/{s3}"), Some(&moderator)).await).await;
    assert_eq!(opened(&app, link(&fresh, "imageUrl")).await.0, "image/jpeg");

    // Only moderators and administrators read the views; posters' views carry no staff link.
    let finance = staff(&app, "finance").await;
    only_for(
        &app,
        Method::GET,
        "/admin/screenshots",
        None,
        &[&finance, &second],
    )
    .await;
    only_for(
        &app,
        Method::GET,
        &format!("/admin/screenshots/{s3}"),
        None,
        &[&finance, &second],
    )
    .await;
    for path in [
        format!("/screenshots/{s3}"),
        "/screenshots".to_owned(),
        format!("/subscriptions/{sub2}"),
        format!("/ads/{ad}"),
    ] {
        let body = get(&app, &path, Some(&second)).await.text().await.unwrap();
        assert!(!body.contains("/media/staff/"), "{path}: {body}");
    }
}

#[actix_web::test]
async fn the_admin_ad_view_plays_the_video_and_names_the_advertiser() {
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    let moderator = staff(&app, "moderator").await;
    // A campaign whose uploaded video is transcoded, with a thumbnail.
    let (owner, who) = super::advertisers::advertiser(&app).await;
    let clip = dir.path().join("c.mp4");
    test_clip(&clip, "640x360", 1, true);
    let c =
        data(super::campaigns::upload(&app, &owner, "c.mp4", std::fs::read(&clip).unwrap()).await)
            .await;
    let id = c["id"].as_str().unwrap().to_owned();
    let path = format!("/admin/ads/{id}");
    let view = super::earning::until(
        &app,
        || async { data(get(&app, &path, Some(&moderator)).await).await },
        |v| v["videoStatus"] != "processing",
    )
    .await;
    assert_eq!(view["videoStatus"], "ready", "{view}");
    assert_eq!(view["status"], "pending");
    assert_eq!(view["advertiser"]["id"], who["id"], "{view}");
    assert_eq!(view["advertiser"]["email"], who["email"], "{view}");
    assert_eq!(opened(&app, link(&view, "videoUrl")).await.0, "video/mp4");
    let (kind, thumb) = opened(&app, link(&view, "thumbnailUrl")).await;
    assert_eq!(kind, "image/jpeg");
    assert!(thumb.starts_with(&[0xFF, 0xD8]), "a JPEG");
    let pending = data(get(&app, "/admin/ads?status=pending", Some(&moderator)).await).await;
    let row = pending["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id.as_str())
        .expect("the campaign waits for review")
        .clone();
    assert_eq!(opened(&app, link(&row, "videoUrl")).await.0, "video/mp4");
    // An advertiser's own view never carries a staff link.
    let theirs = get(&app, "/advertisers/campaigns", Some(&owner))
        .await
        .text()
        .await
        .unwrap();
    assert!(!theirs.contains("/media/staff/"), "{theirs}");

    // An ad an operator made from a file plays that file; the moves answer the same view.
    let ad = clip_ad(&app, dir.path(), "2", "20");
    let view = data(get(&app, &format!("/admin/ads/{ad}"), Some(&moderator)).await).await;
    assert!(view["advertiser"].is_null(), "{view}");
    assert_eq!(opened(&app, link(&view, "videoUrl")).await.0, "video/mp4");
    let paused = data(
        call(
            &app,
            Method::PUT,
            &format!("/admin/ads/{ad}/pause"),
            Some(&moderator),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(paused["status"], "paused");
    assert!(paused["videoUrl"].as_str().is_some(), "{paused}");
}

#[actix_web::test]
async fn two_moderators_on_one_screenshot_decide_it_once_and_the_second_learns_who() {
    let app = app().await;
    let (_, poster) = poster_with_id(&app).await;
    let ad_id = ad(&app, "Race", "GB", "1.50", "30");
    let shot = pending_shot(&app, &poster, &ad_id, 150).await;
    let (first, email) = staff_with_email(&app, "moderator").await;
    let second = staff(&app, "moderator").await;
    let ok = data(
        post(
            &app,
            &format!("/admin/screenshots/{shot}/approve"),
            Some(&first),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(ok["status"], "approved");
    let late = refused(
        post(
            &app,
            &format!("/admin/screenshots/{shot}/reject"),
            Some(&second),
            json!({"reason": "blurry"}),
        )
        .await,
        409,
        "invalid_transition",
    )
    .await;
    assert_eq!(late["details"]["status"], "approved", "{late}");
    assert_eq!(late["details"]["decidedBy"], ok["decidedBy"], "{late}");
    assert_eq!(late["details"]["decidedByEmail"], email.as_str(), "{late}");
    assert!(late["error"].as_str().unwrap().contains(&email), "{late}");
}

#[actix_web::test]
async fn staff_read_a_ticket_with_its_whole_thread_and_close_it() {
    let app = app().await;
    let poster = poster(&app).await;
    let t = data(
        post(
            &app,
            "/support-tickets",
            Some(&poster),
            json!({"subject": "Payout", "category": "payments", "message": "Where is it?"}),
        )
        .await,
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();
    let moderator = staff(&app, "moderator").await;
    data(
        post(
            &app,
            &format!("/admin/support-tickets/{id}/messages"),
            Some(&moderator),
            json!({"message": "On its way."}),
        )
        .await,
    )
    .await;
    let thread = data(
        get(
            &app,
            &format!("/admin/support-tickets/{id}"),
            Some(&moderator),
        )
        .await,
    )
    .await;
    let said: Vec<(&str, &str)> = thread["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["authorKind"].as_str().unwrap(),
                m["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(said, [("poster", "Where is it?"), ("admin", "On its way.")]);
    let closed = data(
        post(
            &app,
            &format!("/admin/support-tickets/{id}/close"),
            Some(&moderator),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["messages"].as_array().unwrap().len(), 2);
    // The poster sees it closed too.
    let theirs = data(get(&app, &format!("/support-tickets/{id}"), Some(&poster)).await).await;
    assert_eq!(theirs["status"], "closed");

    refused(
        get(
            &app,
            &format!("/admin/support-tickets/{}", uuid::Uuid::new_v4()),
            Some(&moderator),
        )
        .await,
        404,
        "ticket_not_found",
    )
    .await;
    refused(
        get(&app, "/admin/support-tickets/not-an-id", Some(&moderator)).await,
        404,
        "ticket_not_found",
    )
    .await;
    let finance = staff(&app, "finance").await;
    only_for(
        &app,
        Method::GET,
        &format!("/admin/support-tickets/{id}"),
        None,
        &[&finance, &poster],
    )
    .await;
    only_for(
        &app,
        Method::POST,
        &format!("/admin/support-tickets/{id}/close"),
        Some(json!({})),
        &[&finance, &poster],
    )
    .await;
}

#[actix_web::test]
async fn the_console_is_served_from_the_binary_under_a_strict_policy() {
    let app = app().await;
    for (path, kind) in [
        ("/console/", "text/html"),
        ("/console/console.js", "text/javascript"),
        ("/console/console.css", "text/css"),
    ] {
        let res = get(&app, path, None).await;
        assert_eq!(res.status(), 200, "{path}");
        let h = res.headers().clone();
        assert!(
            h["content-type"].to_str().unwrap().starts_with(kind),
            "{path}"
        );
        let csp = h["content-security-policy"].to_str().unwrap();
        for rule in [
            "default-src 'none'",
            "script-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(rule), "{path}: {csp}");
        }
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        let body = res.text().await.unwrap();
        // Nothing from another origin (the SVG namespace is a name, not a fetch).
        let elsewhere = body.replace("http://www.w3.org/2000/svg", "");
        assert!(
            !elsewhere.contains("http://") && !elsewhere.contains("https://"),
            "{path}"
        );
        if kind == "text/html" {
            assert!(!body.contains("<script>"), "only the script file");
            assert!(body.contains(r#"<script type="module" src="/console/console.js">"#));
        }
    }
    let res = app
        .client
        .get(format!("{}/console", app.advertising))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 308);
    assert_eq!(res.headers()["location"], "/console/");
    assert_eq!(get(&app, "/console/nope.js", None).await.status(), 404);
}
