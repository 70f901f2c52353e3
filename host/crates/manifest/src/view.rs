//! The analysis-view request (`view.json`):
//!
//! ```json
//! {"source": {"kind": "inline", "evidence": {…capture Evidence…}}
//!          | {"kind": "evidence-file", "path": "capture.json"},
//!  "view": {"kind": "environment-manifest", "template_rules": ["after-uid-literal", …]}}
//! ```
//!
//! Parsing checks the request's structure only; reading the Evidence is the caller's. Inline
//! Evidence is kept as raw JSON text, not parsed into a tree here. Every refusal is
//! `invalid_request` with a JSON pointer to the offending member: a member the request does not
//! define, a missing or mistyped member, an unknown source or view kind, an unknown or repeated
//! template rule. New view kinds (`environment-state`, `environment-coverage`) are added as
//! [`ViewSpec`] variants next to [`ViewSpec::EnvironmentManifest`].

use std::collections::BTreeMap;

use rea_evidence::Refusal;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::projection::STAGE;
use crate::template::{RuleListError, TemplateRules};

/// A parsed view request.
#[derive(Debug)]
pub struct ViewRequest {
    /// Where the capture Evidence comes from.
    pub source: ViewSource,
    /// Which view to project.
    pub view: ViewSpec,
}

/// Where a view's Evidence comes from.
#[derive(Debug)]
pub enum ViewSource {
    /// The whole capture Evidence, inline (raw JSON text of an object).
    Inline {
        /// The Evidence document as written.
        evidence: Box<RawValue>,
    },
    /// A capture Evidence file, projected as retained Evidence. A relative path is resolved by
    /// the caller (the CLI resolves it against the view file's folder).
    EvidenceFile {
        /// The path as written.
        path: String,
    },
}

impl ViewSource {
    /// The source kind as written.
    pub fn kind(&self) -> &'static str {
        match self {
            ViewSource::Inline { .. } => "inline",
            ViewSource::EvidenceFile { .. } => "evidence-file",
        }
    }
}

/// The view to project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewSpec {
    /// `environment-manifest` with its opt-in template rules.
    EnvironmentManifest {
        /// The rules, in application order.
        template_rules: TemplateRules,
    },
}

impl ViewSpec {
    /// The view kind as written.
    pub fn kind(&self) -> &'static str {
        match self {
            ViewSpec::EnvironmentManifest { .. } => "environment-manifest",
        }
    }
}

/// The view kinds this version projects.
pub const VIEW_KINDS: [&str; 1] = ["environment-manifest"];

/// The source kinds a view request accepts.
pub const SOURCE_KINDS: [&str; 2] = ["inline", "evidence-file"];

fn refuse(pointer: &str, message: impl Into<String>) -> Refusal {
    Refusal::invalid_request(message)
        .at(pointer)
        .in_stage(STAGE)
}

fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An object's members in order, as raw JSON, keeping repeats so they can be refused.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for MembersVisitor<'a> {
            type Value = Members<'a>;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Members<'a>, M::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'a RawValue>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor(std::marker::PhantomData))
    }
}

fn members<'a>(
    text: &'a str,
    pointer: &str,
    what: &str,
) -> Result<BTreeMap<String, &'a RawValue>, Refusal> {
    let Members(entries) = serde_json::from_str::<Members<'a>>(text).map_err(|_| {
        let found = serde_json::from_str::<Value>(text)
            .map(|value| kind_name(&value))
            .unwrap_or("not JSON");
        refuse(
            pointer,
            format!("{what} must be a JSON object, found {found}"),
        )
    })?;
    let mut map = BTreeMap::new();
    for (name, value) in entries {
        if map.contains_key(&name) {
            return Err(refuse(
                &format!("{pointer}/{}", escape_pointer(&name)),
                format!("{what} has the member {name:?} twice"),
            ));
        }
        map.insert(name, value);
    }
    Ok(map)
}

fn only_members(
    members: &BTreeMap<String, &RawValue>,
    allowed: &[&str],
    pointer: &str,
    what: &str,
) -> Result<(), Refusal> {
    if let Some(unknown) = members
        .keys()
        .find(|name| !allowed.contains(&name.as_str()))
    {
        return Err(refuse(
            &format!("{pointer}/{}", escape_pointer(unknown)),
            format!(
                "{what} has no member {unknown:?}; its members are {}",
                allowed.join(", ")
            ),
        ));
    }
    Ok(())
}

