//! The success envelope `{success: true, data}` that identity and messaging answer with (each
//! service keeps its own error envelope).

use serde::Serialize;
use utoipa::ToSchema;

/// `{success: true, data}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Success<T: ToSchema> {
    pub success: bool,
    pub data: T,
}

pub fn ok<T: ToSchema>(data: T) -> Success<T> {
    Success {
        success: true,
        data,
    }
}
