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

/// The index `idx_{table}_{name}` on `cols`, in that order (created unless it exists).
pub fn index(table: &'static str, name: &str, cols: &[&'static str]) -> IndexCreateStatement {
    let mut index = Index::create();
    index
        .if_not_exists()
        .name(format!("idx_{table}_{name}"))
        .table(table);
    for c in cols {
        index.col(*c);
    }
    index.to_owned()
}
