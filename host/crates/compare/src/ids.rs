//! Ids mapped from the application's answers to the environment's.
//!
//! A re-seeded application holds the same entities under other ids. Two answers to one call are
//! walked together: objects at the same place, and array items paired by a natural key
//! ([`crate::pairing`]), map their identifier fields' values live → environment. Identifier
//! fields are `id`, `uuid`, `guid`, names ending in `_id`, `Id`, `ID`, `_uuid` or `Uuid`, and
//! the fields the state holds as an entity type's identity ([`IdFields`]). The answer's own `id`,
//! `uuid` or `guid` (and every listed item's) also maps within the collection the call names, so
//! two collections can reuse a live id; a pair of equal values is kept too, in that collection.
//!
//! Globally, a live value seen with two environment values is a conflict; a conflict involving
//! an equal pair is never used to normalise either value and is counted ([`IdMap::conflicts`]).
//! Collection mappings are used first, the global mapping after.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// Which member names hold ids.
#[derive(Debug, Clone, Default)]
pub struct IdFields {
    /// Fields the state holds as an entity type's identity (TiddlyWiki's `title`).
    pub state_held: BTreeSet<String>,
}

impl IdFields {
    /// Whether a member is an identifier field.
    pub fn is_identifier(&self, name: &str) -> bool {
        is_identifier_name(name) || self.state_held.contains(name)
    }
}

/// Whether a member name is an identifier field by its spelling (`id`, `uuid`, `guid`, and names
/// ending in `_id`, `Id`, `ID`, `_uuid` or `Uuid`).
pub fn is_identifier_name(name: &str) -> bool {
    matches!(name, "id" | "uuid" | "guid")
        || ["_id", "Id", "ID", "_uuid", "Uuid"]
            .iter()
            .any(|suffix| name.len() > suffix.len() && name.ends_with(suffix))
}

/// Whether a member holds a list of ids.
pub fn is_id_list(name: &str) -> bool {
    matches!(name, "ids" | "uuids" | "guids")
}

/// Whether a member is an answer's own identity (`id`, `uuid`, `guid`).
pub fn is_own_identity(name: &str) -> bool {
    matches!(name, "id" | "uuid" | "guid")
}

/// Whether an answer's own object is an envelope around its entity (or list): it has no own
/// identity, and exactly one member holding an object or an array (`{"data": {…}}`).
pub fn is_envelope(object: &serde_json::Map<String, Value>) -> bool {
    !object.keys().any(|key| is_own_identity(key))
        && object
            .values()
            .filter(|value| value.is_object() || value.is_array())
            .count()
            == 1
}

/// A scalar's text: strings as they are, numbers as written.
pub fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The global target of a live id.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// One environment value.
    One(String),
    /// Seen with several; `equal` when one of them is the live value itself.
    Conflict { equal: bool },
}

/// The id mapping of one probe.
#[derive(Debug, Clone, Default)]
pub struct IdMap {
    scoped: BTreeMap<String, BTreeMap<String, String>>,
    global: BTreeMap<String, Target>,
}

impl IdMap {
    /// Learns one pair of identifier values (the live one first), within a collection when
    /// given (its first pair stays) and globally.
    pub fn learn(&mut self, collection: Option<&str>, live: &Value, env: &Value) {
        let (Some(live), Some(env)) = (id_text(live), id_text(env)) else {
            return;
        };
        if let Some(collection) = collection {
            self.scoped
                .entry(collection.to_owned())
                .or_default()
                .entry(live.clone())
                .or_insert_with(|| env.clone());
        }
        match self.global.get_mut(&live) {
            None => {
                self.global.insert(live, Target::One(env));
            }
            Some(Target::One(known)) if *known == env => {}
            Some(target) => {
                let equal = match target {
                    Target::One(known) => *known == live || env == live,
                    Target::Conflict { equal } => *equal || env == live,
                };
                *target = Target::Conflict { equal };
            }
        }
    }

