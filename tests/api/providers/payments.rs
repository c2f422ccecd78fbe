//! The Stripe adapter of the payments port against a fake Checkout Sessions API.

use crate::advertising::{app_with, data, payments, post, refused};
use crate::helpers::TestApp;
use serde_json::{json, Value};
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The advertising platform on the Stripe adapter at `stripe`, an advertiser's token and
/// the create-checkout body for an unfunded ad of theirs.
async fn on_stripe(stripe: &MockServer, key: &str) -> (TestApp, String, Value) {
    let (uri, key) = (stripe.uri(), key.to_owned());
    let app = app_with(|s| {
        s.providers.payments.provider = "stripe".into();
        s.providers.payments.base_url = uri;
        s.providers.payments.secret_key = key;
    })
    .await;
    let (token, me) = payments::advertiser(&app).await;
    let ad_id = payments::campaign(&app, me, "Striped").await;
    let body = json!({"adId": ad_id, "successUrl": "https://shop.example.com/ok",
                      "cancelUrl": "https://shop.example.com/no"});
    (app, token, body)
}

#[actix_web::test]
async fn checkout_sessions_go_through_the_stripe_adapter() {
    let stripe = MockServer::start().await;
    let field = |k: &str, v: &str| body_string_contains(format!("{k}={v}"));
    Mock::given(method("POST"))
        .and(path("/v1/checkout/sessions"))
        .and(header("authorization", "Bearer sk_test_123"))
        .and(header("content-type", "application/x-www-form-urlencoded"))
        .and(field("mode", "payment"))
        .and(field(
            "line_items%5B0%5D%5Bprice_data%5D%5Bcurrency%5D",
            "usd",
        ))
        .and(field(
            "line_items%5B0%5D%5Bprice_data%5D%5Bunit_amount%5D",
            "5000",
        ))
        .and(field("line_items%5B0%5D%5Bquantity%5D", "1"))
        .and(field(
            "line_items%5B0%5D%5Bprice_data%5D%5Bproduct_data%5D%5Bname%5D",
            "Ad+budget%3A+Striped",
        ))
        .and(field("success_url", "https%3A%2F%2Fshop.example.com%2Fok"))
        .and(field("cancel_url", "https%3A%2F%2Fshop.example.com%2Fno"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "cs_test_a1", "object": "checkout.session",
            "url": "https://checkout.stripe.com/c/pay/cs_test_a1"
        })))
        .expect(1)
        .mount(&stripe)
        .await;
    let (app, token, body) = on_stripe(&stripe, "sk_test_123").await;
    let c = data(
        post(
            &app,
            "/api/campaign-payments/create-checkout",
            Some(&token),
            body,
        )
        .await,
    )
    .await;
    assert_eq!(c["sessionId"], "cs_test_a1");
    assert_eq!(c["url"], "https://checkout.stripe.com/c/pay/cs_test_a1");
    let requests = stripe.received_requests().await.unwrap();
    let sent = String::from_utf8_lossy(&requests[0].body).to_string();
    let pid = c["paymentId"].as_str().unwrap();
    assert!(
        sent.contains(&format!("client_reference_id={pid}")),
        "{sent}"
    );
    assert!(
        sent.contains(&format!("metadata%5Bpayment_id%5D={pid}")),
        "{sent}"
    );
    assert_eq!(
        requests[0].headers["idempotency-key"],
        format!("checkout-{pid}").as_str()
    );
    // No sandbox page while Stripe is the provider.
    let sandbox = format!(
        "{}/api/campaign-payments/sandbox/cs_test_a1",
        app.advertising
    );
    assert_eq!(app.client.get(sandbox).send().await.unwrap().status(), 404);
}

#[actix_web::test]
async fn a_stripe_refusal_frees_the_ad_for_another_try() {
    let stripe = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"message": "Invalid API Key"}})),
        )
        .expect(2)
        .mount(&stripe)
        .await;
    let (app, token, body) = on_stripe(&stripe, "sk_bad").await;
    for _ in 0..2 {
        let res = post(
            &app,
            "/api/campaign-payments/create-checkout",
            Some(&token),
            body.clone(),
        )
        .await;
        refused(res, 503, "payment_provider_unavailable").await;
    }
}
