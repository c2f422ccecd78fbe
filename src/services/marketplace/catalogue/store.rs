//! The car catalogue in the database: filled from `data.rs` when the service
//! starts (what is missing only, so a restart or a second node adds nothing twice), grown by
//! an administrator's listing of an unknown make or model or by enough verified sellers'
//! ([`note_listing`]), read by the catalogue endpoints and the search's vocabulary.

use crate::services::marketplace::cars::search_terms::{words, Names};
use crate::services::marketplace::catalogue::data;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use switchboard_entities::marketplace::{
    car, catalogue_body_type, catalogue_feature, catalogue_make, catalogue_model,
    catalogue_sighting, search_term, user,
};
use utoipa::ToSchema;
use uuid::Uuid;

/// A name as compared: case does not make another make or model.
fn key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Fills the catalogue once per process (the first caller waits, the others reuse it); a
/// failed fill is tried again by the next caller.
pub async fn ready(st: &MarketplaceState) -> Result<()> {
    st.catalogue.get_or_try_init(|| seed(&st.core.db)).await?;
    Ok(())
}

async fn seed(db: &sea_orm::DatabaseConnection) -> Result<(), DbErr> {
    let txn = crate::core::db::begin_write(db).await?;
    let mut makes: HashMap<String, Uuid> = catalogue_make::Entity::find()
        .all(&txn)
        .await?
        .into_iter()
        .map(|m| (m.name_key, m.id))
        .collect();
    let missing: Vec<&str> = data::MAKES
        .iter()
        .map(|m| m.name)
        .filter(|name| !makes.contains_key(&key(name)))
        .collect();
    let mut new_makes = Vec::with_capacity(missing.len());
    for name in missing {
        let id = Uuid::new_v4();
        makes.insert(key(name), id);
        new_makes.push(catalogue_make::ActiveModel {
            id: Set(id),
            name: Set(name.to_owned()),
            name_key: Set(key(name)),
        });
    }
    catalogue_make::Entity::insert_many(new_makes)
        .on_conflict_do_nothing_on([catalogue_make::Column::NameKey])
        .exec(&txn)
        .await?;

    let known: HashSet<(Uuid, String)> = catalogue_model::Entity::find()
        .all(&txn)
        .await?
        .into_iter()
        .map(|m| (m.make_id, m.name_key))
        .collect();
    let new_models: Vec<catalogue_model::ActiveModel> = data::MAKES
        .iter()
        .filter_map(|make| makes.get(&key(make.name)).map(|id| (*id, make)))
        .flat_map(|(make_id, make)| make.models.iter().map(move |m| (make_id, m)))
        .filter(|(make_id, m)| !known.contains(&(*make_id, key(m.name))))
        .map(|(make_id, m)| catalogue_model::ActiveModel {
            id: Set(Uuid::new_v4()),
            make_id: Set(make_id),
            name: Set(m.name.to_owned()),
            name_key: Set(key(m.name)),
            body_type: Set(Some(m.body_type.to_owned())),
            fuel_type: Set(Some(m.fuel_type.to_owned())),
        })
        .collect();
    catalogue_model::Entity::insert_many(new_models)
        .on_conflict_do_nothing_on([
            catalogue_model::Column::MakeId,
            catalogue_model::Column::NameKey,
        ])
        .exec(&txn)
        .await?;

    let body_types: Vec<_> = data::BODY_TYPES
        .iter()
        .map(|name| catalogue_body_type::ActiveModel {
            id: Set(Uuid::new_v4()),
            name: Set((*name).to_owned()),
        })
        .collect();
    catalogue_body_type::Entity::insert_many(body_types)
        .on_conflict_do_nothing_on([catalogue_body_type::Column::Name])
        .exec(&txn)
        .await?;
    let features: Vec<_> = data::FEATURES
        .iter()
        .map(|name| catalogue_feature::ActiveModel {
            id: Set(Uuid::new_v4()),
            name: Set((*name).to_owned()),
        })
        .collect();
    catalogue_feature::Entity::insert_many(features)
        .on_conflict_do_nothing_on([catalogue_feature::Column::Name])
        .exec(&txn)
        .await?;
    // The public catalogue is the typo vocabulary's source (what sellers type is not).
    let mut names: Vec<&str> = data::FEATURES.to_vec();
    for make in data::MAKES {
        names.push(make.name);
        names.extend(make.models.iter().map(|m| m.name));
    }
    learn(&txn, &names).await?;
    txn.commit().await
}

