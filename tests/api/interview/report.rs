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

/// Names in other scripts print as written (embedded fonts), and are read back from the PDF's
/// text: tone-marked Yoruba, Cyrillic, Chinese and Hindi.
#[actix_web::test]
async fn names_in_any_script_print_as_written() {
    let app = app().await;
    for name in ["Ọlábísí Adéyẹmí", "Дмитрий Ковалёв", "王小明", "अनिल शर्मा"]
    {
        let s = create(&app, json!({"max_questions": 1, "candidate_name": name})).await;
        start(&app, &s).await;
        answer(&app, &s, GOOD_ANSWER).await;
        let text = text_of(&pdf_of(&app, &s).await);
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("Candidate: "))
            .unwrap_or_else(|| panic!("a candidate line in {text}"));
        assert_eq!(line.trim(), name);
    }
}

async fn get_token(app: &crate::helpers::TestApp, path: &str, token: &str) -> reqwest::Response {
    app.client
        .get(url(app, path))
        .header("X-Session-Token", token)
        .send()
        .await
        .expect("request")
}

/// A model that scores every answer technical 90, communication 80, problem solving 65 and
/// cultural fit 50, with `lists` as its strengths/weaknesses/red_flags; everything else
/// falls back to the built-in interviewer.
async fn scoring_model(lists: &str) -> wiremock::MockServer {
    use wiremock::matchers::{body_string_contains, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let model = MockServer::start().await;
    let content = format!(
        "{{\"technical\": 90, \"communication\": 80, \"problem_solving\": 65, \"cultural_fit\": 50, \"summary\": \"ok\", \"skills\": [\"rust\"], {lists}, \"highlight\": null}}"
    );
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_string_contains("Score the answer"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"message": {"role": "assistant", "content": content}}]
        })))
        .mount(&model)
        .await;
    model
}

async fn app_scored_by(model: &wiremock::MockServer) -> crate::helpers::TestApp {
    openai_app(model).await
}

/// Completes a one-question session; returns it.
async fn completed(app: &crate::helpers::TestApp) -> serde_json::Value {
    let s = create(app, json!({"max_questions": 1})).await;
    start(app, &s).await;
    let done = crate::helpers::body(answer(app, &s, GOOD_ANSWER).await).await;
    assert_eq!(done["status"], "completed", "{done}");
    s
}

async fn pdf_of(app: &crate::helpers::TestApp, s: &serde_json::Value) -> lopdf::Document {
    let res = get_key(app, &format!("/api/v1/sessions/{}/report/pdf", id(s))).await;
    assert_eq!(res.status(), 200);
    lopdf::Document::load_mem(&res.bytes().await.unwrap()).expect("a parseable PDF")
}

fn text_of(doc: &lopdf::Document) -> String {
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    doc.extract_text(&pages).expect("text")
}

/// The text between two headings.
fn section<'a>(text: &'a str, from: &str, to: &str) -> &'a str {
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("{from} in {text}"))
        + from.len();
    let end = start
        + text[start..]
            .find(to)
            .unwrap_or_else(|| panic!("{to} in {text}"));
    &text[start..end]
}

#[actix_web::test]
async fn the_candidate_reads_a_candidate_view_and_the_backend_the_full_report() {
    let model = scoring_model(
        "\"strengths\": [\"Clear\"], \"weaknesses\": [], \"red_flags\": [\"Blamed the team\"]",
    )
    .await;
    let app = app_scored_by(&model).await;
    let s = completed(&app).await;
    let token = s["session_token"].as_str().unwrap();
    let path = format!("/api/v1/sessions/{}/report", id(&s));

    let full = crate::helpers::body(get_key(&app, &path).await).await;
    for k in [
        "recommendation",
        "recommendation_label",
        "red_flags",
        "follow_up_questions",
        "executive_summary",
        "completion_reason",
    ] {
        assert!(!full[k].is_null(), "full report has {k}: {full}");
    }
    assert_eq!(full["red_flags"], json!(["Blamed the team"]));

    let res = get_token(&app, &path, token).await;
    assert_eq!(res.status(), 200);
    let mine = crate::helpers::body(res).await;
    for k in [
        "recommendation",
        "recommendation_label",
        "red_flags",
        "follow_up_questions",
        "executive_summary",
        "completion_reason",
        "metadata",
        "user_id",
        "application_id",
    ] {
        assert!(mine.get(k).is_none(), "candidate view leaks {k}: {mine}");
    }
    assert!(!mine.to_string().contains("Blamed the team"), "{mine}");
    assert_eq!(mine["overall_score"], full["overall_score"]);
    assert_eq!(mine["scores"], full["scores"]);
    assert_eq!(mine["strengths"], full["strengths"]);
    assert_eq!(mine["improvements"], full["improvements"]);

    // The PDF is the full report: backend only, refused in the interview envelope.
    let pdf = format!("{path}/pdf");
    assert_error(get_token(&app, &pdf, token).await, 403, "FORBIDDEN").await;
    assert_error(
        get_token(&app, &path, "not-the-token").await,
        401,
        "UNAUTHORIZED",
    )
    .await;

    let res = app
        .client
        .get(url(&app, "/api-docs/openapi.json"))
        .send()
        .await
        .unwrap();
    let doc = crate::helpers::body(res).await;
    assert!(doc["components"]["schemas"]["CandidateReport"].is_object());
    assert!(doc["components"]["schemas"]["CandidateReport"]["properties"]["red_flags"].is_null());
}

