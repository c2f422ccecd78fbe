use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

use crate::schema_helpers::cascade_to;

#[derive(DeriveMigrationName)]
pub struct Migration;

const CARS: &str = "marketplace_cars";
const TERMS: &str = "marketplace_search_terms";

/// Each index serves a filter or sort of `GET /cars`: every list query filters on status (a
/// listing that is sold is not browsed as for sale), so the listing indexes lead with it and
/// end with the sort column; make and model filters compare the lowercased keys.
const CAR_INDEXES: [(&str, &[&str]); 12] = [
    ("status_created", &["status", "created_at", "id"]),
    ("status_price", &["status", "price"]),
    ("status_year", &["status", "year"]),
    ("status_mileage", &["status", "mileage"]),
    (
        "make_model",
        &["make_key", "model_key", "status", "created_at"],
    ),
    ("fuel", &["fuel_type", "status", "created_at"]),
    ("transmission", &["transmission", "status", "created_at"]),
    ("body", &["body_type", "status", "created_at"]),
    ("seller_type", &["seller_type", "status", "created_at"]),
    ("condition", &["condition", "status", "created_at"]),
    ("seller", &["seller_id", "status", "created_at"]),
    ("sold", &["seller_id", "sold_at"]),
];

/// Car listings, with their interaction counters kept on the row (the list shows them and
/// trending ranks by them), and the full-text index of the advanced search: FTS5 on SQLite, a
/// generated tsvector with GIN on PostgreSQL, over make and model (weighted most), features
/// (`features_text`, the list as words) and description (weighted least). `marketplace_search_terms` is the vocabulary of makes,
/// models and features that typo-tolerant search matches query words against by trigrams
/// (FTS5's trigram tokenizer on SQLite, pg_trgm on PostgreSQL).
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(CARS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("seller_id"))
                .col(string("seller_type"))
                .col(string("make"))
                .col(string("model"))
                .col(string("make_key"))
                .col(string("model_key"))
                .col(integer("year"))
                .col(double("price"))
                .col(big_integer("mileage"))
                .col(string("fuel_type"))
                .col(string("transmission"))
                .col(string("body_type"))
                .col(string("color"))
                .col(text("description"))
                .col(json("images"))
                .col(json("videos"))
                .col(json("features"))
                .col(string("condition"))
                .col(string("status"))
                .col(text("features_text"))
                .col(big_integer("view_count").default(0))
                .col(big_integer("like_count").default(0))
                .col(big_integer("comment_count").default(0))
                .col(big_integer("share_count").default(0))
                .col(big_integer("favorite_count").default(0))
                .col(big_integer("inquiry_count").default(0))
                .col(timestamp_with_time_zone_null("sold_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .foreign_key(&mut cascade_to(CARS, "seller_id", "marketplace_users"))
                .to_owned(),
        )
        .await?;
        for (name, cols) in CAR_INDEXES {
            let mut index = Index::create();
            index
                .if_not_exists()
                .name(format!("idx_marketplace_cars_{name}"))
                .table(CARS);
            for c in cols {
                index.col(*c);
            }
            m.create_index(index.to_owned()).await?;
        }
        m.create_table(
            Table::create()
                .table(TERMS)
                .if_not_exists()
                .col(string("term").primary_key())
                .to_owned(),
        )
        .await?;
        let db = m.get_connection();
        let statements: &[&str] = match db.get_database_backend() {
            DbBackend::Sqlite => &[
                "CREATE VIRTUAL TABLE IF NOT EXISTS marketplace_cars_fts USING fts5(\
                 title, features, description, car_id UNINDEXED, \
                 tokenize = 'porter unicode61')",
                // A match in make or model counts most, in the description least.
                "INSERT INTO marketplace_cars_fts (marketplace_cars_fts, rank) \
                 VALUES ('rank', 'bm25(10.0, 4.0, 1.0)')",
                "CREATE TRIGGER IF NOT EXISTS marketplace_cars_fts_insert AFTER INSERT ON \
                 marketplace_cars BEGIN INSERT INTO marketplace_cars_fts \
                 (title, features, description, car_id) VALUES (new.make || ' ' || new.model, \
                 new.features_text, new.description, new.id); END",
                "CREATE TRIGGER IF NOT EXISTS marketplace_cars_fts_update AFTER UPDATE OF \
                 make, model, features_text, description ON marketplace_cars BEGIN \
                 UPDATE marketplace_cars_fts SET title = new.make || ' ' || new.model, \
                 features = new.features_text, description = new.description \
                 WHERE car_id = old.id; END",
                "CREATE TRIGGER IF NOT EXISTS marketplace_cars_fts_delete AFTER DELETE ON \
                 marketplace_cars BEGIN DELETE FROM marketplace_cars_fts WHERE car_id = old.id; \
                 END",
                "CREATE VIRTUAL TABLE IF NOT EXISTS marketplace_search_terms_trgm USING fts5(\
                 term, tokenize = 'trigram')",
                "CREATE TRIGGER IF NOT EXISTS marketplace_search_terms_trgm_insert AFTER INSERT \
                 ON marketplace_search_terms BEGIN INSERT INTO marketplace_search_terms_trgm \
                 (term) VALUES (new.term); END",
            ],
            DbBackend::Postgres => &[
                "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                "ALTER TABLE marketplace_cars ADD COLUMN IF NOT EXISTS search_vector tsvector \
                 GENERATED ALWAYS AS (\
                 setweight(to_tsvector('english', make || ' ' || model), 'A') || \
                 setweight(to_tsvector('english', features_text), 'B') || \
                 setweight(to_tsvector('english', description), 'C')) STORED",
                "CREATE INDEX IF NOT EXISTS idx_marketplace_cars_search ON marketplace_cars \
                 USING GIN (search_vector)",
                "CREATE INDEX IF NOT EXISTS idx_marketplace_search_terms_trgm ON \
                 marketplace_search_terms USING GIN (term gin_trgm_ops)",
            ],
            other => {
                return Err(DbErr::Migration(format!(
                    "car search needs SQLite or PostgreSQL, not {other:?}"
                )))
            }
        };
        for sql in statements {
            db.execute_unprepared(sql).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        if db.get_database_backend() == DbBackend::Sqlite {
            db.execute_unprepared("DROP TABLE IF EXISTS marketplace_cars_fts")
                .await?;
            db.execute_unprepared("DROP TABLE IF EXISTS marketplace_search_terms_trgm")
                .await?;
        }
        m.drop_table(Table::drop().table(TERMS).if_exists().to_owned())
            .await?;
        m.drop_table(Table::drop().table(CARS).if_exists().to_owned())
            .await
    }
}
