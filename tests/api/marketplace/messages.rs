//! Direct messages: every endpoint with its refusals, exact counts under concurrent
//! senders and readers, and the live events each user (and only that user) receives.

use super::*;
use crate::helpers::TestApp;
use crate::sio::Sio;
use reqwest::Method;
use std::time::Duration;

async fn send_msg(app: &TestApp, token: &str, to: &str, text: &str) -> Response {
    send(
        app,
        Method::POST,
        "/messages/send",
        token,
        Some(json!({"receiverId": to, "message": text})),
    )
    .await
}

async fn sent(app: &TestApp, token: &str, to: &str, text: &str) -> Value {
    assert_ok(send_msg(app, token, to, text).await, 201).await
}

async fn got(app: &TestApp, token: &str, path: &str) -> Value {
    assert_ok(get(app, path, Some(token)).await, 200).await
}

async fn put(app: &TestApp, token: &str, path: &str) -> Response {
    send(app, Method::PUT, path, token, None).await
}

async fn unread(app: &TestApp, token: &str) -> u64 {
    got(app, token, "/messages/unread-count").await["unreadCount"]
        .as_u64()
        .unwrap()
}

async fn unread_with(app: &TestApp, token: &str, other: &str) -> u64 {
    let path = format!("/messages/conversations/{other}/unread-count");
    got(app, token, &path).await["unreadCount"]
        .as_u64()
        .unwrap()
}

/// Every message between the caller and `other`, newest first.
async fn all_messages(app: &TestApp, token: &str, other: &str) -> Vec<Value> {
    let path = format!("/messages/conversations/{other}?limit=100");
    let res = get(app, &path, Some(token)).await;
    assert_eq!(res.status().as_u16(), 200);
    json_body(res).await["data"].as_array().unwrap().clone()
}

#[actix_web::test]
async fn two_users_exchange_messages_and_read_receipts() {
    let app = app().await;
    let (a, a_id) = user(&app).await;
    let (b, b_id) = user(&app).await;

    let m1 = sent(&app, &a, &b_id, "  Is the car still available?  ").await;
    assert_eq!(m1["message"], "Is the car still available?");
    assert_eq!(m1["senderId"], a_id.as_str());
    assert_eq!(m1["receiverId"], b_id.as_str());
    assert_eq!(m1["isRead"], false);
    assert_eq!(m1["sequence"], 1);
    app.advance(chrono::Duration::seconds(1));
    let m2 = sent(&app, &b, &a_id, "Yes, come by tomorrow").await;
    app.advance(chrono::Duration::seconds(1));
    let m3 = sent(&app, &a, &b_id, "Great, see you then").await;
    assert_eq!(
        (m2["sequence"].as_i64(), m3["sequence"].as_i64()),
        (Some(2), Some(3))
    );
    assert_eq!(m1["conversationId"], m3["conversationId"]);

    // Counts: B received two, A one.
    assert_eq!(unread(&app, &b).await, 2);
    assert_eq!(unread_with(&app, &b, &a_id).await, 2);
    assert_eq!(unread(&app, &a).await, 1);

    // The conversations list as B sees it.
    let list = assert_ok(get(&app, "/messages/conversations", Some(&b)).await, 200).await;
    let c = &list[0];
    assert_eq!(c["_id"], m1["conversationId"]);
    assert_eq!(c["participant"]["_id"], a_id.as_str());
    assert_eq!(c["participant"]["name"], "Ada Buyer");
    assert!(c["participant"].as_object().unwrap().contains_key("avatar"));
    assert_eq!(c["lastMessage"]["text"], "Great, see you then");
    assert_eq!(c["lastMessage"]["isRead"], false);
    assert_eq!(c["lastMessage"]["timestamp"], m3["timestamp"]);
    assert_eq!(c["unreadCount"], 2);

    // Messages: newest first, the same from both sides, paginated.
    let texts = |v: &[Value]| v.iter().map(|m| m["message"].clone()).collect::<Vec<_>>();
    let from_b = all_messages(&app, &b, &a_id).await;
    assert_eq!(
        texts(&from_b),
        [&m3, &m2, &m1].map(|m| m["message"].clone()).to_vec()
    );
    assert_eq!(texts(&all_messages(&app, &a, &b_id).await), texts(&from_b));
    let path = format!("/messages/conversations/{a_id}?page=2&limit=2");
    let res = get(&app, &path, Some(&b)).await;
    let page = json_body(res).await;
    assert_eq!(page["data"][0]["_id"], m1["_id"]);
    assert_eq!(page["pagination"]["totalItems"], 3);
    assert_eq!(page["pagination"]["hasPrevPage"], true);

    // One receipt: only the receiver, and again changes nothing.
    let read_path = format!("/messages/{}/read", m1["_id"].as_str().unwrap());
    assert_err(put(&app, &a, &read_path).await, 403, "not_receiver").await;
    app.advance(chrono::Duration::seconds(5));
    let read = assert_ok(put(&app, &b, &read_path).await, 200).await;
    assert_eq!(read["isRead"], true);
    app.advance(chrono::Duration::seconds(5));
    let again = assert_ok(put(&app, &b, &read_path).await, 200).await;
    assert_eq!(again["readAt"], read["readAt"]);
    assert_eq!(unread_with(&app, &b, &a_id).await, 1);

    // The whole conversation: B's count resets, A's stays.
    let path = format!("/messages/conversations/{a_id}/read");
    let marked = assert_ok(put(&app, &b, &path).await, 200).await;
    assert_eq!(marked["markedRead"], 1);
    assert_eq!(unread(&app, &b).await, 0);
    assert_eq!(unread_with(&app, &b, &a_id).await, 0);
    assert_eq!(unread(&app, &a).await, 1);
    let list = assert_ok(get(&app, "/messages/conversations", Some(&a)).await, 200).await;
    assert_eq!(list[0]["lastMessage"]["isRead"], true);
    assert_eq!(list[0]["unreadCount"], 1);
}

