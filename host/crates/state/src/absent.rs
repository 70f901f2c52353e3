//! Absent entities of a recorded read: a `GET` tool answering from its recordings (its answers
//! are no rendering of a held entity: a study's detail, which names the study by path only) whose
//! path is a held type's collection followed by one parameter segment naming the entity, learned
//! where every checked `2xx` read of it names an entity the state holds in that collection and
//! the tool recorded a missing answer (`404`/`410` with a JSON body). A call naming an id the
//! live collection lacks answers that missing answer naming the call's values, as an item view's
//! missing entity does; a call naming a held entity still answers from the recordings. A
//! document view holding one document per id (see [`crate::derive::documents`]) learns the same,
//! and answers a held entity's document.
//!
//! Learned from the recordings only (the ids the reads named and the entities the state holds
//! for them), never from names.

use rea_manifest::Manifest;
use rea_manifest::segments::{percent_decode, split_path, template_affixes, template_value};
use rea_plugin_api::contracts::capture::CompactString;
use serde::{Deserialize, Serialize};

use crate::derive::entities::{collection_key, item_segments};
use crate::model::{Entity, EntityType, ReadView, ViewDetail};
use crate::observation::Timeline;

/// A recorded read tool that answers its recorded missing answer for an entity the live state
/// lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbsentAnswer {
    /// The read tool.
    pub tool: String,
    /// The entity type (its collection template) the tool's last path segment names an entity
    /// of.
    pub entity_type: String,
    /// The tool's latest recorded `404`/`410` with a JSON body.
    pub missing_ordinal: u64,
    /// The checked `2xx` reads that each named a held entity.
    pub checked_ordinals: Vec<u64>,
}

/// The absent-entity answers of the recorded read tools (see the module docs).
pub fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    (types, entities): (&[EntityType], &[Entity]),
    views: &[ReadView],
) -> Vec<AbsentAnswer> {
    views
        .iter()
        .filter(|view| view.method == "GET")
        .filter(|view| match &view.detail {
            ViewDetail::Recorded { reason } => reason != "method-replay",
            // A view holding one document per id names its entity by path as a recorded one.
            ViewDetail::Document(document) => document.is_keyed(),
            _ => false,
        })
        .filter_map(|view| {
            let tool = crate::derive::tool_index(manifest, &view.tool)?;
            derive_one(timeline, tool, view, (types, entities))
        })
        .collect()
}

/// The absent-entity answer of one recorded read tool, when it is learned.
fn derive_one(
    timeline: &Timeline,
    tool: usize,
    view: &ReadView,
    (types, entities): (&[EntityType], &[Entity]),
) -> Option<AbsentAnswer> {
    let written = split_path(&view.path_template);
    let (last, parent) = item_segments(&written).split_last()?;
    // The last segment is a whole parameter: the entity's id, nothing fused around it.
    if template_affixes(last)? != ("", "") || parent.is_empty() {
        return None;
    }
    let entity_type = format!("/{}", parent.join("/"));
    types
        .iter()
        .find(|known| known.collection_template == entity_type)?;
    let mut checked_ordinals = Vec::new();
    for observation in timeline.checked(tool) {
        if !observation.is_success() {
            continue;
        }
        let segments = item_segments(&observation.segments);
        if segments.len() != item_segments(&written).len() {
            return None;
        }
        let (id, collection) = segments.split_last()?;
        let collection = format!("/{}", collection.join("/"));
        held(
            entities,
            &entity_type,
            &collection,
            template_value(last, id),
        )?;
        checked_ordinals.push(observation.ordinal);
    }
    if checked_ordinals.is_empty() {
        return None;
    }
    let missing_ordinal = crate::derive::members::missing_of(timeline, tool)?;
    Some(AbsentAnswer {
        tool: view.tool.clone(),
        entity_type,
        missing_ordinal,
        checked_ordinals,
    })
}

/// The entity of a type a collection holds under an id, as written or percent-decoded.
fn held<'e>(
    entities: &'e [Entity],
    entity_type: &str,
    collection: &str,
    id: &str,
) -> Option<&'e Entity> {
    let decoded = percent_decode(id);
    let key = collection_key(collection);
    entities.iter().find(|entity| {
        entity.entity_type == entity_type
            && collection_key(&entity.collection) == key
            && (entity.id == id || decoded.as_deref() == Some(entity.id.as_str()))
    })
}

