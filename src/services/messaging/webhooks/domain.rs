//! The events customers' webhooks may subscribe to.

// ---- events ----

pub const EVENTS: [&str; 8] = [
    "message.sent",
    "message.delivered",
    "message.failed",
    "message.received",
    "credit.low",
    "credit.depleted",
    "contact.opted_out",
    "contact.opted_in",
];