#[actix_web::test]
async fn sending_is_refused_with_reasons() {
    let app = app().await;
    let (a, a_id) = user(&app).await;
    let (_, b_id) = user(&app).await;
    let body = |over: Value| {
        let mut b = json!({"receiverId": b_id, "message": "hello"});
        for (k, v) in over.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    let cases = [
        (json!({"receiverId": null}), "receiverId"),
        (json!({"receiverId": "not-an-id"}), "receiverId"),
        (json!({"receiverId": a_id}), "receiverId"),
        (json!({"message": null}), "message"),
        (json!({"message": "   "}), "message"),
        (json!({"message": "x".repeat(2001)}), "message"),
    ];
    let cases = cases.map(|(over, field)| (body(over), field)).to_vec();
    assert_fields_refused(&app, "/messages/send", &a, cases).await;
    let nobody = "00000000-0000-0000-0000-000000000000";
    assert_err(
        send_msg(&app, &a, nobody, "hi").await,
        404,
        "user_not_found",
    )
    .await;
    assert_ok(send_msg(&app, &a, &b_id, &"é".repeat(2000)).await, 201).await;
    let res = post(&app, "/messages/send", body(json!({}))).await;
    assert_err(res, 401, "invalid_token").await;
    for path in [
        "/messages/conversations".to_owned(),
        "/messages/unread-count".to_owned(),
        format!("/messages/conversations/{b_id}"),
    ] {
        assert_err(get(&app, &path, None).await, 401, "invalid_token").await;
    }
}

#[actix_web::test]
async fn only_participants_see_a_conversation() {
    let app = app().await;
    let (a, a_id) = user(&app).await;
    let (_, b_id) = user(&app).await;
    let (c, _) = user(&app).await;
    let m = sent(&app, &a, &b_id, "private").await;
    let read_path = format!("/messages/{}/read", m["_id"].as_str().unwrap());
    assert_err(put(&app, &c, &read_path).await, 404, "message_not_found").await;
    assert_err(
        put(&app, &c, "/messages/nope/read").await,
        404,
        "message_not_found",
    )
    .await;
    // C's view of "the conversation with A" is C's own, empty one.
    assert!(all_messages(&app, &c, &a_id).await.is_empty());
    assert_eq!(unread(&app, &c).await, 0);
    let list = assert_ok(get(&app, "/messages/conversations", Some(&c)).await, 200).await;
    assert_eq!(list, json!([]));
    let nobody = "00000000-0000-0000-0000-000000000000";
    for path in [
        format!("/messages/conversations/{nobody}"),
        format!("/messages/conversations/{nobody}/unread-count"),
        "/messages/conversations/not-an-id".to_owned(),
    ] {
        assert_err(get(&app, &path, Some(&c)).await, 404, "user_not_found").await;
    }
    let path = format!("/messages/conversations/{nobody}/read");
    assert_err(put(&app, &c, &path).await, 404, "user_not_found").await;
}

/// A new pair's first messages, sent at once from several tabs of both users, open one
/// conversation between them: every send is accepted (on PostgreSQL two uncommitted first
/// inserts of the same conversation used to collide on its id and answer 500).
#[actix_web::test]
async fn first_messages_sent_at_once_open_one_conversation() {
    let app = app().await;
    const PAIRS: usize = 12;
    const TABS: usize = 6;
    let mut pairs = Vec::new();
    for _ in 0..PAIRS {
        pairs.push((user(&app).await, user(&app).await));
    }
    let mut sends = Vec::new();
    for ((a, a_id), (b, b_id)) in &pairs {
        for tab in 0..TABS {
            let (from, to) = if tab % 2 == 0 { (a, b_id) } else { (b, a_id) };
            let app = &app;
            sends.push(async move { sent(app, from, to, &format!("first from tab {tab}")).await });
        }
    }
    let sent_all = futures_util::future::join_all(sends).await;
    assert_eq!(sent_all.len(), PAIRS * TABS);
    for ((a, _), (_, b_id)) in &pairs {
        let list = got(&app, a, "/messages/conversations").await;
        assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
        let msgs = all_messages(&app, a, b_id).await;
        let mut seqs: Vec<i64> = msgs
            .iter()
            .map(|m| m["sequence"].as_i64().unwrap())
            .collect();
        seqs.sort_unstable();
        assert_eq!(seqs, (1..=TABS as i64).collect::<Vec<_>>());
    }
}

#[actix_web::test]
async fn counts_stay_exact_when_both_send_and_read_from_several_tabs() {
    let app = app().await;
    let (a, a_id) = user(&app).await;
    let (b, b_id) = user(&app).await;
    const TABS: usize = 3;
    const EACH: usize = 8;
    // Both users send from three tabs at once.
    let mut sends = Vec::new();
    for tab in 0..TABS {
        for (from, to) in [(&a, &b_id), (&b, &a_id)] {
            let app = &app;
            sends.push(async move {
                for i in 0..EACH {
                    sent(app, from, to, &format!("tab {tab} message {i}")).await;
                }
            });
        }
    }
    futures_util::future::join_all(sends).await;
    let per_side = (TABS * EACH) as u64;
    assert_eq!(unread(&app, &a).await, per_side);
    assert_eq!(unread(&app, &b).await, per_side);
    let msgs = all_messages(&app, &a, &b_id).await;
    let mut seqs: Vec<i64> = msgs
        .iter()
        .map(|m| m["sequence"].as_i64().unwrap())
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=2 * per_side as i64).collect::<Vec<_>>());

    // A reads (everything, and single messages) from tabs while B keeps sending.
    let to_a: Vec<String> = msgs
        .iter()
        .filter(|m| m["receiverId"] == a_id.as_str())
        .map(|m| m["_id"].as_str().unwrap().to_owned())
        .collect();
    let read_all = format!("/messages/conversations/{b_id}/read");
    let mut work = Vec::new();
    for tab in 0..TABS {
        let (app, a, b, a_id, read_all, to_a) = (&app, &a, &b, &a_id, &read_all, &to_a);
        work.push(Box::pin(async move {
            for id in to_a.iter().skip(tab).step_by(TABS) {
                assert_ok(put(app, a, &format!("/messages/{id}/read")).await, 200).await;
            }
            assert_ok(put(app, a, read_all).await, 200).await;
        })
            as std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>);
        work.push(Box::pin(async move {
            for i in 0..EACH {
                sent(app, b, a_id, &format!("late {tab} {i}")).await;
            }
        }));
    }
    futures_util::future::join_all(work).await;
    let msgs = all_messages(&app, &a, &b_id).await;
    let unread_listed = msgs
        .iter()
        .filter(|m| m["receiverId"] == a_id.as_str() && m["isRead"] == false)
        .count() as u64;
    assert_eq!(unread(&app, &a).await, unread_listed);
    assert_eq!(unread_with(&app, &a, &b_id).await, unread_listed);
    let list = assert_ok(get(&app, "/messages/conversations", Some(&a)).await, 200).await;
    assert_eq!(list[0]["unreadCount"], unread_listed);
    // Every early message is read, and the last read-all left at most the late ones.
    assert!(msgs
        .iter()
        .filter(|m| to_a.contains(&m["_id"].as_str().unwrap().to_owned()))
        .all(|m| m["isRead"] == true));
    assert!(unread_listed <= (TABS * EACH) as u64);
    assert_eq!(msgs.len() as u64, 3 * per_side);
    assert_eq!(unread(&app, &b).await, per_side);
}

