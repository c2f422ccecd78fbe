//! Advertisers' source videos: the largest accepted (duration, frame, frame rate), refused
//! at upload naming the limit; only containers phones and editors write are read (never a
//! playlist naming other files); video jobs wait for the encoder in the queue, so other
//! work keeps moving.

use super::advertisers::advertiser;
use super::earning::until;
use super::*;
use crate::providers::media::{ffmpeg, test_clip};
use std::path::Path;

async fn upload(app: &TestApp, token: &str, file: &Path) -> Response {
    let bytes = std::fs::read(file).unwrap();
    super::campaigns::upload(app, token, "clip.mp4", bytes).await
}

#[actix_web::test]
async fn a_source_over_a_limit_is_refused_at_upload_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("c.mp4");
    test_clip(&clip, "320x240", 3, false);
    let fast = dir.path().join("fast.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=duration=1:size=160x120:rate=90",
        "-pix_fmt",
        "yuv420p",
        fast.to_str().unwrap(),
    ]);
    let app = app_with(|s| {
        let m = &mut s.services.advertising.media;
        m.max_duration_secs = 2.0;
        m.max_pixels = 320 * 240;
        m.max_frame_rate = 60.0;
    })
    .await;
    let (token, _) = advertiser(&app).await;
    let long = refused(upload(&app, &token, &clip).await, 400, "validation_error").await;
    let said = long.to_string();
    assert!(
        said.contains("video") && said.contains("longest allowed is 2 s"),
        "{said}"
    );
    let quick = refused(upload(&app, &token, &fast).await, 400, "validation_error").await;
    assert!(quick.to_string().contains("90 frames a second"), "{quick}");
    // Within every limit: taken.
    let short = dir.path().join("s.mp4");
    test_clip(&short, "320x240", 1, false);
    data(upload(&app, &token, &short).await).await;
    let big = dir.path().join("b.mp4");
    test_clip(&big, "640x480", 1, false);
    let wide = refused(upload(&app, &token, &big).await, 400, "validation_error").await;
    assert!(wide.to_string().contains("640×480"), "{wide}");
}

#[actix_web::test]
async fn a_playlist_naming_a_local_file_is_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.mp4");
    test_clip(&secret, "160x120", 1, false);
    // An HLS playlist (a manifest naming files for ffmpeg to read) uploaded as "a video".
    let playlist = dir.path().join("list");
    std::fs::write(
        &playlist,
        format!(
            "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile://{}\n#EXT-X-ENDLIST\n",
            secret.display()
        ),
    )
    .unwrap();
    let app = app().await;
    let (token, _) = advertiser(&app).await;
    let c = data(upload(&app, &token, &playlist).await).await;
    let id = c["id"].as_str().unwrap().to_owned();
    let done = until(
        &app,
        || super::campaigns::listed(&app, &token, &id),
        |c| c["videoStatus"] != "processing",
    )
    .await;
    assert_eq!(done["videoStatus"], "failed", "{done}");
    assert!(
        done["videoError"]
            .as_str()
            .unwrap()
            .contains("not a readable video"),
        "{done}"
    );
    let made = Path::new(&app.settings.providers.storage.path)
        .join("videos/ads")
        .join(uuid::Uuid::parse_str(&id).unwrap().simple().to_string());
    assert!(!made.exists(), "nothing was transcoded from the named file");
}

#[actix_web::test]
async fn queued_encodes_leave_job_slots_to_mails() {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("long.mp4");
    // Long enough that one encode takes a while, small enough to upload quickly.
    test_clip(&clip, "640x360", 20, true);
    let app = app_with(|s| s.jobs.concurrency = 4).await;
    let (token, who) = advertiser(&app).await;
    let mut ids = Vec::new();
    for _ in 0..20 {
        let c = data(upload(&app, &token, &clip).await).await;
        ids.push(c["id"].as_str().unwrap().to_owned());
    }
    // Twenty encodes are queued behind one encoder; a mail asked for now still goes out
    // while most of them wait.
    let email = who["email"].as_str().unwrap().to_owned();
    let before = app.outbox_for(&email).len();
    super::advertisers::forgot(&app, &email).await;
    let started = std::time::Instant::now();
    loop {
        if app.outbox_for(&email).len() > before {
            break;
        }
        assert!(started.elapsed().as_secs() < 60, "the mail never went out");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let mut waiting = 0;
    for id in &ids {
        if super::campaigns::listed(&app, &token, id).await["videoStatus"] == "processing" {
            waiting += 1;
        }
    }
    eprintln!(
        "mail out after {} ms with {waiting} of 20 encodes still queued",
        started.elapsed().as_millis()
    );
    assert!(
        waiting >= 18,
        "the mail waited for the encodes: {waiting} still queued"
    );
}