/// The public catalogue's make and model names (a few hundred short rows), which every
/// advanced search reads: from memory, read again after [`names_changed`] or at most
/// [`NAMES_STALE`](super::names::NAMES_STALE) after the last read.
pub async fn names(st: &MarketplaceState) -> Result<Arc<Names>> {
    if let Some(names) = st.catalogue_names.0.get(&()) {
        return Ok(names);
    }
    let db = &st.core.db;
    let mut all: Vec<String> = catalogue_make::Entity::find()
        .select_only()
        .column(catalogue_make::Column::Name)
        .into_tuple()
        .all(db)
        .await?;
    let models: Vec<String> = catalogue_model::Entity::find()
        .select_only()
        .column(catalogue_model::Column::Name)
        .into_tuple()
        .all(db)
        .await?;
    all.extend(models);
    let names = Arc::new(Names::new(all.iter().map(String::as_str)));
    st.catalogue_names.0.insert((), names.clone());
    Ok(names)
}

/// The catalogue gained a make or model (called after its transaction commits): the next
/// search reads the names again. The one call another node would need to hear of the change.
pub fn names_changed(st: &MarketplaceState) {
    st.catalogue_names.0.invalidate_all();
}

/// Every make, in alphabetical order whatever the case.
pub async fn makes(st: &MarketplaceState) -> Result<Vec<String>> {
    ready(st).await?;
    let rows = catalogue_make::Entity::find()
        .order_by_asc(catalogue_make::Column::NameKey)
        .all(&st.core.db)
        .await?;
    Ok(rows.into_iter().map(|m| m.name).collect())
}

async fn find_make(db: &impl ConnectionTrait, make: &str) -> Result<catalogue_make::Model> {
    Ok(catalogue_make::Entity::find()
        .filter(catalogue_make::Column::NameKey.eq(key(make)))
        .one(db)
        .await?
        .ok_or(MarketplaceError::MakeNotFound)?)
}

/// The make's models, alphabetical.
pub async fn models(st: &MarketplaceState, make: &str) -> Result<Vec<String>> {
    ready(st).await?;
    let db = &st.core.db;
    let make = find_make(db, make).await?;
    let models = catalogue_model::Entity::find()
        .filter(catalogue_model::Column::MakeId.eq(make.id))
        .order_by_asc(catalogue_model::Column::NameKey)
        .all(db)
        .await?;
    Ok(models.into_iter().map(|m| m.name).collect())
}

pub async fn body_types(st: &MarketplaceState) -> Result<Vec<String>> {
    ready(st).await?;
    let rows = catalogue_body_type::Entity::find()
        .order_by_asc(catalogue_body_type::Column::Name)
        .all(&st.core.db)
        .await?;
    Ok(rows.into_iter().map(|b| b.name).collect())
}

pub async fn features(st: &MarketplaceState) -> Result<Vec<String>> {
    ready(st).await?;
    let rows = catalogue_feature::Entity::find()
        .order_by_asc(catalogue_feature::Column::Name)
        .all(&st.core.db)
        .await?;
    Ok(rows.into_iter().map(|f| f.name).collect())
}

/// Who writes a listing's make and model: its seller, and whether an administrator does.
#[derive(Debug, Clone, Copy)]
pub struct Lister {
    pub seller: Uuid,
    pub admin: bool,
}

