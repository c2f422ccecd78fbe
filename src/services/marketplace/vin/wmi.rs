//! World manufacturer identifiers: the major makers' WMIs, and the regions and countries
//! that SAE J272 assigns to the first two characters when the WMI is not in the table.

pub const NORTH_AMERICA: &str = "North America";

/// One assigned identifier. `make` is `None` where the identifier serves several brands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Manufacturer {
    pub manufacturer: &'static str,
    pub make: Option<&'static str>,
    pub country: &'static str,
}

const US: &str = "United States";
const CA: &str = "Canada";
const MX: &str = "Mexico";
const JP: &str = "Japan";
const KR: &str = "South Korea";
const CN: &str = "China";
const DE: &str = "Germany";
const UK: &str = "United Kingdom";
const FR: &str = "France";
const IT: &str = "Italy";
const SE: &str = "Sweden";

/// (WMI, manufacturer, make, country).
#[rustfmt::skip]
const TABLE: &[(&str, &str, Option<&str>, &str)] = &[
    // Ford
    ("1FA", "Ford Motor Company", Some("Ford"), US),
    ("1FM", "Ford Motor Company", Some("Ford"), US),
    ("1FT", "Ford Motor Company", Some("Ford"), US),
    ("2FA", "Ford Motor Company of Canada", Some("Ford"), CA),
    ("2FM", "Ford Motor Company of Canada", Some("Ford"), CA),
    ("3FA", "Ford Motor Company de Mexico", Some("Ford"), MX),
    ("WF0", "Ford-Werke", Some("Ford"), DE),
    ("1LN", "Ford Motor Company", Some("Lincoln"), US),
    ("5LM", "Ford Motor Company", Some("Lincoln"), US),
    ("1ME", "Ford Motor Company", Some("Mercury"), US),
    // General Motors
    ("1G1", "General Motors", Some("Chevrolet"), US),
    ("1GC", "General Motors", Some("Chevrolet"), US),
    ("1GN", "General Motors", Some("Chevrolet"), US),
    ("2G1", "General Motors of Canada", Some("Chevrolet"), CA),
    ("3G1", "General Motors de Mexico", Some("Chevrolet"), MX),
    ("3GN", "General Motors de Mexico", Some("Chevrolet"), MX),
    ("3GC", "General Motors de Mexico", Some("Chevrolet"), MX),
    ("1G4", "General Motors", Some("Buick"), US),
    ("1G6", "General Motors", Some("Cadillac"), US),
    ("1GY", "General Motors", Some("Cadillac"), US),
    ("1GT", "General Motors", Some("GMC"), US),
    ("1GK", "General Motors", Some("GMC"), US),
    ("1G2", "General Motors", Some("Pontiac"), US),
    ("1G3", "General Motors", Some("Oldsmobile"), US),
    ("1G8", "General Motors", Some("Saturn"), US),
    ("KL1", "GM Korea", Some("Chevrolet"), KR),
    ("KL4", "GM Korea", Some("Buick"), KR),
    // Stellantis
    ("1C3", "FCA US (Stellantis)", None, US),
    ("1C4", "FCA US (Stellantis)", None, US),
    ("1C6", "FCA US (Stellantis)", Some("Ram"), US),
    ("2C3", "FCA Canada (Stellantis)", None, CA),
    ("2C4", "FCA Canada (Stellantis)", None, CA),
    ("3C4", "FCA Mexico (Stellantis)", None, MX),
    ("3C6", "FCA Mexico (Stellantis)", Some("Ram"), MX),
    ("1J4", "Chrysler", Some("Jeep"), US),
    ("1J8", "Chrysler", Some("Jeep"), US),
    ("1B3", "Chrysler", Some("Dodge"), US),
    ("1D7", "Chrysler", Some("Dodge"), US),
    ("ZFA", "Fiat (Stellantis)", Some("Fiat"), IT),
    ("ZAR", "Alfa Romeo (Stellantis)", Some("Alfa Romeo"), IT),
    ("ZAM", "Maserati (Stellantis)", Some("Maserati"), IT),
    ("VF3", "Peugeot (Stellantis)", Some("Peugeot"), FR),
    ("VR3", "Peugeot (Stellantis)", Some("Peugeot"), FR),
    ("VF7", "Citroën (Stellantis)", Some("Citroën"), FR),
    ("W0L", "Opel (Stellantis)", None, DE),
    ("W0V", "Opel (Stellantis)", None, DE),
    // Toyota
    ("JT2", "Toyota Motor Corporation", Some("Toyota"), JP),
    ("JTD", "Toyota Motor Corporation", Some("Toyota"), JP),
    ("JTE", "Toyota Motor Corporation", Some("Toyota"), JP),
    ("JTM", "Toyota Motor Corporation", Some("Toyota"), JP),
    ("JTN", "Toyota Motor Corporation", Some("Toyota"), JP),
    ("JTH", "Toyota Motor Corporation", Some("Lexus"), JP),
    ("JTJ", "Toyota Motor Corporation", Some("Lexus"), JP),
    ("2T1", "Toyota Motor Manufacturing Canada", Some("Toyota"), CA),
    ("2T2", "Toyota Motor Manufacturing Canada", Some("Lexus"), CA),
    ("2T3", "Toyota Motor Manufacturing Canada", Some("Toyota"), CA),
    ("4T1", "Toyota Motor Manufacturing", Some("Toyota"), US),
    ("4T3", "Toyota Motor Manufacturing", Some("Toyota"), US),
    ("5TD", "Toyota Motor Manufacturing", Some("Toyota"), US),
    ("5TF", "Toyota Motor Manufacturing", Some("Toyota"), US),
    ("5YF", "Toyota Motor Manufacturing", Some("Toyota"), US),
    ("SB1", "Toyota Motor Manufacturing UK", Some("Toyota"), UK),
    // Honda
    ("1HG", "American Honda", Some("Honda"), US),
    ("19X", "American Honda", Some("Honda"), US),
    ("5FN", "American Honda", Some("Honda"), US),
    ("5J6", "American Honda", Some("Honda"), US),
    ("19U", "American Honda", Some("Acura"), US),
    ("5J8", "American Honda", Some("Acura"), US),
    ("2HG", "Honda of Canada", Some("Honda"), CA),
    ("2HK", "Honda of Canada", Some("Honda"), CA),
    ("JHM", "Honda Motor Company", Some("Honda"), JP),
    ("JHL", "Honda Motor Company", Some("Honda"), JP),
    ("JH4", "Honda Motor Company", Some("Acura"), JP),
    ("SHH", "Honda of the UK", Some("Honda"), UK),
    // Nissan
    ("JN1", "Nissan Motor Company", Some("Nissan"), JP),
    ("JN8", "Nissan Motor Company", Some("Nissan"), JP),
    ("JNK", "Nissan Motor Company", Some("Infiniti"), JP),
    ("1N4", "Nissan North America", Some("Nissan"), US),
    ("1N6", "Nissan North America", Some("Nissan"), US),
    ("5N1", "Nissan North America", None, US),
    ("3N1", "Nissan Mexicana", Some("Nissan"), MX),
    ("SJN", "Nissan Motor Manufacturing UK", Some("Nissan"), UK),
    // Hyundai and Kia
    ("KMH", "Hyundai Motor Company", Some("Hyundai"), KR),
    ("KM8", "Hyundai Motor Company", Some("Hyundai"), KR),
    ("5NP", "Hyundai Motor Manufacturing Alabama", Some("Hyundai"), US),
    ("5NM", "Hyundai Motor Manufacturing Alabama", Some("Hyundai"), US),
    ("TMA", "Hyundai Motor Manufacturing Czech", Some("Hyundai"), "Czech Republic"),
    ("MAL", "Hyundai Motor India", Some("Hyundai"), "India"),
    ("KNA", "Kia Corporation", Some("Kia"), KR),
    ("KND", "Kia Corporation", Some("Kia"), KR),
    ("5XX", "Kia Georgia", Some("Kia"), US),
    ("5XY", "Kia Georgia", Some("Kia"), US),
    ("U5Y", "Kia Slovakia", Some("Kia"), "Slovakia"),
    // Volkswagen group
    ("WVW", "Volkswagen AG", Some("Volkswagen"), DE),
    ("WVG", "Volkswagen AG", Some("Volkswagen"), DE),
    ("WV1", "Volkswagen Commercial Vehicles", Some("Volkswagen"), DE),
    ("WV2", "Volkswagen Commercial Vehicles", Some("Volkswagen"), DE),
    ("1VW", "Volkswagen Chattanooga", Some("Volkswagen"), US),
    ("3VW", "Volkswagen de Mexico", Some("Volkswagen"), MX),
    ("9BW", "Volkswagen do Brasil", Some("Volkswagen"), "Brazil"),
    ("WAU", "Audi AG", Some("Audi"), DE),
    ("WA1", "Audi AG", Some("Audi"), DE),
    ("TRU", "Audi Hungaria", Some("Audi"), "Hungary"),
    ("WP0", "Porsche AG", Some("Porsche"), DE),
    ("WP1", "Porsche AG", Some("Porsche"), DE),
    ("TMB", "Skoda Auto", Some("Skoda"), "Czech Republic"),
    ("VSS", "SEAT", Some("SEAT"), "Spain"),
    ("SCB", "Bentley Motors", Some("Bentley"), UK),
    ("ZHW", "Automobili Lamborghini", Some("Lamborghini"), IT),
    // BMW group
    ("WBA", "BMW AG", Some("BMW"), DE),
    ("WBS", "BMW M GmbH", Some("BMW"), DE),
    ("WBY", "BMW AG", Some("BMW"), DE),
    ("5UX", "BMW Manufacturing", Some("BMW"), US),
    ("4US", "BMW Manufacturing", Some("BMW"), US),
    ("WMW", "BMW AG", Some("MINI"), DE),
    ("SCA", "Rolls-Royce Motor Cars", Some("Rolls-Royce"), UK),
    // Mercedes-Benz
    ("WDB", "Mercedes-Benz AG", Some("Mercedes-Benz"), DE),
    ("WDC", "Mercedes-Benz AG", Some("Mercedes-Benz"), DE),
    ("WDD", "Mercedes-Benz AG", Some("Mercedes-Benz"), DE),
    ("W1K", "Mercedes-Benz AG", Some("Mercedes-Benz"), DE),
    ("W1N", "Mercedes-Benz AG", Some("Mercedes-Benz"), DE),
    ("4JG", "Mercedes-Benz U.S. International", Some("Mercedes-Benz"), US),
    ("55S", "Mercedes-Benz U.S. International", Some("Mercedes-Benz"), US),
    // Tesla and other electric-only makers
    ("5YJ", "Tesla", Some("Tesla"), US),
    ("7SA", "Tesla", Some("Tesla"), US),
    ("LRW", "Tesla (Shanghai)", Some("Tesla"), CN),
    ("XP7", "Tesla (Berlin)", Some("Tesla"), DE),
    ("7FC", "Rivian Automotive", Some("Rivian"), US),
    ("50E", "Lucid Motors", Some("Lucid"), US),
    // Subaru, Mazda, Mitsubishi, Suzuki
    ("JF1", "Subaru Corporation", Some("Subaru"), JP),
    ("JF2", "Subaru Corporation", Some("Subaru"), JP),
    ("4S3", "Subaru of Indiana Automotive", Some("Subaru"), US),
    ("4S4", "Subaru of Indiana Automotive", Some("Subaru"), US),
    ("JM1", "Mazda Motor Corporation", Some("Mazda"), JP),
    ("JM3", "Mazda Motor Corporation", Some("Mazda"), JP),
    ("3MZ", "Mazda de Mexico", Some("Mazda"), MX),
    ("JA3", "Mitsubishi Motors", Some("Mitsubishi"), JP),
    ("JA4", "Mitsubishi Motors", Some("Mitsubishi"), JP),
    ("JS2", "Suzuki Motor Corporation", Some("Suzuki"), JP),
    ("JS3", "Suzuki Motor Corporation", Some("Suzuki"), JP),
    ("TSM", "Magyar Suzuki", Some("Suzuki"), "Hungary"),
    // Volvo, Jaguar Land Rover and other European makers
    ("YV1", "Volvo Car Corporation", Some("Volvo"), SE),
    ("YV4", "Volvo Car Corporation", Some("Volvo"), SE),
    ("7JR", "Volvo Car US Operations", Some("Volvo"), US),
    ("SAJ", "Jaguar Land Rover", Some("Jaguar"), UK),
    ("SAD", "Jaguar Land Rover", Some("Jaguar"), UK),
    ("SAL", "Jaguar Land Rover", Some("Land Rover"), UK),
    ("VF1", "Renault", Some("Renault"), FR),
    ("UU1", "Automobile Dacia", Some("Dacia"), "Romania"),
    ("ZFF", "Ferrari", Some("Ferrari"), IT),
    ("SCF", "Aston Martin Lagonda", Some("Aston Martin"), UK),
    ("SCC", "Lotus Cars", Some("Lotus"), UK),
    ("YS3", "Saab Automobile", Some("Saab"), SE),
];

