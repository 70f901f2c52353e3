//! The differences between the application's answer body and the environment's, after mapping.
//!
//! JSON values compare structurally; text compares as text; bytes (a retained base64 body)
//! compare as bytes, also against UTF-8 text carrying the same bytes. Objects compare member by
//! member (`missing-field`, `extra-field`), arrays item by item once paired ([`crate::pairing`]:
//! `length` when not every item pairs, `order` when paired items come in another order), clocks
//! by format (`clock-format`), identifier fields through the id mapping (and a path's segments
//! naming mapped ids, a link to a generated id: [`segments_translate`]), generated values under
//! the answer's generation rules, and anything else literally (`value`). Each difference has a
//! JSON pointer into the application's answer (an extra member's pointer names where it would
//! be) and both values, cut short.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::clock::{clock_format, clock_named};
use crate::generated::{Admitted, Generation, GenerationKind, admit, broken_aliases, compose};
use crate::ids::{IdFields, IdMap, is_id_list, is_own_identity};
use crate::pairing::pair;

/// The most characters of a value a difference shows.
pub const VALUE_CHARS: usize = 80;

/// A difference category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// The statuses differ.
    Status,
    /// The application's object has a member the environment's lacks.
    MissingField,
    /// The environment's object has a member the application's lacks.
    ExtraField,
    /// Values differ, or one is an object or array and the other is not.
    Value,
    /// Arrays differ in length, or not every item pairs.
    Length,
    /// Paired items come in a different order.
    Order,
    /// Both are clocks, in different formats.
    ClockFormat,
    /// The environment refused the call.
    Refused,
    /// The request's tool is one the environment does not offer.
    NotServed,
    /// No manifest tool matches the request.
    NoTool,
    /// The application answered with success and the environment did not, for a path id the
    /// comparison never mapped.
    UnmappedId,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 11] = [
        Category::Status,
        Category::MissingField,
        Category::ExtraField,
        Category::Value,
        Category::Length,
        Category::Order,
        Category::ClockFormat,
        Category::Refused,
        Category::NotServed,
        Category::NoTool,
        Category::UnmappedId,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Category::Status => "status",
            Category::MissingField => "missing-field",
            Category::ExtraField => "extra-field",
            Category::Value => "value",
            Category::Length => "length",
            Category::Order => "order",
            Category::ClockFormat => "clock-format",
            Category::Refused => "refused",
            Category::NotServed => "not-served",
            Category::NoTool => "no-tool",
            Category::UnmappedId => "unmapped-id",
        }
    }
}

/// One difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// Its category.
    pub category: Category,
    /// A JSON pointer into the application's answer.
    pub pointer: String,
    /// The application's value, cut short (`null` when absent).
    pub live: Option<String>,
    /// The environment's value, cut short (`null` when absent).
    pub env: Option<String>,
}

/// A value as a short text: compact JSON (text bodies as they are), cut to [`VALUE_CHARS`]
/// characters with `…` marking the cut.
pub fn short(value: &Value) -> String {
    cut(&value.to_string())
}

/// A text cut to [`VALUE_CHARS`] characters, `…` marking the cut.
pub fn cut(text: &str) -> String {
    if text.chars().count() <= VALUE_CHARS {
        return text.to_owned();
    }
    let mut kept: String = text.chars().take(VALUE_CHARS - 1).collect();
    kept.push('…');
    kept
}

/// A response body in its representation.
#[derive(Debug, Clone, PartialEq)]
pub enum Representation {
    /// JSON.
    Json(Value),
    /// UTF-8 text that is not JSON.
    Text(String),
    /// Bytes that are not UTF-8.
    Bytes(Vec<u8>),
}

/// How many values of each kind were normalised rather than compared literally.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Normalised {
    /// Clocks that differ in value, compared by format.
    pub clock: u64,
    /// Identifier values mapped to the environment's.
    pub id: u64,
    /// Generated values (and coherent compositions) admitted under a write's rules.
    pub generated: u64,
}