/// Inside the caller's transaction (a listing's create or update): a make or model the
/// public catalogue lacks enters it when an administrator lists it, or once
/// `catalogue_min_sellers` distinct phone-verified sellers have (each such listing is a sighting);
/// until then only the listing holds the name. A name the catalogue module knows is
/// written its way. True when the catalogue gained a name (the caller then calls
/// [`names_changed`] once committed).
pub async fn note_listing(
    txn: &impl ConnectionTrait,
    st: &MarketplaceState,
    lister: Lister,
    make: &str,
    model: &str,
) -> Result<bool, DbErr> {
    let known = data::make(make);
    let make_name = known.map_or(make.trim(), |m| m.name);
    let spec = known.and_then(|m| m.model(model));
    let model_name = spec.map_or(model.trim(), |m| m.name);
    let (make_key, model_key) = (key(make_name), key(model_name));
    let (min_sellers, now) = (st.cfg.catalogue_min_sellers, st.core.now());
    let make_row = public_make(txn, &make_key).await?;
    if let Some(m) = &make_row {
        let model_public = catalogue_model::Entity::find()
            .filter(catalogue_model::Column::MakeId.eq(m.id))
            .filter(catalogue_model::Column::NameKey.eq(&model_key))
            .one(txn)
            .await?
            .is_some();
        if model_public {
            return Ok(false);
        }
    }
    if !lister.admin {
        let verified = user::Entity::find_by_id(lister.seller)
            .one(txn)
            .await?
            .is_some_and(|u| u.is_phone_verified);
        if !verified {
            return Ok(false);
        }
        catalogue_sighting::Entity::insert(catalogue_sighting::ActiveModel {
            make_key: Set(make_key.clone()),
            model_key: Set(model_key.clone()),
            seller_id: Set(lister.seller),
            created_at: Set(now),
        })
        .on_conflict_do_nothing()
        .exec(txn)
        .await?;
    }
    let enough = |model: Option<&str>| {
        let (make_key, admin) = (make_key.clone(), lister.admin);
        let model = model.map(str::to_owned);
        async move {
            if admin {
                return Ok::<_, DbErr>(true);
            }
            let mut q = catalogue_sighting::Entity::find()
                .filter(catalogue_sighting::Column::MakeKey.eq(make_key));
            if let Some(m) = model {
                q = q.filter(catalogue_sighting::Column::ModelKey.eq(m));
            }
            let sellers = q
                .select_only()
                .column(catalogue_sighting::Column::SellerId)
                .distinct()
                .count(txn)
                .await?;
            Ok(sellers >= min_sellers)
        }
    };
    let mut grew = false;
    let make_row = match make_row {
        Some(m) => m,
        None => {
            if !enough(None).await? {
                return Ok(false);
            }
            grew = true;
            catalogue_make::Entity::insert(catalogue_make::ActiveModel {
                id: Set(Uuid::new_v4()),
                name: Set(make_name.to_owned()),
                name_key: Set(make_key.clone()),
            })
            .on_conflict_do_nothing_on([catalogue_make::Column::NameKey])
            .exec(txn)
            .await?;
            learn(txn, &[make_name]).await?;
            public_make(txn, &make_key)
                .await?
                .ok_or_else(|| DbErr::RecordNotFound(format!("catalogue make {make_name}")))?
        }
    };
    if !enough(Some(&model_key)).await? {
        return Ok(grew);
    }
    catalogue_model::Entity::insert(catalogue_model::ActiveModel {
        id: Set(Uuid::new_v4()),
        make_id: Set(make_row.id),
        name: Set(model_name.to_owned()),
        name_key: Set(model_key),
        body_type: Set(spec.map(|m| m.body_type.to_owned())),
        fuel_type: Set(spec.map(|m| m.fuel_type.to_owned())),
    })
    .on_conflict_do_nothing_on([
        catalogue_model::Column::MakeId,
        catalogue_model::Column::NameKey,
    ])
    .exec(txn)
    .await?;
    learn(txn, &[model_name]).await?;
    Ok(true)
}

async fn public_make(
    db: &impl ConnectionTrait,
    make_key: &str,
) -> Result<Option<catalogue_make::Model>, DbErr> {
    catalogue_make::Entity::find()
        .filter(catalogue_make::Column::NameKey.eq(make_key))
        .one(db)
        .await
}

