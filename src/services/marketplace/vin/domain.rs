//! Vehicle identification numbers (ISO 3779, 49 CFR 565), decoded offline: a [`Vin`] is a
//! 17-character VIN with legal characters, a correct check digit where the law requires one
//! and a known model-year code where the law defines one; [`Vin::decode`] says what it tells.

use crate::services::marketplace::vin::{vds, wmi};
use serde::Serialize;

/// Position weights of the check-digit sum, 49 CFR 565.15(c) (position 9 weighs 0).
const WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

/// Model-year codes of position 10 in the order of the 30-year cycle from 1980.
const YEAR_CODES: &[u8; 30] = b"ABCDEFGHJKLMNPRSTVWXY123456789";

/// Why a text is not a VIN. Each variant names the fault; [`VinError::message`] is the
/// sentence a `validation_error` can carry, [`VinError::field`] the request field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VinError {
    #[error("VIN must be 17 characters, got {0}")]
    Length(usize),
    #[error("VIN character {position} is '{character}': letters I, O and Q are not used")]
    ConfusableLetter { position: usize, character: char },
    #[error("VIN character {position} is '{character}': only A-Z and 0-9 are allowed")]
    InvalidCharacter { position: usize, character: char },
    #[error("VIN check digit (character 9) is '{got}', expected '{expected}'")]
    CheckDigit { expected: char, got: char },
    #[error("VIN character 10 is '{0}', which is no model-year code")]
    UnknownYearCode(char),
}

impl VinError {
    /// The request field at fault.
    pub fn field(&self) -> &'static str {
        "vin"
    }

    /// A stable code per fault, for clients that branch on it.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Length(_) => "vin_length",
            Self::ConfusableLetter { .. } | Self::InvalidCharacter { .. } => "vin_character",
            Self::CheckDigit { .. } => "vin_check_digit",
            Self::UnknownYearCode(_) => "vin_year_code",
        }
    }

    pub fn message(&self) -> String {
        self.to_string()
    }
}

/// A VIN: 17 upper-case characters from A-Z and 0-9 without I, O and Q.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Vin(String);

