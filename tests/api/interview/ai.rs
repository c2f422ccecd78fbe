use super::support::*;
use crate::helpers::body;
use serde_json::json;
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn chat(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"message": {"role": "assistant", "content": content}}]
    }))
}

#[actix_web::test]
async fn openai_adapter_asks_and_scores_through_the_model() {
    let model = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .and(body_string_contains("Write a two-sentence greeting"))
        .respond_with(chat("Welcome, Ada! Let us begin."))
        .mount(&model)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_string_contains("Answer only with JSON: {\\\"question\\\""))
        .respond_with(chat("```json\n{\"question\": \"How do you design a Rust service for failure?\", \"suggestions\": [\"Start with timeouts\"]}\n```"))
        .mount(&model)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_string_contains("Score the answer"))
        .respond_with(chat("{\"technical\": 90, \"communication\": 80, \"problem_solving\": 85, \"cultural_fit\": 70, \"summary\": \"Model says strong.\", \"skills\": [\"rust\"], \"strengths\": [], \"weaknesses\": [], \"red_flags\": [], \"highlight\": null}"))
        .mount(&model)
        .await;
    let app = openai_app(&model).await;
    let s = create(&app, json!({})).await;
    let st = start(&app, &s).await;
    assert_eq!(st["greeting"]["content"], "Welcome, Ada! Let us begin.");
    assert_eq!(
        st["first_question"]["content"],
        "How do you design a Rust service for failure?"
    );
    assert_eq!(
        st["first_question"]["suggestions"],
        json!(["Start with timeouts"])
    );
    let v = body(answer(&app, &s, GOOD_ANSWER).await).await;
    assert_eq!(v["score"]["summary"], "Model says strong.");
    // technical question: (90+80+85+70+90)/5
    assert_eq!(v["score"]["composite_score"], 83.0);
}

#[actix_web::test]
async fn a_failing_or_slow_model_falls_back_to_the_builtin_interviewer() {
    let model = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_string_contains("greeting"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&model)
        .await;
    Mock::given(method("POST"))
        .respond_with(chat("not json").set_delay(std::time::Duration::from_secs(3)))
        .mount(&model)
        .await;
    let base = model.uri();
    let app = app_with(move |s| {
        s.ai.provider = "openai".into();
        s.ai.base_url = base;
        s.ai.timeout_secs = 1;
    })
    .await;
    let s = create(&app, json!({})).await;
    let st = start(&app, &s).await;
    assert!(st["greeting"]["content"]
        .as_str()
        .unwrap()
        .contains("Ada Lovelace"));
    assert!(st["first_question"]["content"].as_str().unwrap().len() > 20);
    let v = body(answer(&app, &s, GOOD_ANSWER).await).await;
    assert!(v["score"]["composite_score"].as_f64().unwrap() > 50.0);
    assert_eq!(v["next_message"]["question_number"], 2);
}

/// A model that scores every category of every answer `score`.
async fn model_scoring(model: &MockServer, score: f64) {
    model.reset().await;
    Mock::given(method("POST"))
        .and(body_string_contains("Write a two-sentence greeting"))
        .respond_with(chat("Welcome."))
        .mount(model)
        .await;
    Mock::given(method("POST"))
        .and(body_string_contains(
            "Answer only with JSON: {\\\"question\\\"",
        ))
        .respond_with(chat("{\"question\": \"Why Rust?\", \"suggestions\": []}"))
        .mount(model)
        .await;
    let scored = json!({"technical": score, "communication": score, "problem_solving": score,
        "cultural_fit": score, "summary": "s", "skills": [], "strengths": [], "weaknesses": [],
        "red_flags": [], "highlight": null});
    Mock::given(method("POST"))
        .and(body_string_contains("Score the answer"))
        .respond_with(chat(&scored.to_string()))
        .mount(model)
        .await;
}

#[actix_web::test]
async fn grades_and_recommendations_change_exactly_at_their_boundaries() {
    let model = MockServer::start().await;
    let app = openai_app(&model).await;
    let cases = [
        (85.0, "A", "strong_hire"),
        (84.9, "B", "strong_hire"),
        (80.0, "B", "strong_hire"),
        (79.9, "B", "hire"),
        (70.0, "B", "hire"),
        (69.9, "C", "hire"),
        (65.0, "C", "hire"),
        (64.9, "C", "consider"),
        (55.0, "C", "consider"),
        (54.9, "D", "consider"),
        (50.0, "D", "consider"),
        (49.9, "D", "no_hire"),
        (40.0, "D", "no_hire"),
        (39.9, "F", "no_hire"),
    ];
    for (score, grade, recommendation) in cases {
        model_scoring(&model, score).await;
        let s = create(&app, json!({"max_questions": 1})).await;
        start(&app, &s).await;
        let done = body(answer(&app, &s, GOOD_ANSWER).await).await;
        let r = &done["report"];
        assert_eq!(r["overall_score"], score, "{done}");
        assert_eq!(r["grade"], grade, "grade at {score}");
        assert_eq!(
            r["recommendation"], recommendation,
            "recommendation at {score}"
        );
    }
}

