//! Clock text as people write it: the spec types a test drive's `preferredTime` (and
//! business hours) as text, so the text is what is stored; a time is read from it when it
//! holds one ("14:30", "9:30", "14:30:00", "2:30 PM", "2pm").

use chrono::NaiveTime;

/// Longest clock text kept (a test drive's time, one day of business hours).
pub const MAX_CHARS: usize = 100;

/// The time `text` names, if it is one clock reading: 24-hour `H:MM` or `H:MM:SS`, or
/// 12-hour `H[:MM[:SS]]` followed by AM or PM (any case, dots and spaces allowed).
pub fn read_clock(text: &str) -> Option<NaiveTime> {
    let lower = text.trim().to_ascii_lowercase().replace('.', "");
    let (digits, pm) = match lower.strip_suffix("am") {
        Some(rest) => (rest.trim_end(), Some(false)),
        None => match lower.strip_suffix("pm") {
            Some(rest) => (rest.trim_end(), Some(true)),
            None => (lower.as_str(), None),
        },
    };
    let mut parts = digits.split(':');
    let hour = number(parts.next()?, 2)?;
    let minute = parts.next().map_or(Some(0), exact)?;
    let second = parts.next().map_or(Some(0), exact)?;
    if parts.next().is_some() || (pm.is_none() && !digits.contains(':')) {
        return None;
    }
    let hour = match pm {
        None => hour,
        Some(_) if !(1..=12).contains(&hour) => return None,
        Some(false) => hour % 12,
        Some(true) => hour % 12 + 12,
    };
    NaiveTime::from_hms_opt(hour, minute, second)
}

/// Up to `max` digits.
fn number(text: &str, max: usize) -> Option<u32> {
    (!text.is_empty() && text.len() <= max && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// Exactly two digits (minutes, seconds).
fn exact(text: &str) -> Option<u32> {
    (text.len() == 2).then(|| number(text, 2)).flatten()
}

/// `HH:MM`, 24-hour.
pub fn hhmm(t: NaiveTime) -> String {
    t.format("%H:%M").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: u32, m: u32) -> Option<NaiveTime> {
        NaiveTime::from_hms_opt(h, m, 0)
    }

    #[test]
    fn clocks_are_read_as_people_write_them() {
        assert_eq!(read_clock("14:30"), at(14, 30));
        assert_eq!(read_clock("9:30"), at(9, 30));
        assert_eq!(read_clock("14:30:00"), at(14, 30));
        assert_eq!(read_clock("2:30 PM"), at(14, 30));
        assert_eq!(read_clock("2pm"), at(14, 0));
        assert_eq!(read_clock("12:15 a.m."), at(0, 15));
        assert_eq!(read_clock("12 PM"), at(12, 0));
        for no in [
            "25:00",
            "9",
            "13 PM",
            "9:5",
            "soon",
            "",
            "9:30:00:00",
            "0 AM",
        ] {
            assert_eq!(read_clock(no), None, "{no}");
        }
    }
}
