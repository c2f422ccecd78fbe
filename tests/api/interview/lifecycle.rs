use super::support::*;
use crate::helpers::body;
use chrono::Duration;
use serde_json::json;

async fn act(
    app: &crate::helpers::TestApp,
    s: &serde_json::Value,
    action: &str,
) -> reqwest::Response {
    post_key(
        app,
        &format!("/api/v1/sessions/{}/{action}", id(s)),
        json!({}),
    )
    .await
}

#[actix_web::test]
async fn state_table_and_refusals() {
    let app = app().await;
    let s = create(&app, json!({})).await;
    // pending: only start.
    for a in ["pause", "resume", "complete"] {
        let v = assert_error(act(&app, &s, a).await, 409, "INVALID_STATE").await;
        assert_eq!(v["error"]["details"]["status"], "pending");
    }
    assert_error(answer(&app, &s, "hello").await, 409, "INVALID_STATE").await;
    let report = get_key(&app, &format!("/api/v1/sessions/{}/report", id(&s))).await;
    assert_error(report, 409, "INVALID_STATE").await;

    let started = start(&app, &s).await;
    assert_eq!(started["status"], "in_progress");
    assert_eq!(started["session_id"], s["id"]);
    assert_eq!(started["time_limit_minutes"], 30);
    assert_eq!(started["greeting"]["message_type"], "greeting");
    assert_eq!(started["greeting"]["role"], "interviewer");
    assert!(started["greeting"]["content"]
        .as_str()
        .unwrap()
        .contains("Ada Lovelace"));
    let q = &started["first_question"];
    assert_eq!(q["message_type"], "question");
    assert_eq!(q["question_number"], 1);
    assert_eq!(q["total_questions"], 3);
    assert!(q["question_category"].is_string());
    // in_progress: not start, not resume.
    let v = assert_error(act(&app, &s, "start").await, 409, "INVALID_STATE").await;
    assert_eq!(v["error"]["details"]["allowed_states"], json!(["pending"]));
    assert_error(act(&app, &s, "resume").await, 409, "INVALID_STATE").await;

    let v = body(act(&app, &s, "pause").await).await;
    assert_eq!(v["status"], "paused");
    // paused: no answers, no second pause, no start.
    assert_error(answer(&app, &s, GOOD_ANSWER).await, 409, "INVALID_STATE").await;
    assert_error(act(&app, &s, "pause").await, 409, "INVALID_STATE").await;
    assert_error(act(&app, &s, "start").await, 409, "INVALID_STATE").await;
    let v = body(act(&app, &s, "resume").await).await;
    assert_eq!(v["status"], "in_progress");

    // complete from paused is allowed too; test from in_progress here.
    let res = act(&app, &s, "complete").await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["status"], "completed");
    assert!(v["closing_message"].as_str().unwrap().contains("Thank you"));
    for k in [
        "overall_score",
        "grade",
        "recommendation",
        "recommendation_label",
        "categories",
        "executive_summary",
        "strengths",
        "improvements",
    ] {
        assert!(!v["report"][k].is_null(), "report.{k}");
    }
    assert_eq!(v["report"]["recommendation"], "no_hire"); // nothing answered
    for a in ["start", "pause", "resume", "complete"] {
        let v = assert_error(act(&app, &s, a).await, 409, "INVALID_STATE").await;
        assert_eq!(v["error"]["details"]["status"], "completed");
    }
    assert_error(answer(&app, &s, GOOD_ANSWER).await, 409, "INVALID_STATE").await;

    // complete from paused.
    let s2 = create(&app, json!({})).await;
    start(&app, &s2).await;
    act(&app, &s2, "pause").await;
    assert_eq!(
        body(act(&app, &s2, "complete").await).await["status"],
        "completed"
    );
    // unknown session
    let ghost = json!({"id": uuid::Uuid::new_v4().to_string()});
    assert_error(act(&app, &ghost, "start").await, 404, "NOT_FOUND").await;
}

