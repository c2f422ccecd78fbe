//! VIN lookup through a vPIC compatible service (a fake one started here): its facts over
//! the built-in decoder's, and the built-in answer whenever the service fails.

use super::*;
use std::time::Duration;
use switchboard::services::marketplace::settings::VinProviderKind;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const VIN: &str = "2T1BURHE6KC123456";

async fn app_over(server: &MockServer) -> TestApp {
    let base = format!("{}/api/vehicles/", server.uri());
    app_with(move |s| {
        s.services.marketplace.vin.provider = VinProviderKind::Vpic;
        s.services.marketplace.vin.base_url = base;
        s.services.marketplace.vin.timeout_ms = 300;
    })
    .await
}

fn answer(row: Value) -> Value {
    json!({"Count": 1, "Message": "Results returned successfully", "SearchCriteria": format!("VIN:{VIN}"),
           "Results": [row]})
}

async fn lookup(app: &TestApp) -> Value {
    let admin = admin_token(app).await;
    assert_ok(
        get(app, &format!("/vin/lookup/{VIN}"), Some(&admin)).await,
        200,
    )
    .await
}

fn vpic_path() -> String {
    format!("/api/vehicles/DecodeVinValues/{VIN}")
}

#[actix_web::test]
async fn the_online_answer_is_laid_over_the_built_in_one() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(vpic_path()))
        .and(query_param("format", "json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer(json!({
            "Make": "TOYOTA", "Model": "Corolla", "ModelYear": "2019",
            "BodyClass": "Sedan/Saloon", "DisplacementL": "1.8", "EngineCylinders": "4",
            "FuelTypePrimary": "Gasoline", "FuelTypeSecondary": "",
            "TransmissionStyle": "Continuously Variable Transmission (CVT)",
            "Manufacturer": "", "ErrorCode": "0"
        }))))
        .expect(1)
        .mount(&server)
        .await;
    let app = app_over(&server).await;
    let v = lookup(&app).await;
    assert_eq!(v["source"], "vpic");
    assert_eq!(v["make"], "Toyota");
    assert_eq!(v["model"], "Corolla");
    assert_eq!(v["year"], 2019);
    assert_eq!(v["bodyType"], "Sedan");
    assert_eq!(v["engineType"], "1.8L 4-cylinder");
    assert_eq!(v["fuelType"], "Petrol");
    assert_eq!(v["transmission"], "Automatic");
    // What the service left empty comes from the built-in decoder.
    let offline = lookup(&app_builtin().await).await;
    assert_eq!(offline["source"], "offline");
    assert!(offline["model"].is_null());
    assert!(offline["manufacturer"].is_string(), "{offline}");
    for key in [
        "manufacturer",
        "wmi",
        "checkDigitValid",
        "country",
        "serial",
    ] {
        assert_eq!(v[key], offline[key], "{key}");
    }
}

async fn app_builtin() -> TestApp {
    app().await
}

#[actix_web::test]
async fn failures_of_the_service_fall_back_to_the_built_in_decoder() {
    let server = MockServer::start().await;
    let app = app_over(&server).await;
    let expected = lookup(&app_builtin().await).await;
    let cases = [
        ResponseTemplate::new(500).set_body_string("upstream down"),
        ResponseTemplate::new(200).set_body_string("<html>not json</html>"),
        ResponseTemplate::new(200).set_body_json(json!({"Count": 0, "Results": []})),
        ResponseTemplate::new(200).set_body_json(answer(json!({
            "Make": "", "Model": "", "ModelYear": "", "ErrorCode": "1"}))),
        // Slower than timeout_ms.
        ResponseTemplate::new(200)
            .set_body_json(answer(json!({"Make": "TOYOTA", "Model": "Corolla"})))
            .set_delay(Duration::from_secs(3)),
    ];
    for (i, response) in cases.into_iter().enumerate() {
        server.reset().await;
        Mock::given(method("GET"))
            .and(path(vpic_path()))
            .respond_with(response)
            .expect(1)
            .mount(&server)
            .await;
        let v = lookup(&app).await;
        assert_eq!(v, expected, "case {i}");
        server.verify().await;
    }
}

#[actix_web::test]
async fn invalid_vins_are_refused_before_the_service_is_asked() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(answer(json!({"Model": "X"}))))
        .expect(0)
        .mount(&server)
        .await;
    let app = app_over(&server).await;
    let admin = admin_token(&app).await;
    for vin in ["1M8GDM9AXKP04278", "1M8GDM9A1KP042788", "1M8GDM9AXKP04278O"] {
        let res = get(&app, &format!("/vin/lookup/{vin}"), Some(&admin)).await;
        assert_err(res, 400, "validation_error").await;
    }
}
