//! The wire shape of a category (countries and cities answer their data as it is).

use serde::Serialize;
use switchboard_entities::advertising::category;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct CategoryView {
    /// A readable slug.
    pub id: String,
    pub name: String,
    pub description: String,
}

impl From<category::Model> for CategoryView {
    fn from(c: category::Model) -> Self {
        Self {
            id: c.id,
            name: c.name,
            description: c.description,
        }
    }
}