fn required<'a>(
    members: &BTreeMap<String, &'a RawValue>,
    name: &str,
    pointer: &str,
    what: &str,
) -> Result<&'a RawValue, Refusal> {
    members
        .get(name)
        .copied()
        .ok_or_else(|| refuse(pointer, format!("{what} lacks its {name:?} member")))
}

fn string_member(raw: &RawValue, pointer: &str, what: &str) -> Result<String, Refusal> {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::String(text)) => Ok(text),
        Ok(other) => Err(refuse(
            pointer,
            format!("{what} must be a string, found {}", kind_name(&other)),
        )),
        Err(_) => Err(refuse(pointer, format!("{what} is not JSON"))),
    }
}

/// A JSON pointer token for a member name.
pub fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Parses a view request from its JSON text.
pub fn parse_view_request(text: &str) -> Result<ViewRequest, Refusal> {
    if serde_json::from_str::<&RawValue>(text).is_err() {
        return Err(refuse("", "the view request is not JSON"));
    }
    let top = members(text, "", "the view request")?;
    only_members(&top, &["source", "view"], "", "the view request")?;
    let source = parse_source(required(&top, "source", "", "the view request")?)?;
    let view = parse_view(required(&top, "view", "", "the view request")?)?;
    Ok(ViewRequest { source, view })
}

fn parse_source(raw: &RawValue) -> Result<ViewSource, Refusal> {
    let source = members(raw.get(), "/source", "source")?;
    let kind = string_member(
        required(&source, "kind", "/source", "source")?,
        "/source/kind",
        "source.kind",
    )?;
    match kind.as_str() {
        "inline" => {
            only_members(
                &source,
                &["kind", "evidence"],
                "/source",
                "an inline source",
            )?;
            let evidence = required(&source, "evidence", "/source", "an inline source")?;
            if !evidence.get().trim_start().starts_with('{') {
                let found = serde_json::from_str::<Value>(evidence.get())
                    .map(|value| kind_name(&value))
                    .unwrap_or("not JSON");
                return Err(refuse(
                    "/source/evidence",
                    format!("source.evidence must be a capture Evidence object, found {found}"),
                ));
            }
            Ok(ViewSource::Inline {
                evidence: evidence.to_owned(),
            })
        }
        "evidence-file" => {
            only_members(
                &source,
                &["kind", "path"],
                "/source",
                "an evidence-file source",
            )?;
            let path = string_member(
                required(&source, "path", "/source", "an evidence-file source")?,
                "/source/path",
                "source.path",
            )?;
            if path.is_empty() {
                return Err(refuse("/source/path", "source.path is empty"));
            }
            Ok(ViewSource::EvidenceFile { path })
        }
        other => Err(refuse(
            "/source/kind",
            format!(
                "source kind {other:?} is not one of {}",
                SOURCE_KINDS.join(", ")
            ),
        )),
    }
}

fn parse_view(raw: &RawValue) -> Result<ViewSpec, Refusal> {
    let view = members(raw.get(), "/view", "view")?;
    let kind = string_member(
        required(&view, "kind", "/view", "view")?,
        "/view/kind",
        "view.kind",
    )?;
    match kind.as_str() {
        "environment-manifest" => {
            only_members(
                &view,
                &["kind", "template_rules"],
                "/view",
                "an environment-manifest view",
            )?;
            let template_rules = match view.get("template_rules") {
                None => TemplateRules::none(),
                Some(raw) => parse_rules(raw)?,
            };
            Ok(ViewSpec::EnvironmentManifest { template_rules })
        }
        other => Err(refuse(
            "/view/kind",
            format!(
                "view kind {other:?} is not one this version of rea projects ({})",
                VIEW_KINDS.join(", ")
            ),
        )),
    }
}

