//! A dealer's business hours: any of the seven days, each a text such as "09:00-18:00",
//! "9:00 AM - 6:00 PM" or "Closed" (the spec: "a text such as a time range or the word
//! Closed"), stored as written (trimmed; `closed` in any case reads `Closed`). What is not
//! text (a number, an object) or not a day is refused; a day left out stays unset.

use crate::services::marketplace::clock_text::MAX_CHARS;
use crate::services::marketplace::error::MarketplaceError;
use serde_json::{Map, Value};

/// The week in order, each with the field a fault is reported under.
const DAYS: [(&str, &str); 7] = [
    ("monday", "businessHours.monday"),
    ("tuesday", "businessHours.tuesday"),
    ("wednesday", "businessHours.wednesday"),
    ("thursday", "businessHours.thursday"),
    ("friday", "businessHours.friday"),
    ("saturday", "businessHours.saturday"),
    ("sunday", "businessHours.sunday"),
];

const CLOSED: &str = "Closed";

/// The days given, in week order, each with its text as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusinessHours(Vec<(&'static str, String)>);

impl BusinessHours {
    pub fn parse(raw: &Value) -> Result<Self, MarketplaceError> {
        let Some(object) = raw.as_object() else {
            return Err(MarketplaceError::invalid(
                "businessHours",
                &raw.to_string(),
                "businessHours must be an object with the keys monday to sunday",
            ));
        };
        if let Some(unknown) = object
            .keys()
            .find(|k| !DAYS.iter().any(|(day, _)| day == k))
        {
            return Err(MarketplaceError::invalid(
                "businessHours",
                unknown,
                format!("{unknown} is not a day (monday to sunday)"),
            ));
        }
        let days = DAYS
            .iter()
            .filter_map(|&(day, field)| match object.get(day)? {
                Value::Null => None,
                Value::String(text) => Some(day_hours(field, text).map(|h| (day, h))),
                other => Some(Err(MarketplaceError::invalid(
                    field,
                    &other.to_string(),
                    format!("{day} must be a text such as 09:00-18:00 or Closed"),
                ))),
            })
            .collect::<Result<_, _>>()?;
        Ok(Self(days))
    }

    pub fn to_json(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(day, h)| ((*day).to_owned(), Value::String(h.clone())))
                .collect::<Map<_, _>>(),
        )
    }
}

/// One day's text as stored: trimmed, `Closed` spelled one way.
fn day_hours(field: &'static str, raw: &str) -> Result<String, MarketplaceError> {
    let text = raw.trim();
    if text.eq_ignore_ascii_case(CLOSED) {
        return Ok(CLOSED.to_owned());
    }
    if text.is_empty() || text.chars().count() > MAX_CHARS {
        return Err(MarketplaceError::invalid(
            field,
            raw,
            format!("{field} must be 1 to {MAX_CHARS} characters, e.g. 09:00-18:00 or Closed"),
        ));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn week(monday: Value) -> Value {
        json!({"monday": monday, "tuesday": "09:00-18:00", "wednesday": "09:00-18:00",
               "thursday": "09:00-18:00", "friday": "09:00-18:00", "saturday": "10:00-14:00",
               "sunday": "closed"})
    }

    fn field_of(raw: Value) -> &'static str {
        match BusinessHours::parse(&raw) {
            Err(MarketplaceError::Validation { field, .. }) => field,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn a_week_is_kept_as_written() {
        let hours = BusinessHours::parse(&week(json!(" 9:00 AM - 6:00 PM "))).unwrap();
        let v = hours.to_json();
        assert_eq!(v["monday"], "9:00 AM - 6:00 PM");
        assert_eq!(v["sunday"], "Closed");
        let part = BusinessHours::parse(&json!({"monday": "24 hours", "friday": null})).unwrap();
        assert_eq!(part.to_json(), json!({"monday": "24 hours"}));
    }

    #[test]
    fn faults_name_the_day() {
        assert_eq!(field_of(week(json!(9))), "businessHours.monday");
        assert_eq!(field_of(week(json!({"open": "9"}))), "businessHours.monday");
        assert_eq!(field_of(week(json!(" "))), "businessHours.monday");
        assert_eq!(
            field_of(week(json!("x".repeat(101)))),
            "businessHours.monday"
        );
        let mut extra = week(json!("Closed"));
        extra["funday"] = json!("Closed");
        assert_eq!(field_of(extra), "businessHours");
        assert_eq!(field_of(json!(["monday"])), "businessHours");
    }
}
