//! The platform's background work runs on the core job queue; each handler gets the
//! service's state with the job.

use super::state::AdvertisingState;
use crate::core::jobs::{Job, JobResult};
use std::future::Future;

/// Runs `handler` for every job of `topic`.
pub fn handle<F, Fut>(st: &AdvertisingState, topic: &'static str, handler: F)
where
    F: Fn(AdvertisingState, Job) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = JobResult> + Send + 'static,
{
    let s = st.clone();
    st.core
        .jobs
        .handle(topic, move |job| handler(s.clone(), job));
}
