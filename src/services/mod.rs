//! The services. Each has the same shape: `mod.rs` exposes `mount()`, one file per resource
//! holds its handlers, `domain.rs` parsed types, `service.rs` workflows, `dto.rs` wire shapes
//! and `error.rs` its error envelope.

pub mod identity;
pub mod interview;
pub mod messaging;