/// A socket of the marketplace signed in with `token`.
async fn live(app: &TestApp, token: &str) -> Sio {
    Sio::open(&app.marketplace, json!({"token": token}))
        .await
        .expect("connected")
}

#[actix_web::test]
async fn sockets_need_a_valid_access_token() {
    let app = app().await;
    let (a, a_id) = user(&app).await;
    let (b, _) = user(&app).await;
    for auth in [json!({}), json!({"token": "nope"}), json!({"token": 7})] {
        let refused = Sio::open(&app.marketplace, auth).await.err().unwrap();
        assert!(refused["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let mut s = live(&app, &a).await;
    // The access token lives 24 hours: a minute before, the socket is still served...
    app.advance(chrono::Duration::hours(24) - chrono::Duration::minutes(1));
    let m = sent(&app, &b, &a_id, "still there?").await;
    assert_eq!(s.next("new_message").await["messageId"], m["_id"]);
    // ...and past them it is closed and refused again.
    app.advance(chrono::Duration::minutes(1) + chrono::Duration::seconds(1));
    s.closed_within(Duration::from_secs(5)).await;
    let refused = Sio::open(&app.marketplace, json!({"token": a})).await;
    assert!(refused.err().unwrap()["message"].is_string());
}

#[actix_web::test]
async fn events_reach_exactly_their_audience_on_every_tab() {
    let app = app().await;
    let (a, a_id) = user(&app).await;
    let (b, b_id) = user(&app).await;
    let (c, _) = user(&app).await;
    let (mut a1, mut a2) = (live(&app, &a).await, live(&app, &a).await);
    let (mut b1, mut b2) = (live(&app, &b).await, live(&app, &b).await);
    let mut c1 = live(&app, &c).await;

    // Each socket's next event is checked with `next`: a duplicate, or a socket hearing its
    // own account's message, shows up as the wrong next event or breaks the silence below.
    let m = sent(&app, &a, &b_id, "hello B").await;
    for s in [&mut b1, &mut b2] {
        let e = s.next("new_message").await;
        assert_eq!(e["senderId"], a_id.as_str());
        assert_eq!(e["message"], "hello B");
        assert_eq!(e["timestamp"], m["timestamp"]);
        assert_eq!(e["messageId"], m["_id"]);
    }
    let path = format!("/messages/{}/read", m["_id"].as_str().unwrap());
    let read = assert_ok(put(&app, &b, &path).await, 200).await;
    for s in [&mut a1, &mut a2] {
        let e = s.next("message_read").await;
        assert_eq!(e["messageId"], m["_id"]);
        assert_eq!(e["readAt"], read["readAt"]);
    }
    // Reading it again announces nothing; the sender hears no new_message of its own.
    assert_ok(put(&app, &b, &path).await, 200).await;
    let reply = sent(&app, &b, &a_id, "hi A").await;
    for s in [&mut a1, &mut a2] {
        assert_eq!(s.next("new_message").await["messageId"], reply["_id"]);
    }
    // Nothing more for anyone, and never anything for the third user.
    for s in [&mut a1, &mut a2, &mut b1, &mut b2, &mut c1] {
        s.silent_for(Duration::from_millis(300)).await;
    }
}

#[actix_web::test]
async fn car_owners_hear_views_and_dealers_hear_inquiries() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, dealer_id) = dealer(&app, &admin).await;
    let car = create_car(&app, &dealer_token, json!({})).await;
    let car_id = car["_id"].as_str().unwrap().to_owned();
    let (customer, customer_id) = user(&app).await;
    let mut owner = live(&app, &dealer_token).await;
    let mut bystander = live(&app, &customer).await;

    let path = format!("/cars/{car_id}/views");
    assert_ok(send(&app, Method::POST, &path, &customer, None).await, 200).await;
    let e = owner.next("car_viewed").await;
    assert_eq!(e, json!({"carId": car_id, "viewCount": 1}));

    let body = json!({"carId": car_id, "dealerId": dealer_id,
        "message": "Is the price negotiable?", "contactMethod": "whatsapp"});
    let res = send(
        &app,
        Method::POST,
        "/customers/inquiries",
        &customer,
        Some(body),
    )
    .await;
    let inquiry = assert_ok(res, 201).await;
    let e = owner.next("new_inquiry").await;
    assert_eq!(e["inquiryId"], inquiry["_id"]);
    assert_eq!(e["carId"], car_id.as_str());
    assert_eq!(e["customerId"], customer_id.as_str());
    assert_eq!(e["message"], "Is the price negotiable?");
    for s in [&mut owner, &mut bystander] {
        s.silent_for(Duration::from_millis(300)).await;
    }
}

#[actix_web::test]
async fn socket_transport_requests_do_not_spend_the_general_limit() {
    let app = app_with(|s| s.services.marketplace.rate_limits.general.limit = 2).await;
    for _ in 0..5 {
        let res = reqwest::get(format!(
            "{}/socket.io/?EIO=4&transport=polling",
            app.marketplace
        ))
        .await
        .unwrap();
        assert_eq!(res.status().as_u16(), 200);
    }
}

#[actix_web::test]
async fn the_operations_are_unique_and_their_links_work() {
    let app = app().await;
    let doc = json_body(get(&app, "/api-docs/openapi.json", None).await).await;
    assert!(doc["paths"]["/messages/send"]["post"]["responses"]["201"]["links"].is_object());
    // Send's four links, a new car's and a new comment's.
    assert!(crate::helpers::assert_operations_and_links_consistent(&doc) >= 4);
}