#[actix_web::test]
async fn candidate_uses_the_session_token() {
    let app = app().await;
    let s = create(&app, json!({})).await;
    let token = s["session_token"].as_str().unwrap();
    let res = post_token(
        &app,
        &format!("/api/v1/sessions/{}/start", id(&s)),
        token,
        None,
    )
    .await;
    assert_eq!(res.status(), 200);
    let res = post_token(
        &app,
        &format!("/api/v1/sessions/{}/messages", id(&s)),
        token,
        Some(json!({"content": GOOD_ANSWER})),
    )
    .await;
    assert_eq!(res.status(), 200);
    let res = post_token(
        &app,
        &format!("/api/v1/sessions/{}/pause", id(&s)),
        "bad",
        None,
    )
    .await;
    assert_error(res, 401, "UNAUTHORIZED").await;
}

#[actix_web::test]
async fn answers_are_scored_and_the_last_one_completes() {
    let app = app().await;
    let s = create(&app, json!({"max_questions": 2})).await;
    start(&app, &s).await;
    assert_error(answer(&app, &s, "   ").await, 400, "INVALID_REQUEST").await;
    assert_error(
        answer(&app, &s, &"x".repeat(10_001)).await,
        400,
        "INVALID_REQUEST",
    )
    .await;

    let res = answer(&app, &s, GOOD_ANSWER).await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["answer"]["role"], "candidate");
    assert_eq!(v["answer"]["content"], GOOD_ANSWER);
    assert!(v["answer"]["id"].is_string() && v["answer"]["sequence_number"].is_i64());
    let score = v["score"]["composite_score"].as_f64().unwrap();
    assert!(score > 50.0, "a specific answer scores well: {v}");
    assert!(v["score"]["summary"].is_string());
    assert_eq!(v["next_message"]["message_type"], "question");
    assert_eq!(v["next_message"]["question_number"], 2);
    assert_eq!(v["next_message"]["total_questions"], 2);
    assert!(v["next_message"]["category"].is_string());
    assert!(v["next_message"]["suggestions"]
        .as_array()
        .is_some_and(|a| !a.is_empty()));
    assert_eq!(v["status"], "in_progress");

    let weak = body(answer(&app, &s, "I don't know").await).await;
    assert!(weak["score"]["composite_score"].as_f64().unwrap() <= 25.0);
    assert_eq!(weak["status"], "completed");
    assert_eq!(weak["next_message"]["message_type"], "closing");
    assert_eq!(
        weak["report"]["completion_reason"],
        "all_questions_answered"
    );

    // Messages: greeting, q1, a1, q2, a2, closing.
    let list = body(get_key(&app, &format!("/api/v1/sessions/{}/messages", id(&s))).await).await;
    assert_eq!(list["total"], 6);
    let msgs = list["messages"].as_array().unwrap();
    let seq: Vec<i64> = msgs
        .iter()
        .map(|m| m["sequence_number"].as_i64().unwrap())
        .collect();
    assert_eq!(seq, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(msgs[2]["score"]["composite_score"].as_f64().unwrap(), score);
    let page = body(
        get_key(
            &app,
            &format!("/api/v1/sessions/{}/messages?limit=2", id(&s)),
        )
        .await,
    )
    .await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 2);
    assert_eq!(page["messages"][1]["message_type"], "closing");
    // `before` in the future returns the latest; in the past, nothing.
    let future =
        (chrono::Utc::now() + Duration::days(3)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let page = body(
        get_key(
            &app,
            &format!(
                "/api/v1/sessions/{}/messages?before={future}&limit=3",
                id(&s)
            ),
        )
        .await,
    )
    .await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 3);
    let page = body(
        get_key(
            &app,
            &format!(
                "/api/v1/sessions/{}/messages?before=2000-01-01T00:00:00Z",
                id(&s)
            ),
        )
        .await,
    )
    .await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 0);
    assert_eq!(page["total"], 6);
    let res = get_key(
        &app,
        &format!("/api/v1/sessions/{}/messages?before=yesterday", id(&s)),
    )
    .await;
    assert_error(res, 400, "INVALID_REQUEST").await;

    let report = body(get_key(&app, &format!("/api/v1/sessions/{}/report", id(&s))).await).await;
    assert_eq!(report["questions_answered"], 2);
    assert_eq!(report["candidate_name"], "Ada Lovelace");
    assert!(report["demonstrated_skills"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x == "rust"));
    assert!(!report["red_flags"].as_array().unwrap().is_empty());
    assert!(!report["follow_up_questions"].as_array().unwrap().is_empty());
    for k in [
        "scores",
        "strengths_analysis",
        "weaknesses_analysis",
        "technical_assessment",
        "behavioral_assessment",
        "skill_gaps",
        "interview_highlights",
        "duration_minutes",
        "created_at",
        "grade",
        "recommendation_label",
    ] {
        assert!(!report[k].is_null(), "report.{k}");
    }
}