    /// Learns the id pairs two answers to one call show (see the module docs): identifier
    /// fields of objects at the same place or paired by a natural key, the answer's own identity
    /// (root, envelope or listed items) also within the call's collection, and two scalar
    /// answers (a create answering only the new id). A served write's own answer (`written`)
    /// lists what its call's body listed, in the body's order: two lists of one length no
    /// natural key pairs also pair by position there (a batch's answers, one per sub-request).
    pub fn learn_answers(
        &mut self,
        fields: &IdFields,
        collection: &str,
        (live, env): (&Value, &Value),
        written: bool,
    ) {
        self.learn_at(fields, collection, live, env, (true, written));
    }

    fn learn_at(
        &mut self,
        fields: &IdFields,
        collection: &str,
        live: &Value,
        env: &Value,
        (own, written): (bool, bool),
    ) {
        match (live, env) {
            (Value::Object(left), Value::Object(right)) => {
                let envelope = own && is_envelope(left);
                for (key, value) in left {
                    let Some(other) = right.get(key) else {
                        continue;
                    };
                    let nested = value.is_object() || value.is_array();
                    if !nested && fields.is_identifier(key) {
                        let scope = (own && is_own_identity(key)).then_some(collection);
                        self.learn(scope, value, other);
                    }
                    if nested {
                        self.learn_at(fields, collection, value, other, (envelope, written));
                    }
                }
            }
            (Value::Array(left), Value::Array(right)) => {
                // Items pair by a natural key; two one-item lists are two single answers.
                let paired = crate::pairing::pair(left, right, fields);
                if paired.key.is_some() || (left.len() == 1 && right.len() == 1) {
                    for (a, b) in paired.pairs {
                        self.learn_at(fields, collection, &left[a], &right[b], (own, written));
                    }
                } else if written && left.len() == right.len() {
                    for (a, b) in left.iter().zip(right) {
                        self.learn_at(fields, collection, a, b, (own, written));
                    }
                }
            }
            (live, env) if own && id_text(live).is_some() && id_text(env).is_some() => {
                self.learn(Some(collection), live, env);
            }
            _ => {}
        }
    }

    /// The environment's id for a live id: in the collection first (when given), then the
    /// global mapping unless it conflicts.
    pub fn lookup(&self, collection: Option<&str>, live: &str) -> Option<&str> {
        if let Some(found) = collection
            .and_then(|collection| self.scoped.get(collection))
            .and_then(|ids| ids.get(live))
        {
            return Some(found);
        }
        match self.global.get(live) {
            Some(Target::One(env)) => Some(env),
            // A conflict without an equal pair keeps no mapping either: the live value is ambiguous.
            _ => None,
        }
    }

    /// Whether a live id was ever mapped (in any collection or globally, conflicts included).
    pub fn knows(&self, live: &str) -> bool {
        self.global.contains_key(live)
    }

    /// A live identifier value with its environment id (the live value's JSON kind kept where
    /// the id allows); unmapped values unchanged.
    pub fn translate(&self, collection: Option<&str>, value: &Value) -> Value {
        let Some(text) = id_text(value) else {
            return value.clone();
        };
        match self.lookup(collection, &text) {
            Some(env) if env != text => match value {
                Value::Number(_) => env
                    .parse::<serde_json::Number>()
                    .map(Value::Number)
                    .unwrap_or_else(|_| Value::String(env.to_owned())),
                _ => Value::String(env.to_owned()),
            },
            _ => value.clone(),
        }
    }

    /// How many live ids are in a global conflict involving an equal pair.
    pub fn conflicts(&self) -> usize {
        self.global
            .values()
            .filter(|target| matches!(target, Target::Conflict { equal: true }))
            .count()
    }