impl Normalised {
    /// Adds another count.
    pub fn add(&mut self, other: Normalised) {
        self.clock += other.clock;
        self.id += other.id;
        self.generated += other.generated;
    }
}

/// What comparing two bodies found.
#[derive(Debug, Clone, Default)]
pub struct BodyComparison {
    /// Every difference, in walk order.
    pub differences: Vec<Difference>,
    /// The normalised values.
    pub normalised: Normalised,
}

/// What the walk reads besides the two values.
pub struct Context<'a> {
    /// The id mapping.
    pub ids: &'a IdMap,
    /// Which members hold ids.
    pub fields: &'a IdFields,
    /// The collection the call names (the answer's own identity maps in it).
    pub collection: Option<&'a str>,
    /// The served write's generation facts, for its own answer.
    pub generation: Option<&'a Generation>,
}

/// Compares the application's body with the environment's.
pub fn compare_bodies(
    context: &Context<'_>,
    live: &Representation,
    env: &Representation,
) -> BodyComparison {
    let composes = context.generation.is_some_and(|generation| {
        generation
            .rules
            .iter()
            .any(|rule| matches!(rule.kind, GenerationKind::Composed(_)))
    });
    let roots = match (live, env) {
        (Representation::Json(live), Representation::Json(env)) if composes => {
            Some((live.clone(), env.clone()))
        }
        _ => None,
    };
    let mut walk = Walk {
        context,
        found: BodyComparison::default(),
        admitted: Vec::new(),
        roots,
    };
    match (live, env) {
        (Representation::Json(live), Representation::Json(env)) => {
            walk.value(live, env, String::new(), Place::root());
            walk.check_aliases();
        }
        _ => {
            let bytes = |representation: &Representation| -> Vec<u8> {
                match representation {
                    Representation::Json(Value::String(text)) => text.as_bytes().to_vec(),
                    Representation::Json(value) => value.to_string().into_bytes(),
                    Representation::Text(text) => text.as_bytes().to_vec(),
                    Representation::Bytes(bytes) => bytes.clone(),
                }
            };
            if bytes(live) != bytes(env) {
                walk.found.differences.push(Difference {
                    category: Category::Value,
                    pointer: String::new(),
                    live: Some(cut(&String::from_utf8_lossy(&bytes(live)))),
                    env: Some(cut(&String::from_utf8_lossy(&bytes(env)))),
                });
            }
        }
    }
    walk.found
}

/// The live and environment objects holding a value.
type Parents<'a> = (&'a Map<String, Value>, &'a Map<String, Value>);

/// Where a value sits: the member holding it, and whether that member's context reads epoch
/// numbers as clocks.
#[derive(Debug, Clone, Copy)]
struct Place<'a> {
    member: Option<&'a str>,
    clock_context: bool,
    /// The value is the answer's own entity (the root, an envelope's object, a listed item).
    own_entity: bool,
    /// The parent object, for composed fields.
    parent: Option<Parents<'a>>,
}

impl Place<'_> {
    fn root() -> Self {
        Place {
            member: None,
            clock_context: false,
            own_entity: true,
            parent: None,
        }
    }
}

struct Walk<'c> {
    context: &'c Context<'c>,
    found: BodyComparison,
    admitted: Vec<Admitted>,
    /// The live and environment bodies, kept when a composed rule may read its parts from an
    /// object enclosing its member's parent (see [`compose_enclosed`]).
    roots: Option<(Value, Value)>,
}

