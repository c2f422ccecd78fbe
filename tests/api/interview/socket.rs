use super::support::*;
use crate::helpers::body;
use serde_json::json;

#[actix_web::test]
async fn join_needs_a_known_token() {
    let app = app().await;
    let mut sio = Sio::connect(&app).await;
    sio.emit("send_message", json!({"content": "hi"})).await;
    let e = sio.next("error").await;
    assert!(e["message"].as_str().unwrap().contains("join"));
    sio.emit("join_session", json!({"session_token": "nope"}))
        .await;
    let e = sio.next("error").await;
    assert_eq!(e["message"], "unknown session token");
    assert_eq!(e["code"], "NOT_FOUND");
}

#[actix_web::test]
async fn two_sockets_see_every_event_of_rest_and_socket_actions() {
    let app = app().await;
    let s = create(&app, json!({"max_questions": 2})).await;
    let token = s["session_token"].as_str().unwrap();
    let mut a = Sio::connect(&app).await;
    let mut b = Sio::connect(&app).await;
    for sock in [&mut a, &mut b] {
        sock.emit("join_session", json!({"session_token": token}))
            .await;
        let joined = sock.next("session_joined").await;
        assert_eq!(joined["session"]["id"], s["id"]);
        assert_eq!(joined["session"]["status"], "pending");
    }

    // REST start: both sockets hear it.
    start(&app, &s).await;
    for sock in [&mut a, &mut b] {
        assert_eq!(sock.next("status_update").await["status"], "in_progress");
        assert_eq!(
            sock.next("message").await["message"]["message_type"],
            "greeting"
        );
        let q = sock.next("message").await["message"].clone();
        assert_eq!(q["message_type"], "question");
        assert_eq!(q["question_number"], 1);
        assert_eq!(q["total_questions"], s["max_questions"]);
        assert!(q["category"].is_string(), "{q}");
        let suggestions = q["suggestions"].as_array().expect("suggestions");
        assert!(!suggestions.is_empty() && suggestions.iter().all(|x| x.is_string()));
    }

    // Candidate typing reaches the other socket only.
    a.emit("typing", json!({"is_typing": true})).await;
    let t = b.next("typing").await;
    assert_eq!(t, json!({"is_typing": true, "role": "candidate"}));

    // An answer over the socket: the answer, the interviewer typing, score, next question.
    a.emit("send_message", json!({"content": GOOD_ANSWER}))
        .await;
    for sock in [&mut a, &mut b] {
        // The stored answer is announced first, then the interviewer starts typing.
        let events = sock.collect_until("typing").await;
        let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["message", "typing"], "{events:?}");
        assert_eq!(events[0].1["message"]["role"], "candidate");
        assert_eq!(events[0].1["message"]["content"], GOOD_ANSWER);
        assert_eq!(
            events[1].1,
            json!({"is_typing": true, "role": "interviewer"})
        );
        let score = sock.next("score").await["score"].clone();
        assert!(score["composite_score"].is_number(), "{score}");
        assert!(score["summary"].is_string(), "{score}");
        let next = sock.next("message").await["message"].clone();
        assert_eq!(next["role"], "interviewer");
        assert_eq!(next["question_number"], 2);
        assert_eq!(
            sock.next("typing").await,
            json!({"is_typing": false, "role": "interviewer"})
        );
    }
    // Simpler ordering check on a fresh sequence: pause over the socket.
    b.emit("pause", json!({})).await;
    for sock in [&mut a, &mut b] {
        assert_eq!(sock.next("status_update").await["status"], "paused");
    }
    let v = body(get_key(&app, &format!("/api/v1/sessions/{}", id(&s))).await).await;
    assert_eq!(v["status"], "paused");
    // Refusal on the socket: answering while paused.
    a.emit("send_message", json!({"content": "more"})).await;
    let e = a.next("error").await;
    assert_eq!(e["code"], "INVALID_STATE");
    a.emit("resume", json!({})).await;
    for sock in [&mut a, &mut b] {
        assert_eq!(sock.next("status_update").await["status"], "in_progress");
    }
    b.emit("complete", json!({})).await;
    for sock in [&mut a, &mut b] {
        let closing = sock.next("message").await["message"].clone();
        assert_eq!(closing["message_type"], "closing", "{closing}");
        assert_eq!(sock.next("status_update").await["status"], "completed");
        let r = sock.next("interview_complete").await["report"].clone();
        assert!(r["overall_score"].is_number(), "{r}");
        assert!(r["grade"].is_string(), "{r}");
        // The session's sockets are the candidate's: no hiring decision on them.
        for hidden in [
            "recommendation",
            "recommendation_label",
            "executive_summary",
            "completion_reason",
        ] {
            assert!(
                r.get(hidden).is_none(),
                "{hidden} sent to the candidate: {r}"
            );
        }
        for k in [
            "technical",
            "communication",
            "problem_solving",
            "cultural_fit",
        ] {
            assert!(r["categories"][k].is_number(), "{k} in {r}");
        }
        sock.silent_for(std::time::Duration::from_millis(300)).await;
    }
}

