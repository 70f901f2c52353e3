//! The route-form contract: which literal segments of recorded paths become path parameters.
//!
//! The manifest view templates each origin's recorded paths. The built-in format rules
//! (`numeric`, `uuid`, `ulid`, `hex`) mark whole segments first; then each route form the
//! pipeline names runs in order. A form sees every record of the origin with the forms its
//! segments have so far and proposes forms for segments still literal. A form makes a segment a
//! parameter, or only the part of it between a literal prefix and suffix (`{numeric}.json`,
//! `org.couchdb.user:{…}`), so an id fused with literal text still gets one tool.
//!
//! ```json
//! {"options": {}, "schema_version": 1, "routes": [
//!   {"method": "GET", "segments": ["tracker", "tasks", "1.json"],
//!    "decoded": ["tracker", "tasks", "1.json"], "forms": [null, null, null],
//!    "answer": {"status": 200, "json": "object", "members": ["ok", "rows"],
//!               "values": [{"pointer": "/rows/0/id", "in_array": true, "text": "1"}]}}]}
//! → {"schema_version": 1, "changes": [
//!     {"route": 0, "segment": 2, "form": {"rule": "numeric", "suffix": ".json"}}]}
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::capture::CompactString;
use super::{current_schema_version, schema_versioned};

/// What a route form is asked: one origin's records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteFormRequest {
    /// The stage's options from the pipeline (the built-in forms define none).
    #[serde(default)]
    pub options: Map<String, Value>,
    /// The origin's records, in capture order.
    #[serde(deserialize_with = "super::exact_list")]
    pub routes: Vec<RecordedRoute>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// One recorded request line and what it answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedRoute {
    /// The method as recorded.
    pub method: CompactString,
    /// The path's segments as recorded, percent-encoding kept (`/a//b` is `["a", "", "b"]`).
    #[serde(deserialize_with = "super::exact_list")]
    pub segments: Vec<CompactString>,
    /// The same segments percent-decoded (as recorded where the decoded bytes are not UTF-8).
    #[serde(deserialize_with = "super::exact_list")]
    pub decoded: Vec<CompactString>,
    /// The form of each segment so far, `null` for a literal segment.
    #[serde(deserialize_with = "super::exact_list")]
    pub forms: Vec<Option<SegmentForm>>,
    /// The recorded answer.
    pub answer: RecordedAnswer,
}

/// What a recorded request answered, reduced to what templating asks of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedAnswer {
    /// The status (0: no answer).
    pub status: u16,
    /// The JSON kind of a 2xx answer whose media type is JSON-like and whose text parses
    /// (`object`, `array` or `scalar`); `null` for any other answer.
    pub json: Option<CompactString>,
    /// The member names of a 2xx JSON object answer, sorted.
    #[serde(default, deserialize_with = "super::exact_list")]
    pub members: Vec<CompactString>,
    /// The member names of the objects a 2xx JSON answer lists, sorted: those of the root array,
    /// or of the longest array of objects a top-level member holds (the first of equal length);
    /// empty when it lists none. Sibling collections whose items share no shape are no family.
    #[serde(default, deserialize_with = "super::exact_list")]
    pub item_members: Vec<CompactString>,
    /// The scalars of a 2xx JSON answer, at most three levels below the root (object members
    /// and array items), whose text some path of the origin spells: a whole segment as recorded
    /// or decoded, or a run of a decoded segment's parts between separators (`.`, `:`, `,`, `-`,
    /// `_`, `@`, `~`, `+`, `=`, space). In document order, at most 256.
    #[serde(default, deserialize_with = "super::exact_list")]
    pub values: Vec<AnswerValue>,
    /// The strings of a 2xx JSON answer, at most eight levels below the root, that spell a path
    /// run: two or more consecutive decoded segments of some path of the origin joined by `/`,
    /// or `/` and one or more of them (`notes/todo.md`, `/config/billing`), as a folder listing
    /// names what it holds. In document order, at most 256. Texts the route-form request of an
    /// older host leaves out (empty).
    #[serde(default, deserialize_with = "super::exact_list")]
    pub paths: Vec<AnswerValue>,
    /// The member names of a 2xx JSON answer's maps, at most two levels below the root, that a
    /// path of the origin spells as a whole decoded segment: the names of an object whose members
    /// all hold one JSON kind (`{"latest": "1.1.0", "next": "2.0.0"}`, `versions: {"1.0.0": {…}}`,
    /// `_attachments: {"cover.txt": {…}}`), as a document names its parts. `pointer` is the
    /// member's, `text` its name. In document order, at most 256. Names the route-form request of
    /// an older host leaves out (empty).
    #[serde(
        default,
        deserialize_with = "super::exact_list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub keys: Vec<AnswerValue>,
}

/// A scalar of a recorded answer that a path spells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerValue {
    /// Where it is (a JSON Pointer).
    pub pointer: CompactString,
    /// Whether an array holds it on its way from the root.
    pub in_array: bool,
    /// Its JSON text: a string's content, a number or boolean as spelled.
    pub text: CompactString,
}

