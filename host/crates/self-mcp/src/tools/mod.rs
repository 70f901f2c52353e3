//! The tools rea contributes to its own catalog: the guidance tools ([`guidance`]) and the
//! pipeline stage tools ([`stages`]), registered by functions that take their implementations.

pub mod guidance;
pub mod stages;

use serde_json::{Map, Value};

/// A JSON object literal as a map (for schemas written with `json!`).
pub(crate) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