impl Vin {
    /// Trims and upper-cases `raw`. The check digit and the model-year code are enforced for
    /// North-American VINs (first character 1-5 or 7F-70), where 49 CFR 565 makes them
    /// mandatory; elsewhere position 9 and 10 are often fillers, so a mismatch there is
    /// reported by [`Decoded::check_digit_valid`] and a `None` year instead of an error.
    pub fn parse(raw: &str) -> Result<Self, VinError> {
        let vin = raw.trim().to_ascii_uppercase();
        let count = vin.chars().count();
        if count != 17 {
            return Err(VinError::Length(count));
        }
        for (index, character) in vin.chars().enumerate() {
            let position = index + 1;
            if matches!(character, 'I' | 'O' | 'Q') {
                return Err(VinError::ConfusableLetter {
                    position,
                    character,
                });
            }
            if !character.is_ascii_uppercase() && !character.is_ascii_digit() {
                return Err(VinError::InvalidCharacter {
                    position,
                    character,
                });
            }
        }
        let vin = Self(vin);
        if vin.is_north_american() {
            let expected = vin.expected_check_digit();
            let got = vin.char_at(9);
            if expected != got {
                return Err(VinError::CheckDigit { expected, got });
            }
            let code = vin.char_at(10);
            if year_offset(code).is_none() {
                return Err(VinError::UnknownYearCode(code));
            }
        }
        Ok(vin)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The character at 1-based `position` (1..=17; the string is 17 ASCII characters).
    pub(super) fn char_at(&self, position: usize) -> char {
        self.0
            .as_bytes()
            .get(position - 1)
            .map_or(' ', |&b| b as char)
    }

    fn slice(&self, from: usize, to: usize) -> &str {
        self.0.get(from - 1..to).unwrap_or_default()
    }

    /// Assigned under SAE J272 to the United States, Canada and Mexico.
    fn is_north_american(&self) -> bool {
        wmi::region(self.char_at(1), self.char_at(2)) == wmi::NORTH_AMERICA
    }

    /// Check digit per 49 CFR 565.15(c): transliterate, weigh, sum modulo 11, 10 is `X`.
    pub fn expected_check_digit(&self) -> char {
        let sum: u32 = self
            .0
            .chars()
            .zip(WEIGHTS)
            .map(|(c, weight)| transliterate(c) * weight)
            .sum();
        match sum % 11 {
            10 => 'X',
            digit => char::from_digit(digit, 10).unwrap_or('X'),
        }
    }

    pub fn check_digit_valid(&self) -> bool {
        self.expected_check_digit() == self.char_at(9)
    }

    /// Small manufacturers (under 1,000 vehicles a year) have a 9 in position 3; their
    /// identifier goes on in positions 12-14 (49 CFR 565.15(a)).
    fn is_small_manufacturer(&self) -> bool {
        self.char_at(3) == '9'
    }

    /// World manufacturer identifier: positions 1-3, or 1-3 and 12-14 for a small maker.
    pub fn wmi(&self) -> String {
        if self.is_small_manufacturer() {
            format!("{}{}", self.slice(1, 3), self.slice(12, 14))
        } else {
            self.slice(1, 3).to_owned()
        }
    }

    /// Model year from position 10 (49 CFR 565.15(a)). The codes repeat every 30 years;
    /// in North America position 7 picks the cycle (a letter: 2010-2039, a digit:
    /// 1980-2009). A year after `latest` (the newest model year on sale, this year + 1)
    /// falls back to the earlier cycle. Elsewhere position 7 follows no such rule, so the
    /// latest year not after `latest` is taken; a non-code character gives `None`.
    pub fn model_year(&self, latest: i32) -> Option<i32> {
        let earlier = 1980 + year_offset(self.char_at(10))?;
        let later = earlier + 30;
        let preferred = if self.is_north_american() && self.char_at(7).is_ascii_digit() {
            earlier
        } else {
            later
        };
        Some(if preferred > latest {
            earlier
        } else {
            preferred
        })
    }

    /// What the VIN says, with the model year bounded by `current_year` + 1.
    pub fn decode(&self, current_year: i32) -> Decoded {
        let wmi = self.wmi();
        let known = wmi::lookup(&wmi);
        let (first, second) = (self.char_at(1), self.char_at(2));
        let make = known.and_then(|m| m.make);
        let vds = vds::describe(make, |position| self.char_at(position));
        Decoded {
            vin: self.0.clone(),
            manufacturer: known.map(|m| m.manufacturer),
            make,
            country: known
                .map(|m| m.country)
                .or_else(|| wmi::country(first, second)),
            region: wmi::region(first, second),
            model_year: self.model_year(current_year + 1),
            check_digit_valid: self.check_digit_valid(),
            plant_code: self.char_at(11).to_string(),
            serial: if self.is_small_manufacturer() {
                self.slice(15, 17)
            } else {
                self.slice(12, 17)
            }
            .to_owned(),
            model: vds.model,
            body: vds.body,
            engine: vds.engine,
            transmission: vds.transmission,
            fuel_type: vds.fuel_type,
            wmi,
        }
    }
}

impl std::fmt::Display for Vin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Years after 1980 of a model-year code.
fn year_offset(code: char) -> Option<i32> {
    let offset = YEAR_CODES.iter().position(|&c| c as char == code)?;
    i32::try_from(offset).ok()
}

/// Values of 49 CFR 565.15(c) table I; digits stand for themselves.
fn transliterate(c: char) -> u32 {
    match c {
        'A' | 'J' => 1,
        'B' | 'K' | 'S' => 2,
        'C' | 'L' | 'T' => 3,
        'D' | 'M' | 'U' => 4,
        'E' | 'N' | 'V' => 5,
        'F' | 'W' => 6,
        'G' | 'P' | 'X' => 7,
        'H' | 'Y' => 8,
        'R' | 'Z' => 9,
        digit => digit.to_digit(10).unwrap_or(0),
    }
}

/// What a VIN tells, as a listing shows it. `None` where the VIN does not say it in a
/// documented way: nothing here is guessed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decoded {
    pub vin: String,
    pub wmi: String,
    pub manufacturer: Option<&'static str>,
    /// `None` where one identifier serves several brands (e.g. Chrysler, Dodge and Jeep).
    pub make: Option<&'static str>,
    /// The country the identifier is assigned to (not always the assembly plant's).
    pub country: Option<&'static str>,
    pub region: &'static str,
    pub model_year: Option<i32>,
    pub check_digit_valid: bool,
    /// Position 11, the manufacturer's own plant code.
    pub plant_code: String,
    /// Positions 12-17 (15-17 for a small manufacturer, whose 12-14 are identifier).
    pub serial: String,
    /// Only where the maker publishes how its VIN codes the model (Tesla).
    pub model: Option<&'static str>,
    pub body: Option<&'static str>,
    pub engine: Option<&'static str>,
    pub transmission: Option<&'static str>,
    pub fuel_type: Option<&'static str>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The worked example of 49 CFR 565.15(c).
    const CFR_EXAMPLE: &str = "1M8GDM9AXKP042788";