/// The table's entry for `wmi`, if it has one.
pub fn lookup(wmi: &str) -> Option<Manufacturer> {
    TABLE
        .iter()
        .find(|(code, ..)| *code == wmi)
        .map(|&(_, manufacturer, make, country)| Manufacturer {
            manufacturer,
            make,
            country,
        })
}

/// The order SAE J272 ranges run in over a VIN's second character.
const ORDER: &str = "ABCDEFGHJKLMNPRSTUVWXYZ1234567890";

/// Country ranges over the first two characters: (first, second from, second to, country).
#[rustfmt::skip]
const COUNTRIES: &[(char, char, char, &str)] = &[
    ('A', 'A', 'H', "South Africa"),
    ('J', 'A', '0', JP),
    ('K', 'L', 'R', KR),
    ('L', 'A', '0', CN),
    ('M', 'A', 'E', "India"),
    ('M', 'F', 'K', "Indonesia"),
    ('M', 'L', 'R', "Thailand"),
    ('N', 'L', 'R', "Turkey"),
    ('S', 'A', 'M', UK),
    ('S', 'U', 'Z', "Poland"),
    ('T', 'A', 'H', "Switzerland"),
    ('T', 'J', 'P', "Czech Republic"),
    ('T', 'R', 'V', "Hungary"),
    ('V', 'A', 'E', "Austria"),
    ('V', 'F', 'R', FR),
    ('V', 'S', 'W', "Spain"),
    ('W', 'A', '0', DE),
    ('Y', 'A', 'E', "Belgium"),
    ('Y', 'F', 'K', "Finland"),
    ('Y', 'S', 'W', SE),
    ('Z', 'A', 'R', IT),
    ('1', 'A', '0', US),
    ('4', 'A', '0', US),
    ('5', 'A', '0', US),
    ('2', 'A', '0', CA),
    ('3', 'A', 'W', MX),
    ('6', 'A', 'W', "Australia"),
    ('7', 'A', 'E', "New Zealand"),
    ('7', 'F', '0', US),
    ('9', 'A', 'E', "Brazil"),
];