/// Sends the session's actor twice a command it refuses without changing anything. The
/// actor checks its time limit between two commands, so once the second is answered it has
/// read the (moved) clock and done whatever the limit called for: what is stored then is
/// what the time limit leaves, with no sleep to hope for it.
async fn settle(app: &crate::helpers::TestApp, s: &serde_json::Value, refused: &str) {
    for _ in 0..2 {
        let res = act(app, s, refused).await;
        assert!(
            res.status().is_client_error(),
            "{refused}: {}",
            res.status()
        );
    }
}

#[actix_web::test]
async fn time_limit_runs_only_while_in_progress_and_completes_the_session() {
    let app = app().await;
    let s = create(&app, json!({"time_limit_minutes": 5})).await;
    start(&app, &s).await;
    app.advance(Duration::minutes(3));
    let paused = body(
        post_key(
            &app,
            &format!("/api/v1/sessions/{}/pause", id(&s)),
            json!({}),
        )
        .await,
    )
    .await;
    let left = paused["remaining_seconds"].as_i64().unwrap();
    assert!((115..=121).contains(&left), "{paused}");
    // A long pause does not use up the limit.
    app.advance(Duration::minutes(30));
    settle(&app, &s, "pause").await;
    let v = body(get_key(&app, &format!("/api/v1/sessions/{}", id(&s))).await).await;
    assert_eq!(v["status"], "paused");
    assert_eq!(v["remaining_seconds"].as_i64().unwrap(), left);
    post_key(
        &app,
        &format!("/api/v1/sessions/{}/resume", id(&s)),
        json!({}),
    )
    .await;
    app.advance(Duration::seconds(60));
    settle(&app, &s, "resume").await;
    assert_eq!(
        body(get_key(&app, &format!("/api/v1/sessions/{}", id(&s))).await).await["status"],
        "in_progress"
    );
    app.advance(Duration::seconds(61));
    wait_status(&app, &s, "completed").await;
    let report = body(get_key(&app, &format!("/api/v1/sessions/{}/report", id(&s))).await).await;
    assert_eq!(report["completion_reason"], "time_limit");
    assert_eq!(report["duration_minutes"], 5);
    assert_error(answer(&app, &s, GOOD_ANSWER).await, 409, "INVALID_STATE").await;
}

#[actix_web::test]
async fn expired_sessions_cannot_be_started_or_answered() {
    let app = app().await;
    let s = create(&app, json!({})).await;
    let running = create(&app, json!({"time_limit_minutes": 240})).await;
    start(&app, &running).await;
    post_key(
        &app,
        &format!("/api/v1/sessions/{}/pause", id(&running)),
        json!({}),
    )
    .await;
    app.advance(Duration::hours(169));
    let v = assert_error(
        post_key(
            &app,
            &format!("/api/v1/sessions/{}/start", id(&s)),
            json!({}),
        )
        .await,
        410,
        "SESSION_EXPIRED",
    )
    .await;
    assert!(v["error"]["details"]["expires_at"].is_string());
    assert_error(
        post_key(
            &app,
            &format!("/api/v1/sessions/{}/resume", id(&running)),
            json!({}),
        )
        .await,
        410,
        "SESSION_EXPIRED",
    )
    .await;
    // It can still be completed, which produces the report of what was answered.
    let res = post_key(
        &app,
        &format!("/api/v1/sessions/{}/complete", id(&running)),
        json!({}),
    )
    .await;
    assert_eq!(res.status(), 200);
}

