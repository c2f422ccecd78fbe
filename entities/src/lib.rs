//! SeaORM entities (dense format), one folder per service. Table names carry the service
//! as a prefix because services share one database.

pub mod advertising;
pub mod core;
pub mod identity;
pub mod interview;
pub mod marketplace;
pub mod messaging;
pub mod txn;