fn rank(c: char) -> Option<usize> {
    ORDER.find(c)
}

/// The country SAE J272 assigns to a VIN starting with `first` and `second`, where known.
pub fn country(first: char, second: char) -> Option<&'static str> {
    let at = rank(second)?;
    COUNTRIES
        .iter()
        .find(|&&(f, from, to, _)| {
            f == first && rank(from).is_some_and(|a| a <= at) && rank(to).is_some_and(|b| at <= b)
        })
        .map(|&(.., country)| country)
}

/// The continent of a VIN's first character; `7` is split since the United States were
/// given `7F`-`70` after Oceania had `7A`-`7E`.
pub fn region(first: char, second: char) -> &'static str {
    match first {
        'A'..='H' => "Africa",
        'J'..='R' => "Asia",
        'S'..='Z' => "Europe",
        '1'..='5' => NORTH_AMERICA,
        '7' if country(first, second) == Some(US) => NORTH_AMERICA,
        '6' | '7' => "Oceania",
        _ => "South America",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_table_covers_the_major_makers_once_each() {
        assert!(TABLE.len() >= 80, "{} WMIs", TABLE.len());
        let codes: HashSet<_> = TABLE.iter().map(|(code, ..)| *code).collect();
        assert_eq!(codes.len(), TABLE.len(), "a WMI is listed twice");
        for (code, ..) in TABLE {
            assert!(
                code.len() == 3 && code.chars().all(|c| rank(c).is_some()) && !code.ends_with('9'),
                "{code} is no large maker's WMI"
            );
        }
        for make in [
            "Toyota",
            "Honda",
            "Ford",
            "Chevrolet",
            "GMC",
            "Cadillac",
            "Jeep",
            "Ram",
            "Nissan",
            "Hyundai",
            "Kia",
            "Volkswagen",
            "Audi",
            "Porsche",
            "BMW",
            "Mercedes-Benz",
            "Tesla",
            "Subaru",
            "Mazda",
            "Volvo",
            "Jaguar",
            "Land Rover",
        ] {
            assert!(
                TABLE.iter().any(|(.., m, _)| *m == Some(make)),
                "{make} missing"
            );
        }
    }

    #[test]
    fn known_identifiers_name_maker_make_and_country() {
        let tesla = lookup("5YJ").unwrap();
        assert_eq!(tesla.make, Some("Tesla"));
        assert_eq!(tesla.country, US);
        let berlin = lookup("XP7").unwrap();
        assert_eq!(berlin.country, DE);
        assert_eq!(lookup("JTH").unwrap().make, Some("Lexus"));
        // One identifier for Chrysler, Dodge and Jeep: no make is claimed.
        assert_eq!(lookup("1C4").unwrap().make, None);
        assert_eq!(lookup("ZZZ"), None);
    }

    #[test]
    fn unknown_identifiers_fall_back_to_the_first_two_characters() {
        assert_eq!(country('W', 'Z'), Some(DE));
        assert_eq!(country('3', 'A'), Some(MX));
        assert_eq!(country('3', 'X'), None);
        assert_eq!(country('V', 'F'), Some(FR));
        assert_eq!(country('V', 'S'), Some("Spain"));
        assert_eq!(country('S', 'N'), None);
        assert_eq!(region('S', 'N'), "Europe");
        assert_eq!(region('K', 'M'), "Asia");
        assert_eq!(region('9', 'B'), "South America");
        assert_eq!(region('0', 'A'), "South America");
        assert_eq!(region('A', 'A'), "Africa");
        assert_eq!(region('6', 'A'), "Oceania");
        assert_eq!(region('7', 'A'), "Oceania");
        assert_eq!(region('7', 'S'), NORTH_AMERICA);
        assert_eq!(region('2', 'T'), NORTH_AMERICA);
    }
}