    #[test]
    fn the_regulations_worked_example_has_check_digit_x() {
        let vin = Vin::parse(CFR_EXAMPLE).unwrap();
        assert_eq!(vin.expected_check_digit(), 'X');
        let decoded = vin.decode(2026);
        assert!(decoded.check_digit_valid);
        assert_eq!(decoded.wmi, "1M8");
        assert_eq!(decoded.model_year, Some(1989));
        assert_eq!(decoded.plant_code, "P");
        assert_eq!(decoded.serial, "042788");
        assert_eq!(decoded.region, "North America");
        assert_eq!(decoded.country, Some("United States"));
        assert_eq!(decoded.manufacturer, None);
    }

    #[test]
    fn published_sample_vins_decode_to_their_maker_and_year() {
        for (raw, make, year, country) in [
            ("1HGCM82633A004352", Some("Honda"), 2003, "United States"),
            (
                "1GNEK13ZX3R298984",
                Some("Chevrolet"),
                2003,
                "United States",
            ),
            (
                "1G1JC524417418958",
                Some("Chevrolet"),
                2001,
                "United States",
            ),
            ("1N4AL11D75C109151", Some("Nissan"), 2005, "United States"),
            ("4T1BE46K19U856421", Some("Toyota"), 2009, "United States"),
            ("1FTFW1CT5DFC10312", Some("Ford"), 2013, "United States"),
            // Jeep, Dodge and Chrysler share 1C4: the make is not claimed.
            ("1C4RJFAG0FC625797", None, 2015, "United States"),
        ] {
            let decoded = Vin::parse(raw).unwrap().decode(2026);
            assert!(decoded.check_digit_valid, "{raw}");
            assert_eq!(decoded.make, make, "{raw}");
            assert_eq!(decoded.model_year, Some(year), "{raw}");
            assert_eq!(decoded.country, Some(country), "{raw}");
            assert!(decoded.manufacturer.is_some(), "{raw}");
        }
    }

    #[test]
    fn input_is_trimmed_and_upper_cased() {
        let vin = Vin::parse("  1m8gdm9axkp042788\n").unwrap();
        assert_eq!(vin.as_str(), CFR_EXAMPLE);
    }

    #[test]
    fn length_other_than_17_is_refused_with_the_count() {
        assert_eq!(Vin::parse("1M8GDM9AXKP04278"), Err(VinError::Length(16)));
        assert_eq!(Vin::parse("1M8GDM9AXKP0427880"), Err(VinError::Length(18)));
        assert_eq!(Vin::parse(""), Err(VinError::Length(0)));
        // Characters, not bytes.
        assert_eq!(
            Vin::parse("1M8GDM9AXKP04278É"),
            Err(VinError::InvalidCharacter {
                position: 17,
                character: 'É'
            })
        );
    }

    #[test]
    fn i_o_and_q_are_refused_at_their_position() {
        for (bad, position) in [('I', 4), ('O', 12), ('Q', 17)] {
            let mut raw: Vec<char> = CFR_EXAMPLE.chars().collect();
            raw[position - 1] = bad;
            let raw: String = raw.into_iter().collect();
            let err = Vin::parse(&raw).unwrap_err();
            assert_eq!(
                err,
                VinError::ConfusableLetter {
                    position,
                    character: bad
                }
            );
            assert_eq!(err.code(), "vin_character");
            assert!(err.message().contains(&format!("character {position}")));
        }
    }

