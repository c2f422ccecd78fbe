//! What the vehicle descriptor section (positions 4-8) says of model, body, engine,
//! transmission and fuel, only where a maker's coding is published: Tesla's filing with NHTSA
//! for positions 4, 5 and 8, and the fuel of makers that build nothing but electric vehicles.
//! Everything else stays `None` rather than a guess.

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Description {
    pub model: Option<&'static str>,
    pub body: Option<&'static str>,
    pub engine: Option<&'static str>,
    pub transmission: Option<&'static str>,
    pub fuel_type: Option<&'static str>,
}

/// `at(n)` is the VIN's character at position `n` (1-based, as the standard counts).
pub fn describe(make: Option<&str>, at: impl Fn(usize) -> char) -> Description {
    match make {
        Some("Tesla") => tesla(at),
        Some("Rivian" | "Lucid") => Description {
            fuel_type: Some("Electric"),
            ..Description::default()
        },
        _ => Description::default(),
    }
}

/// Tesla cars: position 4 the model (S, 3, X, Y), 5 the body (left-hand drive codes),
/// 8 the drive unit, read only for the model it is designated for.
fn tesla(at: impl Fn(usize) -> char) -> Description {
    let model = at(4);
    let name = match model {
        'S' => Some("Model S"),
        '3' => Some("Model 3"),
        'X' => Some("Model X"),
        'Y' => Some("Model Y"),
        _ => None,
    };
    let body = match (model, at(5)) {
        ('S' | '3' | 'X' | 'Y', 'A') => Some("Hatchback, 5-door"),
        ('S' | '3' | 'X' | 'Y', 'C' | 'G') => Some("MPV, 5-door"),
        ('S' | '3' | 'X' | 'Y', 'E') => Some("Sedan, 4-door"),
        _ => None,
    };
    let engine = match (model, at(8)) {
        ('S' | 'X', '5') => Some("Dual motor"),
        ('S' | 'X', '6') => Some("Tri motor"),
        ('3', 'A') | ('Y', 'D') => Some("Single motor"),
        ('3', 'B') | ('Y', 'E') => Some("Dual motor"),
        ('3', 'C') | ('Y', 'F') => Some("Dual motor, performance"),
        _ => None,
    };
    Description {
        model: name,
        body,
        engine,
        transmission: None,
        fuel_type: Some("Electric"),
    }
}

#[cfg(test)]
mod tests {
    use crate::services::marketplace::vin::domain::tests::with_check_digit;
    use crate::services::marketplace::vin::domain::{Decoded, Vin};

    fn decode(raw: &str) -> Decoded {
        Vin::parse(&with_check_digit(raw)).unwrap().decode(2026)
    }

    #[test]
    fn a_tesla_model_3_says_body_drive_unit_and_fuel() {
        let d = decode("5YJ3E1EB0PF000001");
        assert_eq!(d.make, Some("Tesla"));
        assert_eq!(d.model, Some("Model 3"));
        assert_eq!(d.body, Some("Sedan, 4-door"));
        assert_eq!(d.engine, Some("Dual motor"));
        assert_eq!(d.fuel_type, Some("Electric"));
        assert_eq!(d.transmission, None);
        assert_eq!(d.model_year, Some(2023));
        assert_eq!(d.plant_code, "F");
    }

    #[test]
    fn a_drive_unit_code_is_read_only_for_its_model() {
        let y = decode("7SAYGDEF0RA000001");
        assert_eq!(y.model, Some("Model Y"));
        assert_eq!(y.body, Some("MPV, 5-door"));
        assert_eq!(y.engine, Some("Dual motor, performance"));
        assert_eq!(y.model_year, Some(2024));
        // F is Model Y's code; on a Model 3 it says nothing.
        let three = decode("5YJ3E1EF0PF000001");
        assert_eq!(three.engine, None);
    }

    #[test]
    fn other_makers_say_nothing_unpublished() {
        // The sample VIN Honda's own literature and many decoders use (2003 Accord).
        let d = Vin::parse("1HGCM82633A004352").unwrap().decode(2026);
        assert_eq!(d.model_year, Some(2003));
        assert_eq!(d.make, Some("Honda"));
        assert_eq!(
            (d.model, d.body, d.engine, d.transmission, d.fuel_type),
            (None, None, None, None, None)
        );
        let rivian = decode("7FCTGAAL0NN000001");
        assert_eq!(rivian.fuel_type, Some("Electric"));
        assert_eq!(rivian.engine, None);
    }
}
