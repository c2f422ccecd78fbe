//! Credits: stored as hundredths, shown as a number of credits, parsed from operators' text.

use serde_json::Value;

/// Credits as the API shows them: a JSON number, whole when it is whole (3, 0.1, 12.34).
pub fn credits_value(hundredths: i64) -> Value {
    if hundredths % 100 == 0 {
        Value::from(hundredths / 100)
    } else {
        serde_json::Number::from_f64(hundredths as f64 / 100.0)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

/// "3", "0.1", "12.34" for messages.
pub fn credits_text(hundredths: i64) -> String {
    credits_value(hundredths).to_string()
}

/// Parses a credit amount with at most two decimals into hundredths.
pub fn parse_credits(s: &str) -> Option<i64> {
    let s = s.trim();
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() && frac.is_empty()
        || frac.len() > 2
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac: i64 = format!("{frac:0<2}").parse().ok()?;
    whole.checked_mul(100)?.checked_add(frac)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn credits() {
        assert_eq!(credits_value(300), json!(3));
        assert_eq!(credits_value(10), json!(0.1));
        assert_eq!(credits_value(1234), json!(12.34));
        assert_eq!(parse_credits("12.5"), Some(1250));
        assert_eq!(parse_credits("0.01"), Some(1));
        assert_eq!(parse_credits("7"), Some(700));
        assert_eq!(parse_credits("1.234"), None);
        assert_eq!(parse_credits("-1"), None);
        assert_eq!(parse_credits("."), None);
    }
}
