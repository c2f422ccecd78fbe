//! The catalogue the marketplace starts with: current and recent models of the makes sold
//! in Europe and North America, each with its usual body type and fuel (the template's
//! defaults when no listing says otherwise), the body types and the common features.

/// A make and its models.
pub struct Make {
    pub name: &'static str,
    pub models: &'static [Model],
}

/// A model with the body type and fuel it is most often sold with.
pub struct Model {
    pub name: &'static str,
    pub body_type: &'static str,
    pub fuel_type: &'static str,
}

const SEDAN: &str = "Sedan";
const SUV: &str = "SUV";
const HATCHBACK: &str = "Hatchback";
const COUPE: &str = "Coupe";
const CONVERTIBLE: &str = "Convertible";
const PICKUP: &str = "Pickup";
const WAGON: &str = "Wagon";
const VAN: &str = "Van";
const MINIVAN: &str = "Minivan";
const CROSSOVER: &str = "Crossover";

pub const BODY_TYPES: &[&str] = &[
    SEDAN,
    SUV,
    HATCHBACK,
    COUPE,
    CONVERTIBLE,
    PICKUP,
    WAGON,
    VAN,
    MINIVAN,
    CROSSOVER,
];

/// The spec's fuel types.
pub const PETROL: &str = "Petrol";
pub const DIESEL: &str = "Diesel";
pub const ELECTRIC: &str = "Electric";
pub const HYBRID: &str = "Hybrid";

/// Most listings are automatics; the spec has no default, so the template suggests this.
pub const DEFAULT_TRANSMISSION: &str = "Automatic";

pub const FEATURES: &[&str] = &[
    "360-Degree Camera",
    "Adaptive Cruise Control",
    "All-Wheel Drive",
    "Alloy Wheels",
    "Android Auto",
    "Apple CarPlay",
    "Automatic Emergency Braking",
    "Auto-Dimming Mirror",
    "Backup Camera",
    "Blind Spot Monitoring",
    "Bluetooth",
    "Cruise Control",
    "Dual-Zone Climate Control",
    "Fast Charging",
    "Forward Collision Warning",
    "Four-Wheel Drive",
    "Head-Up Display",
    "Heated Seats",
    "Heated Steering Wheel",
    "Keyless Entry",
    "Lane Departure Warning",
    "Lane Keep Assist",
    "Leather Seats",
    "LED Headlights",
    "Memory Seats",
    "Navigation System",
    "Panoramic Roof",
    "Parking Sensors",
    "Power Liftgate",
    "Power Seats",
    "Power Sliding Doors",
    "Premium Sound System",
    "Push Button Start",
    "Rain-Sensing Wipers",
    "Rear Cross Traffic Alert",
    "Remote Start",
    "Roof Rails",
    "Sunroof",
    "Third Row Seating",
    "Tow Package",
    "Ventilated Seats",
    "Wireless Charging",
];

/// Features nearly every current car has, suggested first for any model.
const COMMON: &[&str] = &[
    "Bluetooth",
    "Backup Camera",
    "Apple CarPlay",
    "Android Auto",
    "Cruise Control",
    "Keyless Entry",
];

/// The catalogue's suggested features for a model of `body_type` and `fuel_type`.
pub fn default_features(body_type: &str, fuel_type: &str) -> Vec<&'static str> {
    let by_body: &[&str] = match body_type {
        SUV | CROSSOVER => &["All-Wheel Drive", "Power Liftgate", "Roof Rails"],
        PICKUP => &["Four-Wheel Drive", "Tow Package"],
        MINIVAN | VAN => &["Third Row Seating", "Power Sliding Doors"],
        COUPE | CONVERTIBLE => &["Leather Seats", "Premium Sound System"],
        WAGON => &["Roof Rails", "Power Liftgate"],
        _ => &["Blind Spot Monitoring", "Lane Keep Assist"],
    };
    let by_fuel: &[&str] = if fuel_type == ELECTRIC {
        &["Fast Charging"]
    } else {
        &[]
    };
    COMMON
        .iter()
        .chain(by_body)
        .chain(by_fuel)
        .copied()
        .collect()
}

