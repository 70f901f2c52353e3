//! The environment manifest: the projection of one capture's records into a tool surface.
//!
//! The JSON format is `rea`'s own (the reference's `web-network-captures.md` is not available);
//! it keeps every member the spec names. Members are declared in alphabetical order so serde
//! writes canonical (sorted) JSON, and every list has a defined order, so the same capture and
//! rules give byte-identical output:
//!
//! ```json
//! {
//!   "excluded_groups": [{"method": "GET", "origin": "…", "path_template": "/", "reason": "page-or-asset", "record_ordinals": [0]}],
//!   "format_rules": ["numeric", "uuid", "ulid", "hex"],
//!   "name": "127-0-0-1-3000",
//!   "parent_evidence_id": "ev_…",
//!   "primary_origin": "http://127.0.0.1:3000",
//!   "records": {"cited": 56, "excluded": 1, "total": 57},
//!   "template_rules": ["after-uid-literal", "opaque-token", "sibling-variance"],
//!   "tools": [{
//!     "method": "GET", "name": "get_posts_by_id", "path_template": "/posts/{numeric}",
//!     "path_parameters": [{"name": "id", "observed_values": ["1", "2"], "rule": "numeric", "segment_index": 1}],
//!     "query_parameters": [{"name": "_embed", "records": 1, "repeated": false}],
//!     "record_ordinals": [4, 5, 24], "request_body": null, "request_media_types": [],
//!     "response_body": {"item_members": {}, "kinds": ["json-object"], "members": {"id": ["number"]}, "records": 3},
//!     "response_media_types": ["application/json; charset=utf-8"], "statuses": [200]
//!   }],
//!   "unknowns": [{"statement": "…", "subject": "authorization-model"}, …],
//!   "view": "environment-manifest"
//! }
//! ```
//!
//! It carries no bodies and no headers: body shapes name top-level members and JSON types only.

use std::collections::BTreeMap;

use rea_plugin_api::contracts::capture::CompactString;
use serde::{Deserialize, Serialize};

/// The view kind a manifest names in `view`.
pub const MANIFEST_VIEW_KIND: &str = "environment-manifest";

/// An environment manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Groups of primary-origin or other-origin records that became no tool, with the reason.
    pub excluded_groups: Vec<ExcludedGroup>,
    /// The built-in format rules, which always apply (informative).
    pub format_rules: Vec<String>,
    /// Portable kebab-case name from the primary origin.
    pub name: String,
    /// The `evidence_id` of the capture Evidence the manifest was projected from.
    pub parent_evidence_id: String,
    /// The origin with the most JSON-like records; every tool is on it.
    pub primary_origin: String,
    /// The heads of ids over two segments (`@corp` of `@corp/ui-kit`, `_design` of
    /// `_design/catalog`): a segment spelling one and the segment after it are read as one
    /// segment, the `/` encoded, by the projection, the state, replay and the comparer
    /// ([`crate::joined`]; left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joined_segments: Vec<String>,
    /// How many records the capture has, how many tools cite, how many excluded groups hold.
    pub records: RecordCounts,
    /// The route-form stages run after the template rules, in order (left out when none ran).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route_forms: Vec<String>,
    /// The opt-in template rules applied, in their fixed order.
    pub template_rules: Vec<String>,
    /// One tool per method and path template, in order of first cited record.
    pub tools: Vec<ManifestTool>,
    /// What replay cannot establish.
    pub unknowns: Vec<Unknown>,
    /// Always [`MANIFEST_VIEW_KIND`].
    pub view: String,
}

/// Record counts of a manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordCounts {
    /// Records cited by tools.
    pub cited: u64,
    /// Records in excluded groups.
    pub excluded: u64,
    /// Records in the capture.
    pub total: u64,
}

/// One tool: a method and a path template on the primary origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestTool {
    /// The method as recorded.
    pub method: String,
    /// The tool name: stable, readable, MCP-legal, unique in the manifest.
    pub name: String,
    /// Inferred path parameters, by segment index.
    pub path_parameters: Vec<PathParameter>,
    /// `/` + segments, literal segments as recorded and parameters as `{<rule>}`, with the literal
    /// text a route form left around the parameter in its segment (`{numeric}.json`).
    pub path_template: String,
    /// Observed query parameter names, in order of first appearance.
    pub query_parameters: Vec<QueryParameter>,
    /// The cited records' ordinals, in capture order (replay's manifest order).
    pub record_ordinals: Vec<u64>,
    /// The value-free shape of the recorded request bodies; `null` when no record carried one.
    pub request_body: Option<BodyShape>,
    /// The recorded request media types, sorted.
    pub request_media_types: Vec<String>,
    /// The value-free shape of the recorded response bodies; `null` when no record carried one.
    pub response_body: Option<BodyShape>,
    /// The recorded response media types, sorted.
    pub response_media_types: Vec<String>,
    /// The recorded statuses, sorted (a record without an answer, status 0, adds none).
    pub statuses: Vec<u16>,
    /// The tool this one is inferred from (opt-in sibling transfer, see [`crate::siblings`],
    /// [`crate::sibling_reads`]): offered on a sibling collection or depth, citing no record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred_from: Option<String>,
    /// Whether the path also matches with its trailing slash removed or added: an item route of
    /// a collection the recording answered in both spellings ([`crate::slash_spellings`]; left
    /// out when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trailing_slash_optional: bool,
}

