//! A dealer's business hours: all seven days, each `HH:MM-HH:MM` (24-hour clock, opening
//! before closing, `24:00` allowed as a closing time) or `Closed`. A range past midnight
//! ("22:00-02:00") is refused: a day's hours end by its midnight, and the next day opens at
//! 00:00 if the business runs through the night.

use super::error::MarketplaceError;
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

/// Seven parsed days, in week order, each stored as its normalised text.
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
            .map(|&(day, field)| match object.get(day) {
                Some(Value::String(text)) => day_hours(field, text).map(|h| (day, h)),
                Some(other) => Err(MarketplaceError::invalid(
                    field,
                    &other.to_string(),
                    format!("{day} must be a text such as 09:00-18:00 or Closed"),
                )),
                None => Err(MarketplaceError::Validation {
                    field,
                    value: None,
                    message: format!("{day} is required (a time range or Closed)"),
                }),
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

/// One day: `Closed` (any case) or an opening range, answered normalised.
fn day_hours(field: &'static str, raw: &str) -> Result<String, MarketplaceError> {
    let text = raw.trim();
    if text.eq_ignore_ascii_case(CLOSED) {
        return Ok(CLOSED.to_owned());
    }
    let range = text
        .split_once('-')
        .and_then(|(open, close)| Some((minutes(open.trim())?, minutes(close.trim())?)));
    match range {
        Some((open, close)) if open < close => Ok(format!("{}-{}", clock(open), clock(close))),
        Some(_) => Err(MarketplaceError::invalid(
            field,
            raw,
            format!("{field}: opening must be before closing (no range past midnight)"),
        )),
        None => Err(MarketplaceError::invalid(
            field,
            raw,
            format!("{field} must be HH:MM-HH:MM (24-hour clock) or Closed"),
        )),
    }
}

/// Minutes since midnight of `HH:MM`; 24:00 is the end of the day.
fn minutes(hhmm: &str) -> Option<u32> {
    let (h, m) = hhmm.split_once(':')?;
    if h.len() != 2 || m.len() != 2 || !(h.chars().chain(m.chars())).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    match (h, m) {
        (24, 0) => Some(24 * 60),
        (0..=23, 0..=59) => Some(h * 60 + m),
        _ => None,
    }
}

fn clock(minutes: u32) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
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
    fn a_week_is_normalised() {
        let hours = BusinessHours::parse(&week(json!(" 00:00 - 24:00 "))).unwrap();
        let v = hours.to_json();
        assert_eq!(v["monday"], "00:00-24:00");
        assert_eq!(v["sunday"], "Closed");
    }

    #[test]
    fn faults_name_the_day() {
        assert_eq!(field_of(week(json!("18:00-09:00"))), "businessHours.monday");
        assert_eq!(field_of(week(json!("22:00-02:00"))), "businessHours.monday");
        assert_eq!(field_of(week(json!("9:00-18:00"))), "businessHours.monday");
        assert_eq!(field_of(week(json!("09:60-18:00"))), "businessHours.monday");
        assert_eq!(field_of(week(json!("24:30-24:40"))), "businessHours.monday");
        assert_eq!(field_of(week(json!(9))), "businessHours.monday");
        let mut missing = week(json!("Closed"));
        missing.as_object_mut().unwrap().remove("friday");
        assert_eq!(field_of(missing), "businessHours.friday");
        let mut extra = week(json!("Closed"));
        extra["funday"] = json!("Closed");
        assert_eq!(field_of(extra), "businessHours");
        assert_eq!(field_of(json!(["monday"])), "businessHours");
    }
}