/// One side of a composed field (see [`compose`]): its parts read from the member's parent, else
/// from the nearest object enclosing it that holds them all (a member nested below the written
/// entity, `/data/links/self` built from `/data`'s `made:id`).
fn compose_enclosed(
    parts: &[crate::generated::TemplatePart],
    (parent, root, pointer): (&Map<String, Value>, Option<&Value>, &str),
    sent: Option<&Value>,
    path_params: &[String],
) -> Option<(String, Vec<(String, Value)>)> {
    if let Some(side) = compose(parts, parent, sent, path_params) {
        return Some(side);
    }
    let root = root?;
    let mut at = pointer;
    while let Some((above, _)) = at.rsplit_once('/') {
        at = above;
        if let Some(object) = root.pointer(at).and_then(Value::as_object)
            && let Some(side) = compose(parts, object, sent, path_params)
        {
            return Some(side);
        }
    }
    None
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Whether the live text, a path whose segments (separated by `/`, and in its query by `?`, `&`
/// and `=`) include ids the mapping pairs with other environment ids, spells the environment's
/// once each is translated (a link naming a generated id: `/tasks/<id>/relationships/project`,
/// `/tasks?filter%5Bproject%5D=<id>`); a segment the mapping does not pair is compared as it is.
fn segments_translate(ids: &IdMap, live: &Value, env: &Value) -> bool {
    let (Some(live), Some(env)) = (live.as_str(), env.as_str()) else {
        return false;
    };
    // A text that is one id alone is a value, not a path (an identifier field maps by name).
    if !live.contains('/') {
        return false;
    }
    let mut changed = false;
    let mut rebuilt = String::with_capacity(live.len());
    for piece in live.split_inclusive(['/', '?', '&', '=']) {
        let segment = piece.trim_end_matches(['/', '?', '&', '=']);
        let separator = &piece[segment.len()..];
        match ids.lookup(None, segment) {
            Some(mapped) if !segment.is_empty() && mapped != segment => {
                changed = true;
                rebuilt.push_str(mapped);
            }
            _ => rebuilt.push_str(segment),
        }
        rebuilt.push_str(separator);
    }
    changed && rebuilt == env
}

fn numbers_equal(live: &Value, env: &Value) -> bool {
    match (live, env) {
        (Value::Number(a), Value::Number(b)) => {
            a == b
                || (a.as_f64().is_some() && a.as_f64() == b.as_f64() && (a.is_f64() || b.is_f64()))
        }
        _ => live == env,
    }
}

impl<'c> Walk<'c> {
    fn differ(
        &mut self,
        category: Category,
        pointer: &str,
        live: Option<&Value>,
        env: Option<&Value>,
    ) {
        self.found.differences.push(Difference {
            category,
            pointer: pointer.to_owned(),
            live: live.map(short),
            env: env.map(short),
        });
    }

    fn value<'v>(&mut self, live: &'v Value, env: &'v Value, pointer: String, place: Place<'v>) {
        if let Some(generation) = self.context.generation
            && let Some(rule) = generation.rule_at(&pointer)
        {
            if let GenerationKind::Composed(parts) = &rule.kind {
                return self.composed(parts, live, env, &pointer, place);
            }
            if let Some((live_id, env_id)) = admit(&rule.kind, live, env) {
                self.found.normalised.generated += u64::from(live != env);
                self.admitted.push(Admitted {
                    pointer,
                    live: live_id,
                    env: env_id,
                });
                return;
            }
        }
        if let (Some(left), Some(right)) = (
            clock_format(live, place.clock_context),
            clock_format(env, place.clock_context),
        ) {
            if left != right {
                self.differ(Category::ClockFormat, &pointer, Some(live), Some(env));
            } else if live != env {
                self.found.normalised.clock += 1;
            }
            return;
        }
        match (live, env) {
            (Value::Object(left), Value::Object(right)) => {
                self.object(left, right, &pointer, place)
            }
            (Value::Array(left), Value::Array(right)) => self.array(left, right, &pointer, place),
            _ => self.scalar(live, env, &pointer, place),
        }
    }

    fn object<'v>(
        &mut self,
        left: &'v Map<String, Value>,
        right: &'v Map<String, Value>,
        pointer: &str,
        place: Place<'v>,
    ) {
        // An envelope's one object member holds the answer's own entity too (`{"data": {…}}`).
        let nested = |value: &Value| value.is_object() || value.is_array();
        let envelope = place.own_entity && crate::ids::is_envelope(left);
        for (key, value) in left {
            let at = format!("{pointer}/{}", escape(key));
            match right.get(key) {
                Some(other) => {
                    let child = Place {
                        member: Some(key),
                        clock_context: clock_named(key),
                        own_entity: (envelope && nested(value))
                            || (place.own_entity && !nested(value)),
                        parent: Some((left, right)),
                    };
                    self.value(value, other, at, child);
                }
                None => self.differ(Category::MissingField, &at, Some(value), None),
            }
        }
        for (key, value) in right {
            if !left.contains_key(key) {
                let at = format!("{pointer}/{}", escape(key));
                self.differ(Category::ExtraField, &at, None, Some(value));
            }
        }
    }

    fn array<'v>(
        &mut self,
        left: &'v [Value],
        right: &'v [Value],
        pointer: &str,
        place: Place<'v>,
    ) {
        let paired = pair(left, right, self.context.fields);
        if !paired.complete {
            self.differ(
                Category::Length,
                pointer,
                Some(&Value::from(left.len())),
                Some(&Value::from(right.len())),
            );
        }
        // Listed items are the answer's own entities when the list is the answer (or its
        // envelope's); their scalars keep the list member's name (an `ids` list).
        let item_place = Place {
            member: place.member,
            clock_context: place.clock_context,
            own_entity: place.own_entity,
            parent: place.parent,
        };
        for (a, b) in &paired.pairs {
            self.value(&left[*a], &right[*b], format!("{pointer}/{a}"), item_place);
        }
        if paired.reordered() {
            self.differ(Category::Order, pointer, None, None);
        }
    }

    fn scalar(&mut self, live: &Value, env: &Value, pointer: &str, place: Place<'_>) {
        let translated = match place.member {
            Some(member) if is_own_identity(member) && place.own_entity => {
                Some(self.context.ids.translate(self.context.collection, live))
            }
            Some(member) if self.context.fields.is_identifier(member) || is_id_list(member) => {
                Some(self.context.ids.translate(None, live))
            }
            _ => None,
        };
        let compared = translated.as_ref().unwrap_or(live);
        if numbers_equal(compared, env) {
            if compared != live {
                self.found.normalised.id += 1;
            }
            return;
        }
        if translated.is_none() && segments_translate(self.context.ids, live, env) {
            self.found.normalised.id += 1;
            return;
        }
        self.differ(Category::Value, pointer, Some(live), Some(env));
    }

    fn composed(
        &mut self,
        parts: &[crate::generated::TemplatePart],
        live: &Value,
        env: &Value,
        pointer: &str,
        place: Place<'_>,
    ) {
        let (Some(generation), Some((live_entity, env_entity))) =
            (self.context.generation, place.parent)
        else {
            return self.scalar(live, env, pointer, place);
        };
        let roots = self.roots.as_ref().map(|(live, env)| (live, env));
        let live_side = compose_enclosed(
            parts,
            (live_entity, roots.map(|roots| roots.0), pointer),
            generation.sent.0.as_ref(),
            &generation.path_params.0,
        );
        let env_side = compose_enclosed(
            parts,
            (env_entity, roots.map(|roots| roots.1), pointer),
            generation.sent.1.as_ref(),
            &generation.path_params.1,
        );
        let coherent = |side: &Option<(String, Vec<(String, Value)>)>, value: &Value| {
            side.as_ref()
                .is_some_and(|(built, _)| value.as_str() == Some(built.as_str()))
        };
        let (Some((_, live_parts)), Some((_, env_parts))) = (&live_side, &env_side) else {
            return self.differ(Category::Value, pointer, Some(live), Some(env));
        };
        if !coherent(&live_side, live) || !coherent(&env_side, env) {
            return self.differ(Category::Value, pointer, Some(live), Some(env));
        }
        let parts_agree = live_parts
            .iter()
            .zip(env_parts)
            .all(|((source, a), (_, b))| {
                let member = source.split_once(':').map_or("", |(_, name)| name);
                a == b
                    || clock_format(a, clock_named(member))
                        .is_some_and(|format| clock_format(b, clock_named(member)) == Some(format))
                    || (self.context.fields.is_identifier(member)
                        && numbers_equal(&self.context.ids.translate(None, a), b))
            });
        if parts_agree {
            self.found.normalised.generated += u64::from(live != env);
        } else {
            self.differ(Category::Value, pointer, Some(live), Some(env));
        }
    }

    fn check_aliases(&mut self) {
        for broken in broken_aliases(&self.admitted) {
            self.found.differences.push(Difference {
                category: Category::Value,
                pointer: broken.pointer.clone(),
                live: Some(cut(&broken.live)),
                env: Some(cut(&broken.env)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::{GenerationRule, TemplatePart};
    use serde_json::json;

    fn compared(
        ids: &IdMap,
        generation: Option<&Generation>,
        live: Value,
        env: Value,
    ) -> BodyComparison {
        let fields = IdFields::default();
        let context = Context {
            ids,
            fields: &fields,
            collection: Some("/posts"),
            generation,
        };
        compare_bodies(
            &context,
            &Representation::Json(live),
            &Representation::Json(env),
        )
    }

    fn json_differences(ids: &IdMap, live: Value, env: Value) -> BodyComparison {
        compared(ids, None, live, env)
    }

    fn pointers(found: &BodyComparison) -> Vec<&str> {
        found
            .differences
            .iter()
            .map(|difference| difference.pointer.as_str())
            .collect()
    }

    fn categories(found: &BodyComparison) -> Vec<&'static str> {
        found
            .differences
            .iter()
            .map(|difference| difference.category.name())
            .collect()
    }

    #[test]
    fn iso_clocks_compare_by_format_only() {
        let ids = IdMap::default();
        let same = json_differences(
            &ids,
            json!({"note": {"when": "2026-01-01T10:00:00Z"}}),
            json!({"note": {"when": "2027-05-05T11:11:11Z"}}),
        );
        // contract: COMPARE-029
        assert!(same.differences.is_empty());
        assert_eq!(same.normalised.clock, 1);
        let other = json_differences(
            &ids,
            json!({"when": "2026-01-01T10:00:00Z"}),
            json!({"when": "2026-01-01T10:00:00.000Z"}),
        );
        // contract: COMPARE-090
        assert_eq!(categories(&other), vec!["clock-format"]);
        assert_eq!(other.differences[0].pointer, "/when");
    }

    #[test]
    fn epoch_numbers_are_clocks_under_clock_names_only() {
        let ids = IdMap::default();
        for name in [
            "at",
            "time",
            "date",
            "timestamp",
            "created",
            "updated",
            "modified",
            "last_modified",
            "createdAt",
            "creation_time",
        ] {
            let found = json_differences(
                &ids,
                json!({ name: 1795950612507_i64 }),
                json!({ name: 1795950605114_i64 }),
            );
            // contract: COMPARE-030
            assert!(found.differences.is_empty(), "{name}: {found:?}");
        }
        let literal = json_differences(
            &ids,
            json!({"schema": 1795950612507_i64}),
            json!({"schema": 1795950605114_i64}),
        );
        assert_eq!(categories(&literal), vec!["value"]);
        let units = json_differences(
            &ids,
            json!({"updated": 1795950612507_i64}),
            json!({"updated": 1795950612_i64}),
        );
        assert_eq!(categories(&units), vec!["clock-format"]);
    }

    #[test]
    fn clock_context_follows_arrays_and_stops_at_objects() {
        let ids = IdMap::default();
        let nested = json_differences(
            &ids,
            json!({"timestamp": [[1795950612507_i64, 1795950612508_i64]]}),
            json!({"timestamp": [[1795950605114_i64, 1795950605115_i64]]}),
        );
        // contract: COMPARE-031
        assert!(nested.differences.is_empty(), "{nested:?}");
        let own = json_differences(
            &ids,
            json!({"created": {"count": 1795950612507_i64}}),
            json!({"created": {"count": 1795950605114_i64}}),
        );
        // contract: COMPARE-032
        assert_eq!(categories(&own), vec!["value"]);
        assert_eq!(own.differences[0].pointer, "/created/count");
        let root = json_differences(&ids, json!(1795950612507_i64), json!(1795950605114_i64));
        let root_array =
            json_differences(&ids, json!([1795950612507_i64]), json!([1795950605114_i64]));
        let measured = json_differences(
            &ids,
            json!({"duration_ms": 1795950612507_i64, "response_time": 1795950612507_i64}),
            json!({"duration_ms": 1795950605114_i64, "response_time": 1795950612507_i64}),
        );
        // contract: COMPARE-033
        assert_eq!(
            (
                categories(&root),
                categories(&root_array),
                categories(&measured)
            ),
            (vec!["value"], vec!["value"], vec!["value"])
        );
    }

    #[test]
    fn ids_map_at_identifier_fields_only() {
        let mut ids = IdMap::default();
        ids.learn(Some("/posts"), &json!(7), &json!(5));
        ids.learn(None, &json!("u-1"), &json!("u-9"));
        let found = json_differences(
            &ids,
            json!({"id": 7, "authorId": "u-1", "ids": ["u-1"], "views": 7, "note": "u-1"}),
            json!({"id": 5, "authorId": "u-9", "ids": ["u-9"], "views": 5, "note": "u-9"}),
        );
        // contract: COMPARE-073
        assert_eq!(found.normalised.id, 3);
        // contract: COMPARE-074
        assert_eq!(pointers(&found), vec!["/note", "/views"]);
    }

    #[test]
    fn a_link_naming_a_mapped_id_compares_through_the_mapping() {
        let mut ids = IdMap::default();
        ids.learn(None, &json!("gyDs1uK9iu2Ivm3"), &json!("iSpbIaU3Sjihy6L"));
        let found = json_differences(
            &ids,
            json!({"links": {"self": "/tasks/gyDs1uK9iu2Ivm3/relationships/project"}}),
            json!({"links": {"self": "/tasks/iSpbIaU3Sjihy6L/relationships/project"}}),
        );
        assert!(found.differences.is_empty(), "{:?}", found.differences);
        assert_eq!(found.normalised.id, 1);
        // Another id, or the same id under another path, still differs.
        for env in [
            "/tasks/sw9YeN4TiaFA8hk/project",
            "/tasks/iSpbIaU3Sjihy6L/assignee",
        ] {
            let found = json_differences(
                &ids,
                json!({"links": {"self": "/tasks/gyDs1uK9iu2Ivm3/project"}}),
                json!({"links": {"self": env}}),
            );
            assert_eq!(categories(&found), ["value"], "{env}");
        }
        // An id in the link's query compares through the mapping too; another value does not.
        let live = "/tasks?filter%5Bproject%5D=gyDs1uK9iu2Ivm3&sort=title";
        for (env, differs) in [
            (
                "/tasks?filter%5Bproject%5D=iSpbIaU3Sjihy6L&sort=title",
                false,
            ),
            ("/tasks?filter%5Bproject%5D=iSpbIaU3Sjihy6L&sort=name", true),
            (
                "/tasks?filter%5Bassignee%5D=iSpbIaU3Sjihy6L&sort=title",
                true,
            ),
        ] {
            let found = json_differences(
                &ids,
                json!({"links": {"self": live}}),
                json!({"links": {"self": env}}),
            );
            assert_eq!(!found.differences.is_empty(), differs, "{env}");
        }
    }

    #[test]
    fn representations_compare_as_json_text_or_bytes() {
        let ids = IdMap::default();
        let fields = IdFields::default();
        let context = Context {
            ids: &ids,
            fields: &fields,
            collection: None,
            generation: None,
        };
        // contract: COMPARE-070
        assert!(
            compare_bodies(
                &context,
                &Representation::Json(json!({"a": [1, 2.5], "b": null})),
                &Representation::Json(json!({"b": null, "a": [1, 2.50]}))
            )
            .differences
            .is_empty()
        );
        // contract: COMPARE-071
        assert_eq!(
            compare_bodies(
                &context,
                &Representation::Text("plain words".into()),
                &Representation::Text("plain word".into())
            )
            .differences
            .len(),
            1
        );
        // contract: COMPARE-072
        assert!(
            compare_bodies(
                &context,
                &Representation::Bytes(b"caf\xc3\xa9".to_vec()),
                &Representation::Text("café".into())
            )
            .differences
            .is_empty()
        );
        assert_eq!(
            compare_bodies(
                &context,
                &Representation::Bytes(vec![0xff, 0x00]),
                &Representation::Bytes(vec![0xff, 0x01])
            )
            .differences
            .len(),
            1
        );
    }

    #[test]
    fn each_structural_difference_has_its_category_and_pointer() {
        let ids = IdMap::default();
        let found = json_differences(
            &ids,
            json!({"a": 1, "b": [1, 2], "c": "x", "d": {"e": 1}, "f/g": 1}),
            json!({"b": [1], "c": "y", "d": 3, "f/g": 1, "h": true}),
        );
        // contract: COMPARE-085, COMPARE-086, COMPARE-087, COMPARE-088
        assert_eq!(
            categories(&found),
            vec!["missing-field", "length", "value", "value", "extra-field"]
        );
        // contract: COMPARE-083
        assert_eq!(
            found.differences[0],
            Difference {
                category: Category::MissingField,
                pointer: "/a".into(),
                live: Some("1".into()),
                env: None
            }
        );
        assert_eq!(found.differences[3].pointer, "/d");
        assert_eq!(found.differences[4].pointer, "/h");
        let escaped = json_differences(&ids, json!({"f/g~": 1}), json!({"f/g~": 2}));
        assert_eq!(escaped.differences[0].pointer, "/f~1g~0");
        let long = "x".repeat(500);
        let cut_short = json_differences(&ids, json!({ "a": long }), json!({"a": "y"}));
        // contract: COMPARE-083
        assert_eq!(
            cut_short.differences[0]
                .live
                .as_ref()
                .map(|text| text.chars().count()),
            Some(VALUE_CHARS)
        );
        let reordered = json_differences(
            &ids,
            json!([{"name": "a"}, {"name": "b"}]),
            json!([{"name": "b"}, {"name": "a"}]),
        );
        // contract: COMPARE-089
        assert_eq!(categories(&reordered), vec!["order"]);
    }

    fn written(rules: Vec<GenerationRule>) -> Generation {
        Generation {
            rules,
            path_params: (Vec::new(), Vec::new()),
            sent: (None, None),
        }
    }

    fn with_generation(generation: &Generation, live: Value, env: Value) -> BodyComparison {
        compared(&IdMap::default(), Some(generation), live, env)
    }

    #[test]
    fn generated_values_normalise_only_under_the_write_rules() {
        let live = json!({"token": "ab12cd34ef", "sku": "AB-1234567", "seq": 5});
        let env = json!({"token": "zz99yy00xx", "sku": "CD-7654321", "seq": 6});
        let no_rules = json_differences(&IdMap::default(), live.clone(), env.clone());
        // contract: COMPARE-040
        assert_eq!(categories(&no_rules), vec!["value", "value", "value"]);
        // contract: COMPARE-041
        assert_eq!(no_rules.normalised.generated, 0);
        let generation = written(vec![GenerationRule {
            kind: GenerationKind::Token,
            pointer: "/token".into(),
        }]);
        let found = with_generation(&generation, live, env);
        // contract: COMPARE-034
        assert_eq!(found.normalised.generated, 1);
        // contract: COMPARE-039
        assert_eq!(pointers(&found), vec!["/seq", "/sku"]);
    }

    #[test]
    fn generated_values_keep_aliases_within_one_answer_and_end_with_it() {
        let generation = written(vec![
            GenerationRule {
                kind: GenerationKind::Uuid,
                pointer: "/run_uuid".into(),
            },
            GenerationRule {
                kind: GenerationKind::Uuid,
                pointer: "/info/uuid".into(),
            },
        ]);
        let a = "5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11";
        let b = "a3b9e2f0-7c1d-4e85-b6a2-0f9c3d4e5a22";
        let c = "c7e1f4a2-9b3d-4f60-8e17-2a5b6c7d8e33";
        let kept = with_generation(
            &generation,
            json!({"run_uuid": a, "info": {"uuid": a}}),
            json!({"run_uuid": b, "info": {"uuid": b.to_uppercase()}}),
        );
        assert!(kept.differences.is_empty(), "{kept:?}");
        let broken = with_generation(
            &generation,
            json!({"run_uuid": a, "info": {"uuid": a}}),
            json!({"run_uuid": b, "info": {"uuid": c}}),
        );
        // contract: COMPARE-043
        assert_eq!(categories(&broken), vec!["value", "value"]);
        // The next answer maps the same live value to another one: no correspondence carries over.
        let next = with_generation(
            &generation,
            json!({"run_uuid": a, "info": {"uuid": a}}),
            json!({"run_uuid": c, "info": {"uuid": c}}),
        );
        // contract: COMPARE-046
        assert!(next.differences.is_empty());
    }

    fn composed_generation(sent: (Value, Value)) -> Generation {
        Generation {
            rules: vec![GenerationRule {
                kind: GenerationKind::Composed(vec![
                    TemplatePart::Text("store:/".into()),
                    TemplatePart::Source("held:experiment_id".into()),
                    TemplatePart::Text("/".into()),
                    TemplatePart::Source("held:created".into()),
                ]),
                pointer: "/uri".into(),
            }],
            path_params: (Vec::new(), Vec::new()),
            sent: (Some(sent.0), Some(sent.1)),
        }
    }

    #[test]
    fn composed_fields_normalise_when_each_side_spells_its_own_parts() {
        let generation = composed_generation((json!({}), json!({})));
        let coherent = with_generation(
            &generation,
            json!({"experiment_id": "4", "created": "2026-01-01T10:00:00Z", "uri": "store:/4/2026-01-01T10:00:00Z"}),
            json!({"experiment_id": "4", "created": "2027-03-03T11:11:11Z", "uri": "store:/4/2027-03-03T11:11:11Z"}),
        );
        // contract: COMPARE-047, COMPARE-048, COMPARE-049
        assert!(coherent.differences.is_empty(), "{coherent:?}");
        // contract: COMPARE-051
        assert_eq!(
            (coherent.normalised.generated, coherent.normalised.clock),
            (1, 1)
        );
        let stale = with_generation(
            &generation,
            json!({"experiment_id": "4", "created": "2026-01-01T10:00:00Z", "uri": "store:/3/2026-01-01T10:00:00Z"}),
            json!({"experiment_id": "4", "created": "2026-01-01T10:00:00Z", "uri": "store:/3/2026-01-01T10:00:00Z"}),
        );
        // contract: COMPARE-050
        assert_eq!(categories(&stale), vec!["value"]);
        let other_part = with_generation(
            &generation,
            json!({"experiment_id": "4", "created": "2026-01-01T10:00:00Z", "uri": "store:/4/2026-01-01T10:00:00Z"}),
            json!({"experiment_id": "5", "created": "2026-01-01T10:00:00Z", "uri": "store:/5/2026-01-01T10:00:00Z"}),
        );
        // contract: COMPARE-047
        assert_eq!(pointers(&other_part), vec!["/experiment_id", "/uri"]);
        // A member nested below the entity reads a `made:` part from the object enclosing it.
        let nested = Generation {
            rules: vec![GenerationRule {
                kind: GenerationKind::Composed(vec![
                    TemplatePart::Text("/items/".into()),
                    TemplatePart::Source("made:id".into()),
                    TemplatePart::Text("/".into()),
                ]),
                pointer: "/data/links/self".into(),
            }],
            ..Generation::default()
        };
        let agreeing = with_generation(
            &nested,
            json!({"data": {"id": "10", "links": {"self": "/items/10/"}}}),
            json!({"data": {"id": "10", "links": {"self": "/items/10/"}}}),
        );
        assert!(agreeing.differences.is_empty(), "{agreeing:?}");
        let incoherent = with_generation(
            &nested,
            json!({"data": {"id": "10", "links": {"self": "/items/10/"}}}),
            json!({"data": {"id": "10", "links": {"self": "/items/9/"}}}),
        );
        assert_eq!(pointers(&incoherent), vec!["/data/links/self"]);
    }
}
