//! Small builders shared by the migrations.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

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

/// Adds one column (SQLite adds one per ALTER).
pub async fn add_column(
    m: &SchemaManager<'_>,
    table: &'static str,
    mut col: ColumnDef,
) -> Result<(), DbErr> {
    m.alter_table(
        Table::alter()
            .table(Alias::new(table))
            .add_column(&mut col)
            .to_owned(),
    )
    .await
}

pub async fn drop_column(
    m: &SchemaManager<'_>,
    table: &'static str,
    col: &'static str,
) -> Result<(), DbErr> {
    m.alter_table(
        Table::alter()
            .table(Alias::new(table))
            .drop_column(Alias::new(col))
            .to_owned(),
    )
    .await
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

/// The statement adding one to the `column` count of the row of `table` whose `key` columns
/// (comma separated) hold `values`, made if missing.
pub fn count_one_more(table: &str, key: &str, column: &str, values: &str) -> String {
    format!(
        "INSERT INTO {table} ({key}, {column}) VALUES ({values}, 1) \
         ON CONFLICT ({key}) DO UPDATE SET {column} = {table}.{column} + 1;"
    )
}

/// Row triggers that keep a table of counts over `table` in the writing transaction: on
/// insert the statements `add` makes over the new row, on delete those `remove` makes over the
/// old one, on an update of a `watched` column both. SQLite: triggers `{name}_insert`,
/// `{name}_delete`, `{name}_update`; PostgreSQL: function `{name}_track()` and trigger
/// `pg_trigger`.
pub struct CountTriggers<'a> {
    pub name: &'a str,
    pub pg_trigger: &'a str,
    pub table: &'a str,
    /// Columns, comma separated.
    pub watched: &'a str,
    /// Updates that leave every watched column as it was skip the counts (so writers of
    /// other columns never wait on a count row).
    pub only_changes: bool,
}

impl CountTriggers<'_> {
    pub async fn create(
        &self,
        db: &impl ConnectionTrait,
        add: impl Fn(&str) -> String,
        remove: impl Fn(&str) -> String,
    ) -> Result<(), DbErr> {
        let (name, table, watched) = (self.name, self.table, self.watched);
        let cols: Vec<&str> = watched.split(',').map(str::trim).collect();
        let list = |row: &str| {
            cols.iter()
                .map(|c| format!("{row}.{c}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let statements = match db.get_database_backend() {
            DbBackend::Sqlite => {
                let when = if self.only_changes {
                    let changed: Vec<String> = cols
                        .iter()
                        .map(|c| format!("old.{c} IS NOT new.{c}"))
                        .collect();
                    format!("WHEN {} ", changed.join(" OR "))
                } else {
                    String::new()
                };
                vec![
                    format!(
                        "CREATE TRIGGER IF NOT EXISTS {name}_insert AFTER INSERT ON {table} \
                         BEGIN {} END",
                        add("new")
                    ),
                    format!(
                        "CREATE TRIGGER IF NOT EXISTS {name}_delete AFTER DELETE ON {table} \
                         BEGIN {} END",
                        remove("old")
                    ),
                    format!(
                        "CREATE TRIGGER IF NOT EXISTS {name}_update AFTER UPDATE OF {watched} \
                         ON {table} {when}BEGIN {} {} END",
                        remove("old"),
                        add("new")
                    ),
                ]
            }
            DbBackend::Postgres => {
                let skip = if self.only_changes {
                    format!(
                        "IF TG_OP = 'UPDATE' AND ({}) IS NOT DISTINCT FROM ({}) THEN \
                         RETURN NULL; END IF; ",
                        list("OLD"),
                        list("NEW")
                    )
                } else {
                    String::new()
                };
                vec![
                    format!(
                        "CREATE OR REPLACE FUNCTION {name}_track() RETURNS trigger \
                         LANGUAGE plpgsql AS $$ BEGIN {skip}\
                         IF TG_OP = 'DELETE' OR TG_OP = 'UPDATE' THEN {} END IF; \
                         IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN {} END IF; \
                         RETURN NULL; END $$",
                        remove("OLD"),
                        add("NEW")
                    ),
                    format!(
                        "CREATE TRIGGER {} AFTER INSERT OR DELETE OR UPDATE OF {watched} ON \
                         {table} FOR EACH ROW EXECUTE FUNCTION {name}_track()",
                        self.pg_trigger
                    ),
                ]
            }
            other => {
                return Err(DbErr::Migration(format!(
                    "{name} needs SQLite or PostgreSQL, not {other:?}"
                )))
            }
        };
        for sql in statements {
            db.execute_unprepared(&sql).await?;
        }
        Ok(())
    }

    pub async fn drop(&self, db: &impl ConnectionTrait) -> Result<(), DbErr> {
        let (name, table) = (self.name, self.table);
        let statements = match db.get_database_backend() {
            DbBackend::Postgres => vec![
                format!("DROP TRIGGER IF EXISTS {} ON {table}", self.pg_trigger),
                format!("DROP FUNCTION IF EXISTS {name}_track()"),
            ],
            _ => ["insert", "delete", "update"]
                .iter()
                .map(|t| format!("DROP TRIGGER IF EXISTS {name}_{t}"))
                .collect(),
        };
        for sql in statements {
            db.execute_unprepared(&sql).await?;
        }
        Ok(())
    }
}

/// Adds `cols` to `table`, one ALTER each (SQLite adds one column per ALTER).
pub async fn add_columns(
    m: &SchemaManager<'_>,
    table: &'static str,
    cols: impl IntoIterator<Item = ColumnDef>,
) -> Result<(), DbErr> {
    for mut col in cols {
        m.alter_table(
            Table::alter()
                .table(Alias::new(table))
                .add_column(&mut col)
                .to_owned(),
        )
        .await?;
    }
    Ok(())
}

/// Drops `cols` from `table`, one ALTER each.
pub async fn drop_columns(
    m: &SchemaManager<'_>,
    table: &'static str,
    cols: &[&'static str],
) -> Result<(), DbErr> {
    for col in cols {
        m.alter_table(
            Table::alter()
                .table(Alias::new(table))
                .drop_column(Alias::new(*col))
                .to_owned(),
        )
        .await?;
    }
    Ok(())
}