const fn petrol(name: &'static str, body_type: &'static str) -> Model {
    Model {
        name,
        body_type,
        fuel_type: PETROL,
    }
}

const fn diesel(name: &'static str, body_type: &'static str) -> Model {
    Model {
        name,
        body_type,
        fuel_type: DIESEL,
    }
}

const fn electric(name: &'static str, body_type: &'static str) -> Model {
    Model {
        name,
        body_type,
        fuel_type: ELECTRIC,
    }
}

const fn hybrid(name: &'static str, body_type: &'static str) -> Model {
    Model {
        name,
        body_type,
        fuel_type: HYBRID,
    }
}

pub const MAKES: &[Make] = &[
    Make {
        name: "Acura",
        models: &[
            petrol("Integra", HATCHBACK),
            petrol("TLX", SEDAN),
            petrol("RDX", SUV),
            petrol("MDX", SUV),
            electric("ZDX", SUV),
        ],
    },
    Make {
        name: "Alfa Romeo",
        models: &[
            petrol("Giulia", SEDAN),
            petrol("Stelvio", SUV),
            hybrid("Tonale", CROSSOVER),
            petrol("Junior", CROSSOVER),
        ],
    },
    Make {
        name: "Aston Martin",
        models: &[
            petrol("Vantage", COUPE),
            petrol("DB12", COUPE),
            petrol("DBX", SUV),
        ],
    },
    Make {
        name: "Audi",
        models: &[
            petrol("A1", HATCHBACK),
            petrol("A3", SEDAN),
            petrol("A4", SEDAN),
            petrol("A5", COUPE),
            petrol("A6", SEDAN),
            petrol("A8", SEDAN),
            petrol("Q2", CROSSOVER),
            petrol("Q3", SUV),
            petrol("Q5", SUV),
            petrol("Q7", SUV),
            petrol("Q8", SUV),
            electric("Q4 e-tron", SUV),
            electric("Q8 e-tron", SUV),
            electric("e-tron GT", SEDAN),
            petrol("TT", COUPE),
            petrol("R8", COUPE),
        ],
    },
    Make {
        name: "Bentley",
        models: &[
            petrol("Continental GT", COUPE),
            petrol("Flying Spur", SEDAN),
            petrol("Bentayga", SUV),
        ],
    },
    Make {
        name: "BMW",
        models: &[
            petrol("1 Series", HATCHBACK),
            petrol("2 Series", COUPE),
            petrol("3 Series", SEDAN),
            petrol("4 Series", COUPE),
            petrol("5 Series", SEDAN),
            petrol("7 Series", SEDAN),
            petrol("8 Series", COUPE),
            petrol("X1", SUV),
            petrol("X3", SUV),
            petrol("X5", SUV),
            petrol("X7", SUV),
            petrol("Z4", CONVERTIBLE),
            electric("i4", SEDAN),
            electric("i5", SEDAN),
            electric("i7", SEDAN),
            electric("iX", SUV),
            electric("iX3", SUV),
            petrol("M3", SEDAN),
        ],
    },
    Make {
        name: "Buick",
        models: &[
            petrol("Encore GX", CROSSOVER),
            petrol("Envista", CROSSOVER),
            petrol("Envision", SUV),
            petrol("Enclave", SUV),
        ],
    },
    Make {
        name: "BYD",
        models: &[
            electric("Atto 3", CROSSOVER),
            electric("Dolphin", HATCHBACK),
            electric("Seal", SEDAN),
            hybrid("Seal U", SUV),
            electric("Han", SEDAN),
        ],
    },
    Make {
        name: "Cadillac",
        models: &[
            petrol("CT4", SEDAN),
            petrol("CT5", SEDAN),
            petrol("XT4", CROSSOVER),
            petrol("XT5", SUV),
            petrol("XT6", SUV),
            petrol("Escalade", SUV),
            electric("Lyriq", SUV),
        ],
    },
    Make {
        name: "Chevrolet",
        models: &[
            petrol("Malibu", SEDAN),
            petrol("Camaro", COUPE),
            petrol("Corvette", COUPE),
            petrol("Trax", CROSSOVER),
            petrol("Trailblazer", CROSSOVER),
            petrol("Equinox", SUV),
            electric("Equinox EV", SUV),
            petrol("Blazer", SUV),
            petrol("Traverse", SUV),
            petrol("Tahoe", SUV),
            petrol("Suburban", SUV),
            petrol("Colorado", PICKUP),
            petrol("Silverado 1500", PICKUP),
            electric("Silverado EV", PICKUP),
            electric("Bolt EV", HATCHBACK),
            petrol("Express", VAN),
        ],
    },
    Make {
        name: "Chrysler",
        models: &[
            petrol("300", SEDAN),
            petrol("Pacifica", MINIVAN),
            petrol("Voyager", MINIVAN),
        ],
    },
    Make {
        name: "Citroen",
        models: &[
            petrol("C3", HATCHBACK),
            petrol("C3 Aircross", CROSSOVER),
            petrol("C4", HATCHBACK),
            petrol("C5 Aircross", SUV),
            petrol("C5 X", WAGON),
            diesel("Berlingo", VAN),
        ],
    },
    Make {
        name: "Cupra",
        models: &[
            petrol("Formentor", CROSSOVER),
            electric("Born", HATCHBACK),
            petrol("Leon", HATCHBACK),
            electric("Tavascan", SUV),
        ],
    },
    Make {
        name: "Dacia",
        models: &[
            petrol("Sandero", HATCHBACK),
            petrol("Duster", SUV),
            petrol("Jogger", WAGON),
            electric("Spring", HATCHBACK),
        ],
    },
    Make {
        name: "Dodge",
        models: &[
            petrol("Charger", SEDAN),
            petrol("Challenger", COUPE),
            petrol("Durango", SUV),
            hybrid("Hornet", CROSSOVER),
        ],
    },
    Make {
        name: "Ferrari",
        models: &[
            petrol("296 GTB", COUPE),
            petrol("Roma", COUPE),
            petrol("SF90 Stradale", COUPE),
            petrol("812 Superfast", COUPE),
            petrol("Purosangue", SUV),
        ],
    },
    Make {
        name: "Fiat",
        models: &[
            petrol("500", HATCHBACK),
            electric("500e", HATCHBACK),
            petrol("Panda", HATCHBACK),
            petrol("Tipo", HATCHBACK),
            petrol("600", CROSSOVER),
            diesel("Ducato", VAN),
        ],
    },
    Make {
        name: "Ford",
        models: &[
            petrol("Fiesta", HATCHBACK),
            petrol("Focus", HATCHBACK),
            petrol("Mondeo", SEDAN),
            petrol("Mustang", COUPE),
            electric("Mustang Mach-E", SUV),
            petrol("Puma", CROSSOVER),
            petrol("Kuga", SUV),
            petrol("Escape", SUV),
            petrol("Bronco", SUV),
            petrol("Bronco Sport", SUV),
            petrol("Edge", SUV),
            petrol("Explorer", SUV),
            petrol("Expedition", SUV),
            hybrid("Maverick", PICKUP),
            petrol("Ranger", PICKUP),
            petrol("F-150", PICKUP),
            electric("F-150 Lightning", PICKUP),
            petrol("Super Duty", PICKUP),
            diesel("Transit", VAN),
            diesel("Transit Connect", VAN),
        ],
    },
    Make {
        name: "Genesis",
        models: &[
            petrol("G70", SEDAN),
            petrol("G80", SEDAN),
            petrol("G90", SEDAN),
            petrol("GV70", SUV),
            petrol("GV80", SUV),
            electric("GV60", CROSSOVER),
        ],
    },
    Make {
        name: "GMC",
        models: &[
            petrol("Terrain", SUV),
            petrol("Acadia", SUV),
            petrol("Yukon", SUV),
            petrol("Canyon", PICKUP),
            petrol("Sierra 1500", PICKUP),
            electric("Sierra EV", PICKUP),
            electric("Hummer EV", PICKUP),
            petrol("Savana", VAN),
        ],
    },
    Make {
        name: "Honda",
        models: &[
            petrol("Civic", SEDAN),
            petrol("Accord", SEDAN),
            petrol("Jazz", HATCHBACK),
            petrol("Fit", HATCHBACK),
            petrol("HR-V", CROSSOVER),
            petrol("CR-V", SUV),
            hybrid("ZR-V", CROSSOVER),
            petrol("Passport", SUV),
            petrol("Pilot", SUV),
            petrol("Ridgeline", PICKUP),
            petrol("Odyssey", MINIVAN),
            electric("Prologue", SUV),
            electric("e:Ny1", CROSSOVER),
        ],
    },
    Make {
        name: "Hyundai",
        models: &[
            petrol("i10", HATCHBACK),
            petrol("i20", HATCHBACK),
            petrol("i30", HATCHBACK),
            petrol("Elantra", SEDAN),
            petrol("Sonata", SEDAN),
            petrol("Venue", CROSSOVER),
            petrol("Kona", CROSSOVER),
            petrol("Bayon", CROSSOVER),
            petrol("Tucson", SUV),
            petrol("Santa Fe", SUV),
            petrol("Palisade", SUV),
            petrol("Santa Cruz", PICKUP),
            electric("Ioniq 5", CROSSOVER),
            electric("Ioniq 6", SEDAN),
            hybrid("Ioniq", HATCHBACK),
            petrol("Staria", VAN),
        ],
    },
    Make {
        name: "Infiniti",
        models: &[
            petrol("Q50", SEDAN),
            petrol("QX50", SUV),
            petrol("QX55", CROSSOVER),
            petrol("QX60", SUV),
            petrol("QX80", SUV),
        ],
    },
    Make {
        name: "Jaguar",
        models: &[
            petrol("XE", SEDAN),
            petrol("XF", SEDAN),
            petrol("F-Type", COUPE),
            petrol("E-Pace", CROSSOVER),
            petrol("F-Pace", SUV),
            electric("I-Pace", SUV),
        ],
    },
    Make {
        name: "Jeep",
        models: &[
            petrol("Avenger", CROSSOVER),
            petrol("Renegade", CROSSOVER),
            petrol("Compass", SUV),
            petrol("Cherokee", SUV),
            petrol("Grand Cherokee", SUV),
            petrol("Grand Wagoneer", SUV),
            petrol("Wagoneer", SUV),
            petrol("Wrangler", SUV),
            petrol("Gladiator", PICKUP),
        ],
    },
    Make {
        name: "Kia",
        models: &[
            petrol("Picanto", HATCHBACK),
            petrol("Rio", HATCHBACK),
            petrol("Ceed", HATCHBACK),
            petrol("Forte", SEDAN),
            petrol("K5", SEDAN),
            petrol("Stinger", SEDAN),
            petrol("Soul", HATCHBACK),
            hybrid("Niro", CROSSOVER),
            petrol("Seltos", CROSSOVER),
            petrol("Stonic", CROSSOVER),
            petrol("Sportage", SUV),
            petrol("Sorento", SUV),
            petrol("Telluride", SUV),
            petrol("Carnival", MINIVAN),
            electric("EV6", CROSSOVER),
            electric("EV9", SUV),
        ],
    },
    Make {
        name: "Lamborghini",
        models: &[
            petrol("Huracan", COUPE),
            hybrid("Revuelto", COUPE),
            petrol("Urus", SUV),
        ],
    },
    Make {
        name: "Land Rover",
        models: &[
            petrol("Defender", SUV),
            petrol("Discovery", SUV),
            petrol("Discovery Sport", SUV),
            petrol("Range Rover", SUV),
            petrol("Range Rover Sport", SUV),
            petrol("Range Rover Velar", SUV),
            petrol("Range Rover Evoque", CROSSOVER),
        ],
    },
    Make {
        name: "Lexus",
        models: &[
            hybrid("ES", SEDAN),
            petrol("IS", SEDAN),
            petrol("LS", SEDAN),
            petrol("LC", COUPE),
            hybrid("UX", CROSSOVER),
            hybrid("NX", SUV),
            hybrid("RX", SUV),
            petrol("GX", SUV),
            petrol("LX", SUV),
            hybrid("LBX", CROSSOVER),
            electric("RZ", SUV),
        ],
    },
    Make {
        name: "Lincoln",
        models: &[
            petrol("Corsair", SUV),
            petrol("Nautilus", SUV),
            petrol("Aviator", SUV),
            petrol("Navigator", SUV),
        ],
    },
    Make {
        name: "Lucid",
        models: &[electric("Air", SEDAN), electric("Gravity", SUV)],
    },
    Make {
        name: "Maserati",
        models: &[
            petrol("Ghibli", SEDAN),
            petrol("Quattroporte", SEDAN),
            petrol("Grecale", SUV),
            petrol("Levante", SUV),
            petrol("MC20", COUPE),
            petrol("GranTurismo", COUPE),
        ],
    },
    Make {
        name: "Mazda",
        models: &[
            petrol("Mazda2", HATCHBACK),
            petrol("Mazda3", HATCHBACK),
            petrol("Mazda6", SEDAN),
            petrol("CX-3", CROSSOVER),
            petrol("CX-30", CROSSOVER),
            petrol("CX-5", SUV),
            petrol("CX-50", SUV),
            hybrid("CX-60", SUV),
            petrol("CX-90", SUV),
            petrol("MX-5 Miata", CONVERTIBLE),
            electric("MX-30", CROSSOVER),
        ],
    },
    Make {
        name: "McLaren",
        models: &[
            petrol("Artura", COUPE),
            petrol("750S", COUPE),
            petrol("GT", COUPE),
        ],
    },
    Make {
        name: "Mercedes-Benz",
        models: &[
            petrol("A-Class", HATCHBACK),
            petrol("B-Class", HATCHBACK),
            petrol("C-Class", SEDAN),
            petrol("E-Class", SEDAN),
            petrol("S-Class", SEDAN),
            petrol("CLA", SEDAN),
            petrol("CLE", COUPE),
            petrol("GLA", CROSSOVER),
            petrol("GLB", SUV),
            petrol("GLC", SUV),
            petrol("GLE", SUV),
            petrol("GLS", SUV),
            petrol("G-Class", SUV),
            petrol("SL", CONVERTIBLE),
            petrol("AMG GT", COUPE),
            electric("EQA", CROSSOVER),
            electric("EQB", SUV),
            electric("EQE", SEDAN),
            electric("EQS", SEDAN),
            diesel("Sprinter", VAN),
            diesel("Vito", VAN),
            diesel("V-Class", MINIVAN),
        ],
    },
    Make {
        name: "Mini",
        models: &[
            petrol("Cooper", HATCHBACK),
            petrol("Cooper Convertible", CONVERTIBLE),
            petrol("Clubman", WAGON),
            petrol("Countryman", CROSSOVER),
            electric("Aceman", CROSSOVER),
        ],
    },
    Make {
        name: "Mitsubishi",
        models: &[
            petrol("Mirage", HATCHBACK),
            petrol("Space Star", HATCHBACK),
            petrol("ASX", CROSSOVER),
            petrol("Eclipse Cross", CROSSOVER),
            hybrid("Outlander", SUV),
            diesel("L200", PICKUP),
        ],
    },
    Make {
        name: "Nissan",
        models: &[
            petrol("Versa", SEDAN),
            petrol("Sentra", SEDAN),
            petrol("Altima", SEDAN),
            petrol("Maxima", SEDAN),
            petrol("Micra", HATCHBACK),
            petrol("Juke", CROSSOVER),
            petrol("Kicks", CROSSOVER),
            petrol("Qashqai", CROSSOVER),
            petrol("Rogue", SUV),
            petrol("X-Trail", SUV),
            petrol("Murano", SUV),
            petrol("Pathfinder", SUV),
            petrol("Armada", SUV),
            petrol("Frontier", PICKUP),
            petrol("Titan", PICKUP),
            diesel("Navara", PICKUP),
            petrol("Z", COUPE),
            electric("Leaf", HATCHBACK),
            electric("Ariya", CROSSOVER),
        ],
    },
    Make {
        name: "Opel",
        models: &[
            petrol("Corsa", HATCHBACK),
            petrol("Astra", HATCHBACK),
            petrol("Insignia", SEDAN),
            petrol("Mokka", CROSSOVER),
            petrol("Crossland", CROSSOVER),
            petrol("Grandland", SUV),
            diesel("Vivaro", VAN),
            diesel("Zafira Life", MINIVAN),
        ],
    },
    Make {
        name: "Peugeot",
        models: &[
            petrol("208", HATCHBACK),
            petrol("308", HATCHBACK),
            petrol("408", CROSSOVER),
            petrol("508", SEDAN),
            petrol("2008", CROSSOVER),
            petrol("3008", SUV),
            petrol("5008", SUV),
            diesel("Rifter", VAN),
            diesel("Partner", VAN),
        ],
    },
    Make {
        name: "Polestar",
        models: &[
            electric("Polestar 2", SEDAN),
            electric("Polestar 3", SUV),
            electric("Polestar 4", CROSSOVER),
        ],
    },
    Make {
        name: "Porsche",
        models: &[
            petrol("911", COUPE),
            petrol("718 Cayman", COUPE),
            petrol("718 Boxster", CONVERTIBLE),
            petrol("Panamera", SEDAN),
            electric("Taycan", SEDAN),
            petrol("Macan", SUV),
            electric("Macan Electric", SUV),
            petrol("Cayenne", SUV),
        ],
    },
    Make {
        name: "Ram",
        models: &[
            petrol("1500", PICKUP),
            diesel("2500", PICKUP),
            diesel("3500", PICKUP),
            petrol("ProMaster", VAN),
        ],
    },
    Make {
        name: "Renault",
        models: &[
            petrol("Clio", HATCHBACK),
            petrol("Captur", CROSSOVER),
            petrol("Megane", HATCHBACK),
            electric("Megane E-Tech", CROSSOVER),
            hybrid("Austral", SUV),
            hybrid("Arkana", CROSSOVER),
            hybrid("Espace", SUV),
            electric("Scenic E-Tech", CROSSOVER),
            electric("Zoe", HATCHBACK),
            diesel("Kangoo", VAN),
            diesel("Trafic", VAN),
            diesel("Master", VAN),
        ],
    },
    Make {
        name: "Rivian",
        models: &[
            electric("R1T", PICKUP),
            electric("R1S", SUV),
            electric("R2", SUV),
        ],
    },
    Make {
        name: "Rolls-Royce",
        models: &[
            petrol("Ghost", SEDAN),
            petrol("Phantom", SEDAN),
            petrol("Cullinan", SUV),
            electric("Spectre", COUPE),
        ],
    },
    Make {
        name: "Seat",
        models: &[
            petrol("Ibiza", HATCHBACK),
            petrol("Leon", HATCHBACK),
            petrol("Arona", CROSSOVER),
            petrol("Ateca", SUV),
            petrol("Tarraco", SUV),
        ],
    },
    Make {
        name: "Skoda",
        models: &[
            petrol("Fabia", HATCHBACK),
            petrol("Scala", HATCHBACK),
            petrol("Octavia", WAGON),
            petrol("Superb", WAGON),
            petrol("Kamiq", CROSSOVER),
            petrol("Karoq", SUV),
            petrol("Kodiaq", SUV),
            electric("Enyaq", SUV),
            electric("Elroq", CROSSOVER),
        ],
    },
    Make {
        name: "Subaru",
        models: &[
            petrol("Impreza", HATCHBACK),
            petrol("Legacy", SEDAN),
            petrol("WRX", SEDAN),
            petrol("BRZ", COUPE),
            petrol("Crosstrek", CROSSOVER),
            petrol("Forester", SUV),
            petrol("Outback", WAGON),
            petrol("Ascent", SUV),
            electric("Solterra", SUV),
        ],
    },
    Make {
        name: "Suzuki",
        models: &[
            petrol("Swift", HATCHBACK),
            petrol("Ignis", HATCHBACK),
            petrol("Vitara", CROSSOVER),
            petrol("S-Cross", CROSSOVER),
            petrol("Jimny", SUV),
            hybrid("Across", SUV),
        ],
    },
    Make {
        name: "Tesla",
        models: &[
            electric("Model 3", SEDAN),
            electric("Model S", SEDAN),
            electric("Model X", SUV),
            electric("Model Y", CROSSOVER),
            electric("Cybertruck", PICKUP),
        ],
    },
    Make {
        name: "Toyota",
        models: &[
            petrol("Yaris", HATCHBACK),
            hybrid("Yaris Cross", CROSSOVER),
            petrol("Corolla", SEDAN),
            hybrid("Corolla Cross", CROSSOVER),
            petrol("Camry", SEDAN),
            hybrid("Crown", SEDAN),
            hybrid("Prius", HATCHBACK),
            petrol("GR86", COUPE),
            petrol("Supra", COUPE),
            hybrid("C-HR", CROSSOVER),
            petrol("RAV4", SUV),
            petrol("Venza", SUV),
            petrol("Highlander", SUV),
            petrol("Grand Highlander", SUV),
            petrol("4Runner", SUV),
            petrol("Sequoia", SUV),
            petrol("Land Cruiser", SUV),
            hybrid("Sienna", MINIVAN),
            petrol("Tacoma", PICKUP),
            petrol("Tundra", PICKUP),
            diesel("Hilux", PICKUP),
            electric("bZ4X", SUV),
            diesel("Proace", VAN),
        ],
    },
    Make {
        name: "Volkswagen",
        models: &[
            petrol("Polo", HATCHBACK),
            petrol("Golf", HATCHBACK),
            petrol("Golf GTI", HATCHBACK),
            petrol("Jetta", SEDAN),
            petrol("Passat", WAGON),
            petrol("Arteon", SEDAN),
            petrol("T-Cross", CROSSOVER),
            petrol("T-Roc", CROSSOVER),
            petrol("Taos", CROSSOVER),
            petrol("Tiguan", SUV),
            petrol("Atlas", SUV),
            petrol("Touareg", SUV),
            electric("ID.3", HATCHBACK),
            electric("ID.4", SUV),
            electric("ID.5", CROSSOVER),
            electric("ID.7", SEDAN),
            electric("ID. Buzz", MINIVAN),
            diesel("Transporter", VAN),
            diesel("Caddy", VAN),
            diesel("Amarok", PICKUP),
        ],
    },
    Make {
        name: "Volvo",
        models: &[
            petrol("S60", SEDAN),
            petrol("S90", SEDAN),
            petrol("V60", WAGON),
            petrol("V90", WAGON),
            petrol("XC40", SUV),
            petrol("XC60", SUV),
            petrol("XC90", SUV),
            electric("EX30", CROSSOVER),
            electric("EX40", SUV),
            electric("EX90", SUV),
        ],
    },
];