/// The id and collection a call's path segments name at an absent-entity tool's template.
pub(crate) fn named<'s>(
    template: &str,
    segments: &'s [CompactString],
) -> Option<(&'s str, String)> {
    let written = split_path(template);
    let segments = item_segments(segments);
    let (id, collection) = segments.split_last()?;
    (segments.len() == item_segments(&written).len())
        .then(|| (id.as_str(), format!("/{}", collection.join("/"))))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::derive::tests::{derive, record};
    use crate::model::ViewDetail;

    /// A study list naming each study by `study_id`, and study details naming their study by
    /// path only (no member echoes the id), so the detail tool answers from its recordings.
    fn studies() -> serde_json::Value {
        json!({"study_summaries": [
            {"study_id": 1, "study_name": "churn"},
            {"study_id": 2, "study_name": "price"}
        ]})
    }

    #[test]
    fn a_recorded_read_answers_its_missing_answer_for_an_id_its_collection_lacks() {
        let fixture = derive(vec![
            record(0, "GET", "/api/studies", 200, studies()),
            record(
                1,
                "GET",
                "/api/studies/1",
                200,
                json!({"name": "churn", "trials": [1, 2]}),
            ),
            record(
                2,
                "GET",
                "/api/studies/2",
                200,
                json!({"name": "price", "trials": []}),
            ),
            record(
                3,
                "GET",
                "/api/studies/4",
                404,
                json!({"reason": "study_id=4 is not found"}),
            ),
        ]);
        let (tool, argument) = fixture.tool("/api/studies/{numeric}");
        let tool = tool.as_str();
        // One document per study id (the reads name their study by path only).
        assert!(
            matches!(fixture.view(tool), ViewDetail::Document(document) if document.is_keyed()),
            "{:?}",
            fixture.view(tool)
        );
        assert_eq!(fixture.state.absent_answers.len(), 1);
        let absent = &fixture.state.absent_answers[0];
        assert_eq!(absent.entity_type, "/api/studies");
        assert_eq!(absent.missing_ordinal, 3);
        assert_eq!(absent.checked_ordinals, vec![1, 2]);
        // An id the collection lacks: the recorded 404 naming the call's id.
        let missing = fixture.call(tool, json!({ argument.clone(): 99 }));
        assert_eq!(missing["status"], 404, "{missing}");
        assert_eq!(missing["state"]["view"], "missing", "{missing}");
        assert_eq!(
            missing["body"],
            json!({"reason": "study_id=99 is not found"})
        );
        // A held study answers its document.
        let held = fixture.call(tool, json!({ argument: 2 }));
        assert_eq!(held["state"]["source"], "state", "{held}");
        assert_eq!(held["body"], json!({"name": "price", "trials": []}));
    }

    #[test]
    fn no_missing_answer_without_a_recorded_one_or_when_a_read_names_no_held_entity() {
        // No 404 recorded: nothing learned; the unrecorded id is refused as before.
        let fixture = derive(vec![
            record(0, "GET", "/api/studies", 200, studies()),
            record(1, "GET", "/api/studies/1", 200, json!({"name": "churn"})),
            record(2, "GET", "/api/studies/2", 200, json!({"name": "price"})),
        ]);
        assert!(fixture.state.absent_answers.is_empty());
        let (tool, argument) = fixture.tool("/api/studies/{numeric}");
        let refused = fixture.call(&tool, json!({ argument.clone(): 99 }));
        assert_eq!(refused["is_error"], true, "{refused}");
        // A read naming a study the list never showed: the collection is not what the tool
        // reads, so a missing id says nothing.
        let fixture = derive(vec![
            record(0, "GET", "/api/studies", 200, studies()),
            record(1, "GET", "/api/studies/1", 200, json!({"name": "churn"})),
            record(2, "GET", "/api/studies/3", 200, json!({"name": "banner"})),
            record(
                3,
                "GET",
                "/api/studies/4",
                404,
                json!({"reason": "study_id=4 is not found"}),
            ),
        ]);
        assert!(fixture.state.absent_answers.is_empty());
        let refused = fixture.call(&tool, json!({ argument: 99 }));
        assert_eq!(refused["is_error"], true, "{refused}");
    }
}
