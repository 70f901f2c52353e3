//! Fixtures the crate's unit tests share (compiled only for them).

use rea_plugin_api::json::Json;

use crate::model::Entity;

/// An entity of `entity_type`, held in the collection of that name, with these JSON fields.
pub(crate) fn entity(entity_type: &str, id: &str, fields: &str) -> Entity {
    Entity {
        entity_type: entity_type.to_owned(),
        collection: entity_type.to_owned(),
        id: id.to_owned(),
        fields: Json::parse(fields.as_bytes()).expect("fixture JSON"),
        view_fields: Default::default(),
        record_ordinals: Vec::new(),
    }
}