/// The catalogue's make of `name` (any case).
pub fn make(name: &str) -> Option<&'static Make> {
    MAKES.iter().find(|m| m.name.eq_ignore_ascii_case(name))
}

impl Make {
    /// This make's model of `name` (any case).
    pub fn model(&'static self, name: &str) -> Option<&'static Model> {
        self.models
            .iter()
            .find(|m| m.name.eq_ignore_ascii_case(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_catalogue_is_large_unique_and_consistent() {
        assert!(MAKES.len() >= 40, "{} makes", MAKES.len());
        let models: usize = MAKES.iter().map(|m| m.models.len()).sum();
        assert!(models >= 300, "{models} models");
        let makes: HashSet<String> = MAKES.iter().map(|m| m.name.to_lowercase()).collect();
        assert_eq!(makes.len(), MAKES.len(), "a make twice");
        for make in MAKES {
            let names: HashSet<String> =
                make.models.iter().map(|m| m.name.to_lowercase()).collect();
            assert_eq!(
                names.len(),
                make.models.len(),
                "a model of {} twice",
                make.name
            );
            for m in make.models {
                assert!(BODY_TYPES.contains(&m.body_type), "{}", m.name);
            }
        }
        let features: HashSet<&str> = FEATURES.iter().copied().collect();
        assert_eq!(features.len(), FEATURES.len());
        for body in BODY_TYPES {
            for f in default_features(body, ELECTRIC) {
                assert!(features.contains(f), "{f}");
            }
        }
    }

    #[test]
    fn lookups_ignore_case() {
        let mb = make("mercedes-benz").expect("known");
        assert_eq!(mb.name, "Mercedes-Benz");
        assert_eq!(mb.model("eqs").map(|m| m.fuel_type), Some(ELECTRIC));
        assert!(make("Trabant").is_none());
    }
}