#[actix_web::test]
async fn none_noted_only_under_an_empty_list() {
    // The model pads its empty lists with a placeholder; two category strengths (90, 80) and
    // one area to improve (cultural fit 50) come from the scores.
    let model = scoring_model(
        "\"strengths\": [\"None noted.\"], \"weaknesses\": [], \"red_flags\": [\"N/A\"]",
    )
    .await;
    let app = app_scored_by(&model).await;
    let s = completed(&app).await;
    let report =
        crate::helpers::body(get_key(&app, &format!("/api/v1/sessions/{}/report", id(&s))).await)
            .await;
    assert_eq!(report["strengths"].as_array().unwrap().len(), 2, "{report}");
    assert_eq!(
        report["improvements"].as_array().unwrap().len(),
        1,
        "{report}"
    );
    assert_eq!(report["strengths_analysis"], json!([]), "{report}");
    assert_eq!(report["red_flags"], json!([]), "{report}");
    assert!(!report.to_string().contains("None noted"), "{report}");

    let text = text_of(&pdf_of(&app, &s).await);
    let strengths = section(&text, "Strengths", "Areas to improve");
    assert!(
        strengths.contains("Strong technical knowledge"),
        "{strengths}"
    );
    assert!(strengths.contains("Strong communication"), "{strengths}");
    assert!(!strengths.contains("None noted"), "{strengths}");
    let improve = section(&text, "Areas to improve", "Technical assessment");
    assert!(improve.contains("Develop cultural fit"), "{improve}");
    assert!(!improve.contains("None noted"), "{improve}");
    let flags = section(&text, "Red flags", "Follow-up questions");
    assert_eq!(flags.matches("None noted.").count(), 1, "{flags}");
}

fn number(o: &lopdf::Object) -> f64 {
    match o {
        lopdf::Object::Integer(i) => *i as f64,
        lopdf::Object::Real(r) => f64::from(*r),
        other => panic!("not a number: {other:?}"),
    }
}

#[actix_web::test]
async fn the_pdf_draws_a_bar_per_category_against_100() {
    let model = scoring_model("\"strengths\": [], \"weaknesses\": [], \"red_flags\": []").await;
    let app = app_scored_by(&model).await;
    let s = completed(&app).await;
    let doc = pdf_of(&app, &s).await;
    let first = *doc.get_pages().values().next().expect("a page");
    let ops = doc
        .get_and_decode_page_content(first)
        .expect("content")
        .operations;
    // Filled rectangles: `x y w h re` followed by a fill.
    let filled: Vec<(f64, f64)> = ops
        .windows(2)
        .filter(|w| {
            w[0].operator == "re" && matches!(w[1].operator.as_str(), "f" | "f*" | "B" | "B*")
        })
        .map(|w| (number(&w[0].operands[1]), number(&w[0].operands[2])))
        .collect();
    // Four tracks of the same width stand for 100.
    let full = filled
        .iter()
        .map(|r| r.1)
        .find(|w| filled.iter().filter(|r| (r.1 - w).abs() < 1e-3).count() == 4)
        .unwrap_or_else(|| panic!("four equal tracks in {filled:?}"));
    for score in [90.0, 80.0, 65.0, 50.0] {
        let want = full * score / 100.0;
        assert!(
            filled.iter().any(|r| (r.1 - want).abs() < 0.01 * full),
            "a bar {want} wide for {score} in {filled:?}"
        );
    }
    // One bar per row: each bar shares its track's baseline.
    let tracks: Vec<f64> = filled
        .iter()
        .filter(|r| (r.1 - full).abs() < 1e-3)
        .map(|r| r.0)
        .collect();
    assert_eq!(filled.len(), 8, "{filled:?}");
    for (y, w) in &filled {
        assert!(
            tracks.iter().any(|t| (t - y).abs() < 1e-3),
            "bar at {y} ({w}) off its track"
        );
    }
    let text = text_of(&doc);
    for n in ["90.0/100", "80.0/100", "65.0/100", "50.0/100"] {
        assert!(text.contains(n), "{n} in {text}");
    }
}