/// An inferred path parameter.
///
/// A route form may make only part of a segment the parameter: the segment is then `prefix`, the
/// value, `suffix` (`/tracker/tasks/7.json`: value `7`, suffix `.json`), and calls give the value
/// alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathParameter {
    /// Whether a segment outside the format `rule` names is this parameter's value too: an id of
    /// another spelling at an item route whose missing-entity answer the recording shows, which
    /// the environment answers as an id it does not hold ([`crate::missing_ids`]; left out when
    /// false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any_segment: bool,
    /// The parameter's name.
    pub name: String,
    /// Every observed value (the segment without the prefix and suffix), as recorded, in order of
    /// first appearance. Each is held inline up to 24 bytes (an id, a slug): a parameter of 16k
    /// item reads held 16k small allocations, made after the route forms freed their working set
    /// and so scattered through it, keeping its pages resident (issue 17).
    pub observed_values: Vec<CompactString>,
    /// Literal text the segment holds before the value (empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// The templating rule (`numeric`, `uuid`, `ulid`, `hex`, `after-uid-literal`, a route form's
    /// rule such as `fused-affix`, …).
    pub rule: String,
    /// Zero-based index of the segment (`/api/users/2`: index 2).
    pub segment_index: usize,
    /// Literal text the segment holds after the value (empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suffix: String,
}

impl PathParameter {
    /// Whether the parameter is only part of its segment.
    pub fn is_fused(&self) -> bool {
        !self.prefix.is_empty() || !self.suffix.is_empty()
    }

    /// The segment a value makes: `prefix` + value + `suffix`.
    pub fn segment_for(&self, value: &str) -> String {
        crate::segments::fused_segment(&self.prefix, value, &self.suffix)
    }

    /// The value a recorded segment holds: the segment without the prefix and suffix, when it has
    /// both and something between them (a whole-segment parameter's value is the segment).
    pub fn value_in<'s>(&self, segment: &'s str) -> Option<&'s str> {
        crate::segments::fused_value(&self.prefix, &self.suffix, segment)
    }
}

/// An observed query parameter name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryParameter {
    /// The decoded name.
    pub name: String,
    /// How many cited records carry it.
    pub records: u64,
    /// Whether some record carries it more than once.
    pub repeated: bool,
}

/// The value-free shape of recorded bodies: which kinds, which top-level members with which
/// JSON types.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyShape {
    /// Members of objects in a root JSON array, with their JSON types.
    pub item_members: BTreeMap<String, Vec<String>>,
    /// Body kinds seen: `json-object`, `json-array`, `json-scalar`, `form`, `text`, `binary`,
    /// `empty`, `unreadable`.
    pub kinds: Vec<String>,
    /// Top-level members of JSON objects and form fields, with their types (`string`, `number`,
    /// `boolean`, `null`, `object`, `array`).
    pub members: BTreeMap<String, Vec<String>>,
    /// How many records carried a body.
    pub records: u64,
}

/// A group of records that became no tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExcludedGroup {
    /// The method as recorded (`null` when the capture did not keep it).
    pub method: Option<String>,
    /// The records' origin (`null` for a URL without one, or one not kept).
    pub origin: Option<String>,
    /// The path template, as for tools (`null` for `no-request-line`).
    pub path_template: Option<String>,
    /// `other-origin` (not the primary origin), `page-or-asset` (every response was a page or a
    /// static asset, or a static file path with no JSON-like answer) or `no-request-line` (one
    /// record whose method, origin or path the capture did not keep, such as a `data:` URL).
    pub reason: String,
    /// The group's record ordinals, in capture order.
    pub record_ordinals: Vec<u64>,
}

/// Something replay cannot establish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unknown {
    /// One sentence.
    pub statement: String,
    /// `authorization-model`, `response-semantics` or `state-transitions`.
    pub subject: String,
}

impl Manifest {
    /// The tool of that name.
    pub fn tool(&self, name: &str) -> Option<&ManifestTool> {
        self.tools.iter().find(|tool| tool.name == name)
    }
}

impl ManifestTool {
    /// The path parameter at a segment index.
    pub fn path_parameter(&self, segment_index: usize) -> Option<&PathParameter> {
        self.path_parameters
            .iter()
            .find(|parameter| parameter.segment_index == segment_index)
    }
}