/// Adds the words of catalogue names to the vocabulary typo-tolerant search corrects query
/// words to (shorter words are left to the search's edit distance).
async fn learn(db: &impl ConnectionTrait, names: &[&str]) -> Result<(), DbErr> {
    let mut words: Vec<String> = names
        .iter()
        .flat_map(|n| words(n))
        .filter(|w| w.chars().count() >= 3)
        .collect();
    words.sort();
    words.dedup();
    if words.is_empty() {
        return Ok(());
    }
    let terms = words
        .into_iter()
        .map(|term| search_term::ActiveModel { term: Set(term) });
    search_term::Entity::insert_many(terms)
        .on_conflict_do_nothing_on([search_term::Column::Term])
        .exec(db)
        .await?;
    Ok(())
}

/// The spec's car template.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Template {
    /// The features most listed with this make and model, then the catalogue's.
    pub suggested_features: Vec<String>,
    /// Average asking price of its active listings that name a price; 0 when there are none.
    pub average_price: f64,
    pub common_specs: CommonSpecs,
}

/// The most listed fuel, transmission and body type, else the catalogue's (null when a
/// model noted from a listing has none).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommonSpecs {
    pub fuel_type: Option<String>,
    pub transmission: Option<String>,
    pub body_type: Option<String>,
}

/// Listings a template is read from: the newest, enough for a mode and an average.
const TEMPLATE_SAMPLE: u64 = 500;
const SUGGESTED_FEATURES: usize = 12;

/// The value seen most often; a tie goes to the alphabetically first, so answers are stable.
fn most_common<'a>(values: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in values {
        *counts.entry(v).or_default() += 1;
    }
    ranked(counts).into_iter().next()
}

/// Keys by count, most first, ties alphabetical.
fn ranked(counts: BTreeMap<&str, usize>) -> Vec<String> {
    let mut by_count: Vec<(&str, usize)> = counts.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    by_count.into_iter().map(|(k, _)| k.to_owned()).collect()
}

pub async fn template(st: &MarketplaceState, make: &str, model: &str) -> Result<Template> {
    ready(st).await?;
    let db = &st.core.db;
    let make_row = find_make(db, make).await?;
    let model_row = catalogue_model::Entity::find()
        .filter(catalogue_model::Column::MakeId.eq(make_row.id))
        .filter(catalogue_model::Column::NameKey.eq(key(model)))
        .one(db)
        .await?
        .ok_or(MarketplaceError::ModelNotFound)?;
    let listings = car::Entity::find()
        .filter(car::Column::MakeKey.eq(key(make)))
        .filter(car::Column::ModelKey.eq(key(model)))
        .order_by_desc(car::Column::CreatedAt)
        .limit(TEMPLATE_SAMPLE)
        .all(db)
        .await?;

    let features: Vec<Vec<String>> = listings
        .iter()
        .map(|c| serde_json::from_value(c.features.clone()).unwrap_or_default())
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in features.iter().flatten() {
        *counts.entry(f.as_str()).or_default() += 1;
    }
    let mut suggested = ranked(counts);
    let body_type = model_row.body_type.clone();
    let fuel_type = model_row.fuel_type.clone();
    for default in data::default_features(
        body_type.as_deref().unwrap_or_default(),
        fuel_type.as_deref().unwrap_or_default(),
    ) {
        if !suggested.iter().any(|s| s.eq_ignore_ascii_case(default)) {
            suggested.push(default.to_owned());
        }
    }
    suggested.truncate(SUGGESTED_FEATURES);

    let priced: Vec<f64> = listings
        .iter()
        .filter(|c| c.status == car::CarStatus::Active && c.price > 0.0)
        .map(|c| c.price)
        .collect();
    let average_price = if priced.is_empty() {
        0.0
    } else {
        let avg = priced.iter().sum::<f64>() / priced.len() as f64;
        (avg * 100.0).round() / 100.0
    };
    let common_specs = CommonSpecs {
        fuel_type: most_common(listings.iter().map(|c| c.fuel_type.as_str())).or(fuel_type),
        transmission: most_common(listings.iter().map(|c| c.transmission.as_str()))
            .or_else(|| Some(data::DEFAULT_TRANSMISSION.to_owned())),
        body_type: most_common(listings.iter().map(|c| c.body_type.as_str())).or(body_type),
    };
    Ok(Template {
        suggested_features: suggested,
        average_price,
        common_specs,
    })
}