fn parse_rules(raw: &RawValue) -> Result<TemplateRules, Refusal> {
    let value: Value = serde_json::from_str(raw.get())
        .map_err(|_| refuse("/view/template_rules", "view.template_rules is not JSON"))?;
    let Value::Array(items) = value else {
        return Err(refuse(
            "/view/template_rules",
            format!(
                "view.template_rules must be an array of rule names, found {}",
                kind_name(&value)
            ),
        ));
    };
    let mut names = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        match item {
            Value::String(name) => names.push(name.as_str()),
            other => {
                return Err(refuse(
                    &format!("/view/template_rules/{index}"),
                    format!(
                        "a template rule must be a string, found {}",
                        kind_name(other)
                    ),
                ));
            }
        }
    }
    TemplateRules::parse(&names).map_err(|error| {
        let index = match &error {
            RuleListError::Unknown { index, .. } | RuleListError::Repeated { index, .. } => *index,
        };
        refuse(&format!("/view/template_rules/{index}"), error.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> Refusal {
        parse_view_request(text).unwrap_err()
    }

    #[test]
    fn inline_and_file_sources_are_read() {
        // contract: MANIFEST-003, MANIFEST-004, MANIFEST-006
        let request = parse_view_request(
            r#"{"source": {"kind": "inline", "evidence": {"evidence_id": "ev_1"}},
                "view": {"kind": "environment-manifest", "template_rules": ["after-uid-literal", "opaque-token", "sibling-variance"]}}"#,
        )
        .unwrap();
        let ViewSource::Inline { evidence } = &request.source else {
            panic!("inline expected")
        };
        assert_eq!(evidence.get(), r#"{"evidence_id": "ev_1"}"#);
        let ViewSpec::EnvironmentManifest { template_rules } = &request.view;
        assert_eq!(
            template_rules.names(),
            vec!["after-uid-literal", "opaque-token", "sibling-variance"]
        );
        let request = parse_view_request(
            r#"{"source": {"kind": "evidence-file", "path": "capture.json"}, "view": {"kind": "environment-manifest"}}"#,
        )
        .unwrap();
        assert!(
            matches!(request.source, ViewSource::EvidenceFile { ref path } if path == "capture.json")
        );
        let ViewSpec::EnvironmentManifest { template_rules } = &request.view;
        assert!(template_rules.names().is_empty());
    }

    #[test]
    fn malformed_requests_are_refused_with_pointers() {
        // contract: BUILD-017
        let cases = [
            ("[]", ""),
            ("nope", ""),
            (r#"{"view": {"kind": "environment-manifest"}}"#, ""),
            (
                r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-manifest"}, "extra": 1}"#,
                "/extra",
            ),
            (
                r#"{"source": {"kind": "retained", "evidence": {}}, "view": {"kind": "environment-manifest"}}"#,
                "/source/kind",
            ),
            (
                r#"{"source": {"kind": "inline", "evidence": []}, "view": {"kind": "environment-manifest"}}"#,
                "/source/evidence",
            ),
            (
                r#"{"source": {"kind": "evidence-file", "path": 3}, "view": {"kind": "environment-manifest"}}"#,
                "/source/path",
            ),
            (
                r#"{"source": {"kind": "evidence-file", "path": "a", "evidence": {}}, "view": {"kind": "environment-manifest"}}"#,
                "/source/evidence",
            ),
            (
                r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-graph"}}"#,
                "/view/kind",
            ),
            (
                r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-manifest", "template_rule": []}}"#,
                "/view/template_rule",
            ),
            (
                r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-manifest", "template_rules": "opaque-token"}}"#,
                "/view/template_rules",
            ),
            (
                r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-manifest", "template_rules": ["opaque-token", 1]}}"#,
                "/view/template_rules/1",
            ),
            (
                r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-manifest", "template_rules": ["opaque-token", "numbers"]}}"#,
                "/view/template_rules/1",
            ),
            (
                r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-manifest", "template_rules": ["opaque-token", "sibling-variance", "opaque-token"]}}"#,
                "/view/template_rules/2",
            ),
        ];
        for (text, pointer) in cases {
            let refusal = refusal(text);
            assert_eq!(refusal.code, "invalid_request", "{text}");
            assert_eq!(
                refusal.pointer.as_deref(),
                Some(pointer),
                "{text}: {refusal:?}"
            );
            assert_eq!(refusal.stage.as_deref(), Some("inspect_analysis_view"));
        }
        assert!(refusal(r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-manifest", "template_rules": ["opaque-token", "opaque-token"]}}"#)
            .message
            .contains("repeats"));
    }
}
