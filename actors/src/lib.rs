//! Stateful actors of Switchboard. Each owns the state of one thing that lives longer than a
//! request (an interview, a conversation…), persists every outcome before announcing it,
//! and reaches the outside world only through the port traits it defines.

pub mod backoff;
pub mod interview;
pub mod marketplace;
pub mod registry;
pub mod webhook;

pub use webhook::{
    backoff, EndpointDeps, Enqueue, OutgoingDelivery, RetryPolicy, TransportResponse, WebhookClock,
    WebhookEndpoint, WebhookRegistry, WebhookTransport, ENDPOINT_KIND,
};
