//! VIN lookup: dealers and administrators only; the offline decoder's answer in the spec's
//! VIN result; each fault of a bad VIN named.

use super::*;
use crate::helpers::phone;

#[actix_web::test]
async fn a_dealer_or_admin_decodes_a_vin_and_bad_vins_are_named() {
    let app = app().await;
    let path = "/vin/lookup/1M8GDM9AXKP042788";
    assert_err(get(&app, path, None).await, 401, "invalid_token").await;
    let user = signup(&app, &phone(), "secret1").await;
    let user = user["token"].as_str().unwrap();
    assert_err(get(&app, path, Some(user)).await, 403, "forbidden").await;

    let admin = admin_token(&app).await;
    // The worked example of 49 CFR 565: check digit X, model year 1989.
    let v = assert_ok(get(&app, path, Some(&admin)).await, 200).await;
    assert_eq!(v["vin"], "1M8GDM9AXKP042788");
    assert_eq!(v["year"], 1989);
    assert_eq!(v["checkDigitValid"], true);
    assert!(v["model"].is_null(), "a VIN does not encode the model: {v}");
    // A maker the decoder does not know: every fact it cannot read is there, as null.
    for key in [
        "make",
        "bodyType",
        "engineType",
        "transmission",
        "fuelType",
        "manufacturer",
    ] {
        assert_eq!(v.get(key), Some(&Value::Null), "{key}: {v}");
    }
    // A maker whose coding is published: its facts, read from the VIN.
    let tesla = "/vin/lookup/5YJ3E1EB8PF000001";
    let v = assert_ok(get(&app, tesla, Some(&admin)).await, 200).await;
    for (key, value) in [
        ("make", json!("Tesla")),
        ("year", json!(2023)),
        ("bodyType", json!("Sedan, 4-door")),
        ("engineType", json!("Dual motor")),
        ("transmission", Value::Null),
        ("fuelType", json!("Electric")),
        ("country", json!("United States")),
        ("checkDigitValid", json!(true)),
    ] {
        assert_eq!(v.get(key), Some(&value), "{key}: {v}");
    }
    assert!(
        v["manufacturer"]
            .as_str()
            .is_some_and(|m| m.contains("Tesla")),
        "{v}"
    );
    // Lower case and spaces around are accepted.
    let v = assert_ok(
        get(&app, "/vin/lookup/%201m8gdm9axkp042788%20", Some(&admin)).await,
        200,
    )
    .await;
    assert_eq!(v["vin"], "1M8GDM9AXKP042788");

    for (vin, why) in [
        ("1M8GDM9AXKP04278", "17"),
        ("1M8GDM9AXKP04278O", "O"),
        ("1M8GDM9A1KP042788", "check digit"),
    ] {
        let res = get(&app, &format!("/vin/lookup/{vin}"), Some(&admin)).await;
        let e = assert_err(res, 400, "validation_error").await;
        assert_eq!(e["details"]["field"], "vin", "{e}");
        assert_eq!(e["details"]["value"], vin, "{e}");
        assert!(e["message"].as_str().unwrap().contains(why), "{vin}: {e}");
    }
}
