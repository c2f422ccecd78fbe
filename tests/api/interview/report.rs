use super::support::*;
use serde_json::json;

#[actix_web::test]
async fn the_pdf_report_names_the_candidate_and_score() {
    let app = app().await;
    let s = create(
        &app,
        json!({"max_questions": 1, "candidate_name": "Grace Hopper"}),
    )
    .await;
    let path = format!("/api/v1/sessions/{}/report/pdf", id(&s));
    assert_error(get_key(&app, &path).await, 409, "INVALID_STATE").await;
    start(&app, &s).await;
    let done = crate::helpers::body(answer(&app, &s, GOOD_ANSWER).await).await;
    let score = done["report"]["overall_score"].as_f64().unwrap();

    let res = get_key(&app, &path).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    assert!(res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .starts_with("attachment"));
    let bytes = res.bytes().await.unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    let doc = lopdf::Document::load_mem(&bytes).expect("a parseable PDF");
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    assert!(!pages.is_empty());
    let text = doc.extract_text(&pages).expect("text");
    assert!(text.contains("Grace Hopper"), "{text}");
    assert!(
        text.contains(&format!("{score:.1}/100")),
        "{score} in {text}"
    );
    assert!(text.contains("Backend Engineer"));
}