/// The form of a parameter segment.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SegmentForm {
    /// The rule's name, the template's placeholder (`{numeric}`, `{sibling-variance}`).
    pub rule: String,
    /// Literal text the segment holds before the parameter (`org.couchdb.user:`), empty for
    /// none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// Literal text the segment holds after the parameter (`.json`), empty for none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suffix: String,
    /// The argument name the form proposes (such as `collection`); the manifest names it
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl SegmentForm {
    /// A whole-segment parameter of a rule.
    pub fn whole(rule: impl Into<String>) -> Self {
        Self {
            rule: rule.into(),
            prefix: String::new(),
            suffix: String::new(),
            name: None,
        }
    }

    /// The parameter's value in a recorded segment: the segment without the form's prefix and
    /// suffix, when it has both and something between them.
    pub fn value_in<'s>(&self, segment: &'s str) -> Option<&'s str> {
        crate::route_fields::fused_value(&self.prefix, &self.suffix, segment)
    }

    /// The placeholder as a path template spells it: `prefix{rule}suffix`.
    pub fn placeholder(&self) -> String {
        format!("{}{{{}}}{}", self.prefix, self.rule, self.suffix)
    }
}

/// What a route form proposes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteFormOutcome {
    /// Forms for segments that were literal in the request; the host ignores a change to a
    /// segment that already had a form.
    pub changes: Vec<SegmentChange>,
    /// Groups of routes (indexes in the request) read with one query language, so the tools they
    /// make take each other's query names (a folder tree's root and its entries at every depth:
    /// `recursive` recorded on `/v2/keys/config` is taken by the root `/v2/keys/` too). The host
    /// merges overlapping groups and shares names only between tools of one method; a form that
    /// learns none leaves it empty (and an older form's outcome lacks it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query_families: Vec<Vec<usize>>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// One proposed parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentChange {
    /// The route's index in the request.
    pub route: usize,
    /// The segment's index in the route.
    pub segment: usize,
    /// Its form.
    pub form: SegmentForm,
}

/// What a route form is asked about write routes (added after [`RouteFormRequest`]): the
/// `POST` tools whose path places no entity of the state (no type's collection holds it), so
/// that a form knowing an application's action routes can say which segment names the entity a
/// call acts on and what the call does to it. The host keeps a proposal only where the reads
/// after every recorded call name that entity.
///
/// ```json
/// {"schema_version": 1, "routes": [{"method": "POST",
///   "segments": ["tracker", "{prefix-variance}", "{numeric}", "-", "update"],
///   "parameters": [false, true, true, false, false]}]}
/// → {"schema_version": 1, "actions": [{"route": 0, "segment": 2, "effect": "update"}]}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRouteRequest {
    /// The write routes, one per tool.
    pub routes: Vec<WriteRoute>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// One write tool's route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteRoute {
    /// The method.
    pub method: String,
    /// The path template's segments as the template spells them (`{numeric}`, `{rule}.json`).
    pub segments: Vec<String>,
    /// Whether each segment is a parameter (whole or fused with literal text).
    pub parameters: Vec<bool>,
}

/// What a route form proposes for write routes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRouteOutcome {
    /// The routes that act on the entity one of their parameter segments names; a route the
    /// form does not recognise is left out.
    #[serde(default)]
    pub actions: Vec<ActionRoute>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// What a call of one write route does, by the form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRoute {
    /// The route's index in the request.
    pub route: usize,
    /// The parameter segment naming the entity the call acts on.
    pub segment: usize,
    /// What the call does to it.
    pub effect: ActionEffect,
    /// The action the call performs (a verb such as `tell`), `None` for a plain update or a
    /// delete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// What an action route's call does to the entity it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionEffect {
    /// It changes the entity.
    Update,
    /// It removes the entity.
    Delete,
}

schema_versioned! {
    RouteFormRequest => "route form request",
    RouteFormOutcome => "route form outcome",
    ActionRouteRequest => "action route request",
    ActionRouteOutcome => "action route outcome",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fused_form_finds_its_value_and_spells_its_placeholder() {
        let form = SegmentForm {
            suffix: ".json".into(),
            ..SegmentForm::whole("numeric")
        };
        assert_eq!(form.value_in("7.json"), Some("7"));
        assert_eq!(form.value_in(".json"), None);
        assert_eq!(form.value_in("7.csv"), None);
        assert_eq!(form.placeholder(), "{numeric}.json");
        let prefixed = SegmentForm {
            prefix: "org.couchdb.user:".into(),
            ..SegmentForm::whole("fused-affix")
        };
        assert_eq!(prefixed.value_in("org.couchdb.user:bea"), Some("bea"));
        assert_eq!(prefixed.placeholder(), "org.couchdb.user:{fused-affix}");
        assert_eq!(SegmentForm::whole("numeric").value_in(""), Some(""));
    }

    #[test]
    fn forms_serialize_without_empty_affixes() {
        let text = serde_json::to_string(&SegmentForm::whole("uuid")).unwrap();
        assert_eq!(text, r#"{"rule":"uuid"}"#);
        let back: SegmentForm = serde_json::from_str(r#"{"rule":"x","suffix":".tgz"}"#).unwrap();
        assert_eq!(back.suffix, ".tgz");
    }
}