#[actix_web::test]
async fn a_running_session_is_restored_after_a_restart() {
    let first = app().await;
    let s = create(
        &first,
        json!({"time_limit_minutes": 10, "max_questions": 5}),
    )
    .await;
    start(&first, &s).await;
    let v = body(answer(&first, &s, GOOD_ANSWER).await).await;
    assert_eq!(v["next_message"]["question_number"], 2);
    first.stop().await;
    // A second process on the same database. Nobody calls it: its start-up alone must bring
    // the running session back, so its time limit ends it.
    let db = first.settings.database.url.clone();
    let second = app_with(|st| st.database.url = db.clone()).await;
    second.advance(Duration::minutes(11));
    let conn = sea_orm::Database::connect(&db).await.unwrap();
    let session_id: uuid::Uuid = id(&s).parse().unwrap();
    let mut status = String::new();
    for _ in 0..200 {
        use sea_orm::EntityTrait;
        let row = switchboard_entities::interview::session::Entity::find_by_id(session_id)
            .one(&conn)
            .await
            .unwrap()
            .expect("session row");
        status = row.status.to_string();
        if status == "completed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(
        status, "completed",
        "the restored timer completed the session"
    );
    let v = body(get_key(&second, &format!("/api/v1/sessions/{}", id(&s))).await).await;
    assert_eq!(v["questions_asked"], 2, "{v}");
    let report = body(get_key(&second, &format!("/api/v1/sessions/{}/report", id(&s))).await).await;
    assert_eq!(report["completion_reason"], "time_limit", "{report}");
    assert_eq!(report["questions_answered"], 1);
}

#[actix_web::test]
async fn a_deadline_passed_while_down_ends_the_session_at_that_deadline() {
    let first = app().await;
    let s = create(&first, json!({"time_limit_minutes": 10})).await;
    start(&first, &s).await;
    let started = body(get_key(&first, &format!("/api/v1/sessions/{}", id(&s))).await).await;
    first.stop().await;
    // The process was down when the limit ran out; the next one finds the session overdue.
    let db = first.settings.database.url.clone();
    let second = app_with(|st| st.database.url = db).await;
    second.advance(Duration::minutes(25));
    let done = wait_status(&second, &s, "completed").await;
    let at = |v: &serde_json::Value, key: &str| {
        chrono::DateTime::parse_from_rfc3339(v[key].as_str().unwrap_or_default()).unwrap()
    };
    assert_eq!(
        at(&done, "completed_at"),
        at(&started, "started_at") + Duration::minutes(10),
        "{done}"
    );
    let report = body(get_key(&second, &format!("/api/v1/sessions/{}/report", id(&s))).await).await;
    assert_eq!(report["completion_reason"], "time_limit", "{report}");
    assert_eq!(report["duration_minutes"], 10, "{report}");
}

#[actix_web::test]
async fn an_answer_after_a_restart_continues_the_sequence() {
    let first = app().await;
    let s = create(&first, json!({"max_questions": 5})).await;
    start(&first, &s).await;
    answer(&first, &s, GOOD_ANSWER).await;
    first.stop().await;
    let db = first.settings.database.url.clone();
    let second = app_with(|st| st.database.url = db).await;
    let restored = body(get_key(&second, &format!("/api/v1/sessions/{}", id(&s))).await).await;
    assert_eq!(restored["status"], "in_progress");
    assert!(
        restored["remaining_seconds"].as_i64().unwrap() > 1700,
        "{restored}"
    );
    let v = body(answer(&second, &s, GOOD_ANSWER).await).await;
    assert_eq!(v["next_message"]["question_number"], 3);
    assert_eq!(v["answer"]["sequence_number"], 5);
}

/// Session actors alive in the interview process, as the readiness endpoint counts them.
async fn live_actors(app: &crate::helpers::TestApp) -> i64 {
    let res = app.client.get(url(app, "/api/v1/health")).send().await;
    body(res.expect("health")).await["active_sessions"]
        .as_i64()
        .expect("active_sessions")
}

#[actix_web::test]
async fn an_idle_actor_stops_and_the_next_command_revives_it_from_the_database() {
    let app = app_with(|s| s.services.interview.actor_idle_secs = 1).await;
    let s = create(&app, json!({"max_questions": 5})).await;
    start(&app, &s).await;
    let paused = act(&app, &s, "pause").await;
    assert_eq!(paused.status(), 200);
    assert_eq!(live_actors(&app).await, 1);
    // Paused, no timer runs: the actor stops after a second without a command.
    let mut live = 1;
    for _ in 0..100 {
        live = live_actors(&app).await;
        if live == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(live, 0, "the idle actor stopped");
    let resumed = body(act(&app, &s, "resume").await).await;
    assert_eq!(resumed["status"], "in_progress", "{resumed}");
    assert_eq!(live_actors(&app).await, 1);
    let v = body(answer(&app, &s, GOOD_ANSWER).await).await;
    assert_eq!(v["answer"]["sequence_number"], 3, "{v}");
    assert_eq!(v["next_message"]["question_number"], 2, "{v}");
}
