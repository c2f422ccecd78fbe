//! Small builders shared by the migrations.

use sea_orm_migration::prelude::*;

/// A foreign key `from_table.from_col -> to_table.id` that deletes with its parent.
pub fn cascade_to(
    from_table: &'static str,
    from_col: &'static str,
    to_table: &'static str,
) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .from(from_table, from_col)
        .to(to_table, "id")
        .on_delete(ForeignKeyAction::Cascade)
        .to_owned()
}