    /// How many pairs map a live id to another value (for the report).
    pub fn mapped(&self) -> usize {
        self.global
            .iter()
            .filter(|(live, target)| matches!(target, Target::One(env) if env != *live))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identifier_fields_are_named_by_their_spelling() {
        // contract: COMPARE-014
        for name in [
            "id", "uuid", "guid", "post_id", "postId", "postID", "run_uuid", "runUuid",
        ] {
            assert!(is_identifier_name(name), "{name}");
        }
        for name in ["idea", "paid", "valid", "Id", "_id_x", "identity", "uuids"] {
            assert!(!is_identifier_name(name), "{name}");
        }
        let fields = IdFields {
            state_held: ["title".to_owned()].into(),
        };
        // contract: COMPARE-073
        assert!(fields.is_identifier("title") && !fields.is_identifier("name"));
        assert!(is_id_list("ids") && is_id_list("uuids") && is_id_list("guids"));
    }

    #[test]
    fn collections_keep_their_own_ids_and_equal_pairs_stay_in_them() {
        let mut ids = IdMap::default();
        ids.learn(Some("/posts"), &json!(7), &json!(5));
        ids.learn(Some("/users"), &json!(7), &json!(7));
        // contract: COMPARE-021
        assert_eq!(ids.lookup(Some("/posts"), "7"), Some("5"));
        // contract: COMPARE-022
        assert_eq!(ids.lookup(Some("/users"), "7"), Some("7"));
        // The global mapping of 7 conflicts, with an equal pair: not used, and counted.
        // contract: COMPARE-075
        assert_eq!(ids.lookup(None, "7"), None);
        assert_eq!(ids.lookup(Some("/comments"), "7"), None);
        // contract: COMPARE-076
        assert_eq!(ids.conflicts(), 1);
        assert_eq!(ids.translate(None, &json!(7)), json!(7));
        assert_eq!(ids.translate(Some("/posts"), &json!(7)), json!(5));
        assert_eq!(ids.translate(Some("/posts"), &json!("7")), json!("5"));
    }

    #[test]
    fn answers_teach_ids_by_natural_keys_single_answers_and_bare_ids() {
        let fields = IdFields::default();
        let mut ids = IdMap::default();
        ids.learn_answers(
            &fields,
            "/posts",
            (
                &json!([{"id": 7, "title": "b", "authorId": "u1"}, {"id": 9, "title": "a"}]),
                &json!([{"id": 2, "title": "a"}, {"id": 1, "title": "b", "authorId": "u5"}]),
            ),
            false,
        );
        // contract: COMPARE-015
        assert_eq!(
            (
                ids.lookup(Some("/posts"), "7"),
                ids.lookup(Some("/posts"), "9"),
                ids.lookup(None, "u1")
            ),
            (Some("1"), Some("2"), Some("u5"))
        );
        let mut ids = IdMap::default();
        ids.learn_answers(
            &fields,
            "/runs",
            (
                &json!({"run": {"info": {"run_id": "abc", "experiment_id": "3"}}}),
                &json!({"run": {"info": {"run_id": "xyz", "experiment_id": "1"}}}),
            ),
            false,
        );
        // contract: COMPARE-016
        assert_eq!(
            (ids.lookup(None, "abc"), ids.lookup(None, "3")),
            (Some("xyz"), Some("1"))
        );
        let mut ids = IdMap::default();
        ids.learn_answers(&fields, "/tokens", (&json!("k-41"), &json!("k-1")), false);
        // contract: COMPARE-017
        assert_eq!(ids.lookup(Some("/tokens"), "k-41"), Some("k-1"));
        // Arrays without a natural key teach nothing.
        let mut ids = IdMap::default();
        ids.learn_answers(
            &fields,
            "/x",
            (
                &json!([{"id": 1}, {"id": 2}]),
                &json!([{"id": 3}, {"id": 4}]),
            ),
            false,
        );
        assert_eq!(ids.lookup(None, "1"), None);
        // A served write's own answer lists what its body listed: such lists pair by position.
        let mut ids = IdMap::default();
        ids.learn_answers(
            &fields,
            "/batch",
            (
                &json!([{"success": {"objectId": "live1"}}, {"success": {}}]),
                &json!([{"success": {"objectId": "env1"}}, {"success": {}}]),
            ),
            true,
        );
        assert_eq!(ids.lookup(None, "live1"), Some("env1"));
    }

    #[test]
    fn a_conflict_without_an_equal_pair_is_not_counted() {
        let mut ids = IdMap::default();
        ids.learn(None, &json!("a"), &json!("b"));
        ids.learn(None, &json!("a"), &json!("c"));
        assert_eq!(ids.conflicts(), 0);
        assert_eq!(ids.lookup(None, "a"), None);
        assert!(ids.knows("a"));
    }
}