/// Issue 20: the model's reply is held to the built-in interviewer's check. Its findings
/// become the feedback when they agree with its scores; a reply scoring an answer 20 while
/// finding every piece of evidence in it is replaced by the built-in rubric's score.
#[actix_web::test]
async fn a_model_score_that_contradicts_its_findings_falls_back_to_the_rubric() {
    let model = MockServer::start().await;
    let reply = |score: f64, found: bool| {
        json!({"technical": score, "communication": score, "problem_solving": score,
            "cultural_fit": score, "summary": "Model says so.", "skills": ["rust"],
            "strengths": ["free text"], "weaknesses": [], "red_flags": [], "highlight": null,
            "evidence": {"situation": found, "actions": found, "techniques": found,
                "result": found, "trade_offs": found, "collaboration": found},
            "quote": "rebuilt our billing service"})
        .to_string()
    };
    Mock::given(method("POST"))
        .and(body_string_contains("Score the answer"))
        .and(body_string_contains("Consistent Backend Engineer"))
        .respond_with(chat(&reply(85.0, true)))
        .mount(&model)
        .await;
    Mock::given(method("POST"))
        .and(body_string_contains("Score the answer"))
        .respond_with(chat(&reply(20.0, true)))
        .mount(&model)
        .await;
    let app = openai_app(&model).await;

    // Consistent: the model's numbers stand, its findings are the feedback.
    let s = create(
        &app,
        json!({"max_questions": 1, "job_title": "Consistent Backend Engineer"}),
    )
    .await;
    start(&app, &s).await;
    let v = body(answer(&app, &s, GOOD_ANSWER).await).await;
    assert_eq!(v["score"]["composite_score"], 85.0, "{v}");
    let report = body(get_key(&app, &format!("/api/v1/sessions/{}/report", id(&s))).await).await;
    let strengths = report["strengths_analysis"].to_string();
    assert!(strengths.contains("Gave a result"), "{report}");
    assert!(!strengths.contains("free text"), "{report}");

    // Contradictory: 20/100 with every element found falls back to the built-in rubric.
    let s = create(&app, json!({"max_questions": 1})).await;
    start(&app, &s).await;
    let v = body(answer(&app, &s, GOOD_ANSWER).await).await;
    assert_ne!(v["score"]["summary"], "Model says so.", "{v}");
    assert!(
        v["score"]["composite_score"].as_f64().unwrap() >= 70.0,
        "{v}"
    );
}

/// Issue 37: a model that rates a keyword list strong is not believed — the built-in
/// structural reading finds the list, and the built-in rubric's score (weak, saying why)
/// stands instead; the prompt carries the same guidance.
#[actix_web::test]
async fn a_model_that_rates_a_keyword_list_strong_falls_back_to_the_rubric() {
    let model = MockServer::start().await;
    let strong = json!({"technical": 92, "communication": 88, "problem_solving": 90,
        "cultural_fit": 85, "summary": "Model says strong.", "skills": ["rust"],
        "strengths": [], "weaknesses": [], "red_flags": [], "highlight": null,
        "evidence": {"situation": true, "actions": true, "techniques": true,
            "result": true, "trade_offs": true, "collaboration": true}});
    Mock::given(method("POST"))
        .and(body_string_contains("Score the answer"))
        .and(body_string_contains("off-topic"))
        .respond_with(chat(&strong.to_string()))
        .mount(&model)
        .await;
    let app = openai_app(&model).await;
    let s = create(&app, json!({"max_questions": 1})).await;
    start(&app, &s).await;
    let list = "Flame graphs, p99 dashboards, connection pool tuning, query plans, caching, \
                indexing, circuit breakers, backoff. Latency fell 90 percent.";
    let v = body(answer(&app, &s, list).await).await;
    let score = &v["score"];
    assert_ne!(score["summary"], "Model says strong.", "{v}");
    assert!(score["composite_score"].as_f64().unwrap() <= 50.0, "{v}");
    assert!(
        score["summary"]
            .as_str()
            .unwrap()
            .contains("lists techniques without saying what you did with them"),
        "{v}"
    );
}