/// A session created by the backend and started by the candidate with its token.
async fn started_by_candidate(
    app: &crate::helpers::TestApp,
    extra: serde_json::Value,
) -> (serde_json::Value, String) {
    let s = create(app, extra).await;
    let token = s["session_token"].as_str().unwrap().to_owned();
    let res = post_token(
        app,
        &format!("/api/v1/sessions/{}/start", id(&s)),
        &token,
        None,
    )
    .await;
    assert_eq!(res.status(), 200, "the candidate starts");
    (s, token)
}

/// The completion summary follows the same rule as the report: the backend's API key reads
/// the hiring decision, the candidate's own token (and the session's sockets) do not.
#[actix_web::test]
async fn the_completion_summary_hides_the_decision_from_the_candidate() {
    let app = app().await;
    let hidden = [
        "recommendation",
        "recommendation_label",
        "executive_summary",
        "completion_reason",
    ];
    // The candidate answers the last question with their token.
    let (s, token) = started_by_candidate(&app, json!({"max_questions": 1})).await;
    let token = token.as_str();
    let res = post_token(
        &app,
        &format!("/api/v1/sessions/{}/messages", id(&s)),
        token,
        Some(json!({ "content": GOOD_ANSWER })),
    )
    .await;
    let done = crate::helpers::body(res).await;
    let r = &done["report"];
    assert!(
        r["overall_score"].is_number() && r["grade"].is_string(),
        "{done}"
    );
    for k in hidden {
        assert!(
            r.get(k).is_none(),
            "the candidate's answer response leaks {k}: {r}"
        );
    }
    // The candidate ends another session early with their token.
    let (s, token) = started_by_candidate(&app, json!({})).await;
    let token = token.as_str();
    let res = post_token(
        &app,
        &format!("/api/v1/sessions/{}/complete", id(&s)),
        token,
        None,
    )
    .await;
    let done = crate::helpers::body(res).await;
    for k in hidden {
        assert!(
            done["report"].get(k).is_none(),
            "complete leaks {k}: {done}"
        );
    }
    // The backend completing a session reads all of it.
    let s = create(&app, json!({})).await;
    start(&app, &s).await;
    let res = post_key(
        &app,
        &format!("/api/v1/sessions/{}/complete", id(&s)),
        json!({}),
    )
    .await;
    let done = crate::helpers::body(res).await;
    for k in hidden {
        assert!(
            done["report"][k].is_string(),
            "the backend gets {k}: {done}"
        );
    }
}

/// Issue 20: a senior Backend Engineer gives the three strong answers of the issue to the
/// built-in interviewer; each is scored strong and the report says so in one voice.
#[actix_web::test]
async fn three_strong_answers_make_a_consistent_strong_report() {
    let app = app().await;
    let s = create(&app, json!({"max_questions": 3})).await;
    start(&app, &s).await;
    let answers = [
        "At my last company the ledger service timed out every month-end. I profiled it and found lock contention in the ledger, replaced the mutex with per-account actors, latency fell 60 % while throughput doubled.",
        "I led a zero-downtime MySQL → PostgreSQL migration with logical replication, dual writes behind a flag and a checksum job for two weeks. When the checksums had matched for two weeks we switched reads over and nobody noticed the cut-over.",
        "We had to choose between two retry designs for the payment webhooks. I wrote down both designs with their failure modes, load-tested both, picked the simpler retry story. It has run for a year without a duplicate payment.",
    ];
    let mut last = json!(null);
    for a in answers {
        last = crate::helpers::body(answer(&app, &s, a).await).await;
        let score = &last["score"];
        assert!(
            score["composite_score"].as_f64().unwrap() >= 70.0,
            "{score}"
        );
        assert!(
            !score["summary"].as_str().unwrap().contains("Weak"),
            "{score}"
        );
    }
    assert_eq!(last["status"], "completed", "{last}");
    let report =
        crate::helpers::body(get_key(&app, &format!("/api/v1/sessions/{}/report", id(&s))).await)
            .await;
    assert!(
        report["overall_score"].as_f64().unwrap() >= 70.0,
        "{report}"
    );
    assert_ne!(report["recommendation"], "no_hire", "{report}");
    let list = |k: &str| -> Vec<String> {
        report[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_lowercase())
            .collect()
    };
    let good = [list("strengths"), list("strengths_analysis")].concat();
    let bad = [list("improvements"), list("weaknesses_analysis")].concat();
    for word in [
        "concrete",
        "brief",
        "example",
        "result",
        "situation",
        "actions",
    ] {
        assert!(
            !(good.iter().any(|g| g.contains(word)) && bad.iter().any(|b| b.contains(word))),
            "{word} on both sides: {report}"
        );
    }
    assert!(
        !bad.iter()
            .any(|b| b.contains("concrete") || b.contains("brief")),
        "{report}"
    );
    for q in report["follow_up_questions"].as_array().unwrap() {
        let q = q.as_str().unwrap();
        assert!(q.ends_with('?'), "{q}");
        assert!(!q.contains("Earlier you were asked"), "{q}");
    }
}
