//! Files fetched from URLs callers give (`core::download`): public addresses only unless
//! allowed, no redirects, a size cap, and failures sorted into permanent and retryable.

use switchboard::core::download::{outbound_client, to_temp_file, DownloadError};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[actix_web::test]
async fn a_file_is_fetched_whole_and_refusals_are_sorted() {
    let server = MockServer::start().await;
    let body: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    Mock::given(method("GET"))
        .and(path("/ad.mp4"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(body.clone()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/gone.mp4"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/busy.mp4"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/moved.mp4"))
        .respond_with(
            ResponseTemplate::new(302).insert_header("location", "http://169.254.169.254/"),
        )
        .mount(&server)
        .await;
    let open = outbound_client(true, "test", None, &Default::default()).unwrap();
    let url = |p: &str| format!("{}{p}", server.uri());

    let file = to_temp_file(&open, &url("/ad.mp4"), true, 1_000_000)
        .await
        .unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), body);
    let too_big = to_temp_file(&open, &url("/ad.mp4"), true, 9_999)
        .await
        .unwrap_err();
    assert!(
        matches!(too_big, DownloadError::Rejected(_)) && too_big.is_permanent(),
        "{too_big}"
    );
    let gone = to_temp_file(&open, &url("/gone.mp4"), true, 1_000_000)
        .await
        .unwrap_err();
    assert!(gone.is_permanent(), "{gone}");
    let busy = to_temp_file(&open, &url("/busy.mp4"), true, 1_000_000)
        .await
        .unwrap_err();
    assert!(!busy.is_permanent(), "{busy}");
    // A redirect is not followed (it could point inside).
    let moved = to_temp_file(&open, &url("/moved.mp4"), true, 1_000_000)
        .await
        .unwrap_err();
    assert!(moved.is_permanent(), "{moved}");

    // The same server is loopback: refused unless private addresses are allowed.
    let public = outbound_client(false, "test", None, &Default::default()).unwrap();
    let private = to_temp_file(&public, &url("/ad.mp4"), false, 1_000_000)
        .await
        .unwrap_err();
    assert!(matches!(private, DownloadError::Refused(_)), "{private}");
    let odd = to_temp_file(&public, "ftp://example.com/a.mp4", false, 1_000_000)
        .await
        .unwrap_err();
    assert!(matches!(odd, DownloadError::Refused(_)), "{odd}");
}