    #[test]
    fn other_characters_are_refused_at_their_position() {
        let err = Vin::parse("1M8GDM9AX-P042788").unwrap_err();
        assert_eq!(
            err,
            VinError::InvalidCharacter {
                position: 10,
                character: '-'
            }
        );
        assert_eq!(err.field(), "vin");
    }

    #[test]
    fn a_wrong_north_american_check_digit_names_the_expected_one() {
        let err = Vin::parse("1M8GDM9A1KP042788").unwrap_err();
        assert_eq!(
            err,
            VinError::CheckDigit {
                expected: 'X',
                got: '1'
            }
        );
        assert_eq!(err.code(), "vin_check_digit");
        assert_eq!(
            err.message(),
            "VIN check digit (character 9) is '1', expected 'X'"
        );
    }

    #[test]
    fn elsewhere_a_wrong_check_digit_is_reported_not_refused() {
        // A European VW with the customary Z filler in position 9.
        let vin = Vin::parse("WVWZZZ1KZ6W000001").unwrap();
        let decoded = vin.decode(2026);
        assert!(!decoded.check_digit_valid);
        assert_eq!(decoded.make, Some("Volkswagen"));
        assert_eq!(decoded.country, Some("Germany"));
        assert_eq!(decoded.region, "Europe");
        assert_eq!(decoded.model_year, Some(2006));
        // Position 7 does not pick the cycle outside North America: C is 2012, not 1982.
        let vin = Vin::parse("WVWZZZ1KZCW000001").unwrap();
        assert_eq!(vin.decode(2026).model_year, Some(2012));
    }

    #[test]
    fn north_american_year_codes_must_be_codes() {
        for code in ['0', 'U', 'Z'] {
            let raw = with_check_digit(&format!("1M8GDM9A0{code}P042788"));
            assert_eq!(Vin::parse(&raw), Err(VinError::UnknownYearCode(code)));
        }
        // Outside North America the year is simply unknown.
        let vin = Vin::parse("WVWZZZ1KZZW000001").unwrap();
        assert_eq!(vin.decode(2026).model_year, None);
    }

    #[test]
    fn position_7_picks_the_thirty_year_cycle() {
        // Same year code A: a digit in position 7 means 1980, a letter 2010.
        let digit = Vin::parse(&with_check_digit("1FAHP3520AL000001")).unwrap();
        let letter = Vin::parse(&with_check_digit("1FAHP3F20AL000001")).unwrap();
        assert_eq!(digit.model_year(2027), Some(1980));
        assert_eq!(letter.model_year(2027), Some(2010));
        // Y is 2000 or 2030; 2030 is not on sale in 2026, so the earlier cycle it is.
        let future = Vin::parse(&with_check_digit("1FAHP3F20YL000001")).unwrap();
        assert_eq!(future.model_year(2027), Some(2000));
        assert_eq!(future.model_year(2031), Some(2030));
        // 9 is 2009 with a digit in position 7.
        let nine = Vin::parse(&with_check_digit("1FAHP35209L000001")).unwrap();
        assert_eq!(nine.decode(2026).model_year, Some(2009));
    }

    #[test]
    fn small_manufacturers_extend_the_identifier_into_the_serial() {
        let vin = Vin::parse(&with_check_digit("1F9AB12C0P1234567")).unwrap();
        let decoded = vin.decode(2026);
        assert_eq!(decoded.wmi, "1F9234");
        assert_eq!(decoded.serial, "567");
        assert_eq!(decoded.manufacturer, None);
    }

    #[test]
    fn decoded_serialises_in_camel_case() {
        let json = serde_json::to_value(Vin::parse(CFR_EXAMPLE).unwrap().decode(2026)).unwrap();
        assert_eq!(json["modelYear"], 1989);
        assert_eq!(json["checkDigitValid"], true);
        assert_eq!(json["plantCode"], "P");
        assert_eq!(json["fuelType"], serde_json::Value::Null);
        assert_eq!(json["vin"], CFR_EXAMPLE);
    }

    /// `raw` with position 9 set to its check digit.
    pub(crate) fn with_check_digit(raw: &str) -> String {
        let digit = Vin(raw.to_owned()).expected_check_digit();
        format!("{}{digit}{}", &raw[..8], &raw[9..])
    }
}
