//! The differences between the application's answer body and the environment's, after mapping.
//!
//! JSON values compare structurally; text compares as text; bytes (a retained base64 body)
//! compare as bytes, also against UTF-8 text carrying the same bytes. Objects compare member by
//! member (`missing-field`, `extra-field`), arrays item by item once paired ([`crate::pairing`]:
//! `length` when not every item pairs, `order` when paired items come in another order), clocks
//! by format (`clock-format`), identifier fields through the id mapping, generated values under
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
    let mut walk = Walk {
        context,
        found: BodyComparison::default(),
        admitted: Vec::new(),
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
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
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
        let live_side = compose(
            parts,
            live_entity,
            generation.sent.0.as_ref(),
            &generation.path_params.0,
        );
        let env_side = compose(
            parts,
            env_entity,
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