#[actix_web::test]
async fn answer_events_arrive_in_order_after_they_are_stored() {
    let app = app().await;
    let s = create(&app, json!({"max_questions": 1})).await;
    let mut sio = Sio::connect(&app).await;
    sio.emit("join_session", json!({"session_token": s["session_token"]}))
        .await;
    sio.next("session_joined").await;
    start(&app, &s).await;
    sio.next("status_update").await;
    sio.next("message").await;
    sio.next("message").await;
    sio.emit("send_message", json!({"content": GOOD_ANSWER}))
        .await;
    let events = sio.collect_until("interview_complete").await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message",
            "typing",
            "score",
            "message",
            "status_update",
            "interview_complete"
        ],
        "{events:?}"
    );
    assert_eq!(events[0].1["message"]["role"], "candidate");
    assert_eq!(events[3].1["message"]["message_type"], "closing");
    let (_, last) = sio.event().await;
    assert_eq!(last, json!({"is_typing": false, "role": "interviewer"}));
    // Everything announced is in the database.
    let list = body(get_key(&app, &format!("/api/v1/sessions/{}/messages", id(&s))).await).await;
    assert_eq!(list["total"], 4);
    assert_eq!(
        list["messages"][2]["score"]["composite_score"],
        events[2].1["score"]["composite_score"]
    );
}

#[actix_web::test]
async fn the_time_limit_ends_a_session_over_the_socket_and_posts_the_webhook() {
    use wiremock::matchers::method;
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let app = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&hook)
        .await;
    let s = create(
        &app,
        json!({"time_limit_minutes": 1, "webhook_url": format!("{}/hook", hook.uri())}),
    )
    .await;
    let mut sio = Sio::connect(&app).await;
    sio.emit("join_session", json!({"session_token": s["session_token"]}))
        .await;
    sio.next("session_joined").await;
    start(&app, &s).await;
    sio.next("status_update").await;
    sio.next("message").await;
    sio.next("message").await;

    // Nobody answers: one minute later the session ends by itself.
    app.advance(chrono::Duration::seconds(61));
    let events = sio.collect_until("interview_complete").await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["message", "status_update", "interview_complete"],
        "{events:?}"
    );
    assert_eq!(events[0].1["message"]["message_type"], "closing");
    assert_eq!(events[1].1["status"], "completed");
    let report = &events[2].1["report"];
    assert_eq!(report["questions_answered"], 0, "{report}");
    assert!(report.get("completion_reason").is_none(), "{report}");

    let mut calls = Vec::new();
    for _ in 0..200 {
        calls = hook.received_requests().await.unwrap_or_default();
        if !calls.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(calls.len(), 1, "one completion webhook");
    let v: serde_json::Value = serde_json::from_slice(&calls[0].body).unwrap();
    assert_eq!(v["event"], "interview.completed");
    assert_eq!(v["session_id"], s["id"]);
    assert_eq!(v["report"]["completion_reason"], "time_limit");
}

/// With `[realtime] admission_timeout_secs`, a socket that has not joined a session with a
/// valid token by then is closed; one that has stays.
#[actix_web::test]
async fn sockets_that_never_join_a_session_are_closed() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let app = app_with(|s| s.realtime.admission_timeout_secs = 1).await;
    let s = create(&app, json!({})).await;
    let mut joined = Sio::connect(&app).await;
    joined
        .emit("join_session", json!({"session_token": s["session_token"]}))
        .await;
    joined.next("session_joined").await;

    let base = app.interview.replacen("http://", "ws://", 1);
    let (mut stranger, _) =
        tokio_tungstenite::connect_async(format!("{base}/socket.io/?EIO=4&transport=websocket"))
            .await
            .expect("websocket");
    stranger.send(Message::text("40")).await.expect("send");
    stranger
        .send(Message::text(
            r#"42["join_session",{"session_token":"nope"}]"#,
        ))
        .await
        .expect("send");
    let closed = async {
        loop {
            match stranger.next().await {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                Some(Ok(_)) => {}
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(5), closed)
        .await
        .expect("a socket without a session is closed after the admission timeout");

    // The joined socket is still served.
    joined.emit("typing", json!({"is_typing": true})).await;
    joined
        .emit("join_session", json!({"session_token": s["session_token"]}))
        .await;
    assert_eq!(
        joined.next("session_joined").await["session"]["id"],
        s["id"]
    );
}
