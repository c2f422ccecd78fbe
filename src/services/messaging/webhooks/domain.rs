//! The events customers' webhooks may subscribe to.

// ---- events ----

pub const EVENTS: [&str; 6] = [
    "message.sent",
    "message.delivered",
    "message.failed",
    "message.received",
    "credit.low",
    "credit.depleted",
];
