//! Stateful actors of Switchboard, with their messages. Side effects they need from the
//! outside (HTTP, time) come through traits defined here and implemented by the server, so
//! this crate depends only on the entities.

pub mod webhook;

pub use webhook::{
    backoff, EndpointDeps, Enqueue, OutgoingDelivery, RetryPolicy, TransportResponse, WebhookClock,
    WebhookEndpoint, WebhookRegistry, WebhookTransport,
};
