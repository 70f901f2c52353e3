//! Golden environment manifests, MCP tool lists and cards for every shared capture, and replay of
//! every cited record on them.
//!
//! Each capture is inspected in-process and normalized as the capture goldens are (its absolute
//! path replaced by `<captures>`, re-sealed), so the manifest's `parent_evidence_id` does not
//! depend on where the checkout lives. It is projected with the build's default rules (all four
//! opt-in rules). Per capture, `tests/golden/manifest/<capture>.manifest.json` is the manifest
//! Evidence as `inspect-analysis-view --format json` prints it, `.tools.json` the MCP
//! `tools/list` tools and `.card.json` the replay card (pretty JSON, for review); a capture the
//! projection refuses has `.refusal.json`. `REA_BLESS=1 cargo test -p rea-tests --test
//! manifest_golden` rewrites them.

use crate::capture_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use capture_support::{all_captures, captures_dir, check_golden, inspect_all, normalized_evidence};
use rea_evidence::Evidence;
use rea_manifest::segments::split_path;
use rea_manifest::{Environment, TemplateRules, project_manifest_evidence};
use rea_plugin_api::contracts::capture::CaptureRecord;
use serde_json::{Map, Value, json};

fn golden_dir() -> PathBuf {
    rea_tests::workspace_root()
        .join("tests")
        .join("golden")
        .join("manifest")
}

fn golden(relative: &Path, suffix: &str) -> PathBuf {
    let name = relative.with_extension("").display().to_string();
    golden_dir().join(format!("{name}.{suffix}"))
}

/// The normalized capture Evidence of every shared capture the inspection accepts.
fn normalized_captures() -> Vec<(PathBuf, Evidence)> {
    let root = captures_dir();
    all_captures()
        .into_iter()
        .filter_map(|relative| {
            let evidence = inspect_all(&root.join(&relative)).ok()?;
            let normalized = normalized_evidence(&evidence);
            let capture =
                Evidence::authenticate(&normalized).expect("normalized Evidence authenticates");
            Some((relative, capture))
        })
        .collect()
}

/// Pretty JSON as served (struct member order kept), with a trailing newline.
fn pretty(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.push(b'\n');
    bytes
}

/// The member names of the manifest Evidence and of each of its tools (not the captured field
/// names inside body shapes).
fn manifest_and_tool_members(manifest_json: &Value) -> Vec<String> {
    let mut names: Vec<String> = manifest_json
        .as_object()
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default();
    for tool in manifest_json["tools"].as_array().into_iter().flatten() {
        names.extend(
            tool.as_object()
                .into_iter()
                .flat_map(|tool| tool.keys().cloned()),
        );
    }
    names
}

/// The promises of the manifest, the MCP tool list and the card, each checked on its own.
fn check_catalog_promises(
    context: &str,
    manifest: &rea_manifest::Manifest,
    manifest_json: &Value,
    tools: &Value,
    card: &Value,
) {
    let mut templates = std::collections::BTreeSet::new();
    for tool in &manifest.tools {
        // contract: MANIFEST-007
        assert!(
            templates.insert((tool.method.as_str(), tool.path_template.as_str())),
            "{context}: two tools for {} {}",
            tool.method,
            tool.path_template
        );
    }
    // contract: MANIFEST-009
    let members = manifest_and_tool_members(manifest_json);
    assert!(
        !members
            .iter()
            .any(|name| name.contains("header") || matches!(name.as_str(), "body" | "text")),
        "{context}: the manifest carries headers or bodies: {members:?}"
    );
    let subjects: Vec<&str> = manifest
        .unknowns
        .iter()
        .map(|u| u.subject.as_str())
        .collect();
    for subject in ["authorization-model", "response-semantics"] {
        // contract: REPLAY-037
        assert!(
            subjects.contains(&subject),
            "{context}: no unknown {subject}"
        );
    }
    // contract: REPLAY-037
    assert!(
        subjects.iter().any(|subject| subject.contains("state")),
        "{context}: no unknown about state transitions: {subjects:?}"
    );
    let listed = tools.as_array().expect("tools/list is an array");
    let carded = card["capabilities"]["tools"]
        .as_array()
        .expect("the card's capabilities.tools is an array");
    // contract: MANIFEST-022
    assert_eq!(
        listed.len(),
        manifest.tools.len(),
        "{context}: a tool was omitted"
    );
    for (entry, tool) in carded.iter().zip(listed) {
        let keys: Vec<&str> = entry
            .as_object()
            .expect("a card tool is an object")
            .keys()
            .map(String::as_str)
            .collect();
        // contract: CARD-012
        assert!(
            ["name", "description", "inputSchema"]
                .iter()
                .all(|key| keys.contains(key)),
            "{context}: {keys:?}"
        );
        // contract: CARD-014
        assert_eq!(keys.len(), 3, "{context}: card tool members {keys:?}");
        for key in ["name", "description", "inputSchema"] {
            // contract: CARD-013
            assert_eq!(
                entry[key], tool[key],
                "{context}: card and tools/list differ in {key}"
            );
        }
        // contract: CARD-031
        assert!(
            tool["annotations"].is_object(),
            "{context}: {} has no annotations",
            tool["name"]
        );
        let description = entry["description"].as_str().expect("a description");
        // contract: CARD-015
        assert!(
            description.starts_with("Untrusted captured API catalog: "),
            "{context}: {description}"
        );
        let schema = &entry["inputSchema"];
        // contract: CARD-041
        assert!(
            schema["type"] == "object"
                && schema["properties"].is_object()
                && schema["required"].is_array(),
            "{context}: {schema}"
        );
        // contract: CARD-042
        assert_eq!(
            schema["additionalProperties"],
            json!(false),
            "{context}: {schema}"
        );
    }
    // contract: MANIFEST-022
    assert_eq!(
        carded.len(),
        listed.len(),
        "{context}: the card omits a tool"
    );
    for (entry, tool) in carded.iter().zip(&manifest.tools) {
        let description = entry["description"].as_str().expect("a description");
        // contract: CARD-016
        assert!(
            description.contains(&format!(". {} {}", tool.method, tool.path_template)),
            "{context}: {description}"
        );
    }
    // contract: MANIFEST-018
    assert!(
        serde_json::to_vec(tools).expect("tools").len() <= 1_048_576,
        "{context}: the catalog exceeds the 1 MiB reservation"
    );
}

#[test]
fn every_shared_capture_matches_its_golden_manifest_tools_and_card() {
    let mut problems = Vec::new();
    let mut expected = Vec::new();
    let captures = normalized_captures();
    assert!(
        captures.len() >= 15,
        "expected the shared captures to inspect"
    );
    for (relative, capture) in &captures {
        match project_manifest_evidence(capture, &TemplateRules::all()) {
            Ok((manifest, evidence)) => {
                let mut written = evidence.to_canonical_vec();
                written.push(b'\n');
                let back =
                    Evidence::authenticate(&written).expect("manifest Evidence authenticates");
                // contract: MANIFEST-005
                assert_eq!(back.id(), evidence.id());
                // contract: MANIFEST-010
                assert_eq!(manifest.parent_evidence_id, capture.id());
                let environment = Environment::from_evidence(&evidence, capture)
                    .unwrap_or_else(|refusal| panic!("{}: {refusal}", relative.display()));
                environment
                    .check_discovery_reservation(environment.name())
                    .unwrap_or_else(|refusal| panic!("{}: {refusal}", relative.display()));
                let context = relative.display().to_string();
                let manifest_json: Value = serde_json::from_slice(&written).expect("manifest");
                let tools = serde_json::to_value(environment.tools()).expect("tools");
                let card =
                    serde_json::to_value(environment.card(environment.name())).expect("card");
                check_catalog_promises(&context, &manifest, &manifest_json, &tools, &card);
                let outputs = [
                    ("manifest.json", written),
                    (
                        "tools.json",
                        pretty(serde_json::to_vec_pretty(environment.tools()).expect("tools")),
                    ),
                    (
                        "card.json",
                        pretty(
                            serde_json::to_vec_pretty(&environment.card(environment.name()))
                                .expect("card"),
                        ),
                    ),
                ];
                for (suffix, bytes) in outputs {
                    let path = golden(relative, suffix);
                    expected.push(rea_tests::golden::golden_file(&path, bytes.len()));
                    if let Err(problem) = check_golden(&path, &bytes) {
                        problems.push(problem);
                    }
                }
            }
            Err(refusal) => {
                let path = golden(relative, "refusal.json");
                let mut line = refusal.to_json_line();
                line.push('\n');
                expected.push(rea_tests::golden::golden_file(&path, line.len()));
                if let Err(problem) = check_golden(&path, line.as_bytes()) {
                    problems.push(problem);
                }
            }
        }
    }
    for folder in std::fs::read_dir(golden_dir()).expect("golden folder") {
        for file in std::fs::read_dir(folder.expect("entry").path()).expect("golden subfolder") {
            let file = file.expect("entry").path();
            if !expected.contains(&file) {
                problems.push(format!("{} has no capture any more", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The arguments that name one recorded call of a tool: its path segments and its query values.
fn arguments_of(
    environment: &Environment,
    tool: &str,
    record: &CaptureRecord,
) -> Map<String, Value> {
    let definition = environment.tool(tool).expect("tool");
    let path = record.path.as_deref().expect("a cited record has a path");
    let segments = split_path(path);
    let mut query: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    if let Some(recorded) = &record.query {
        for (name, value) in recorded.pairs.iter().flatten() {
            query.entry(name).or_default().push(value);
        }
    }
    let mut arguments = Map::new();
    for argument in &definition.input_schema.arguments {
        match &argument.target {
            rea_manifest::catalog::ArgumentTarget::Path { segment_index, .. } => {
                arguments.insert(argument.name.clone(), json!(segments[*segment_index]));
            }
            rea_manifest::catalog::ArgumentTarget::Query { name } => {
                if let Some(values) = query.get(name.as_str()) {
                    arguments.insert(argument.name.clone(), json!(values));
                }
            }
            rea_manifest::catalog::ArgumentTarget::Body => {}
        }
    }
    arguments
}

#[test]
fn each_cited_record_replays_for_its_own_arguments() {
    for (relative, capture) in normalized_captures() {
        let Ok((manifest, evidence)) = project_manifest_evidence(&capture, &TemplateRules::all())
        else {
            continue;
        };
        let environment = Environment::from_evidence(&evidence, &capture).expect("environment");
        let records: BTreeMap<u64, CaptureRecord> =
            rea_evidence::capture::capture_records(&capture)
                .expect("records")
                .into_iter()
                .map(|record| (record.ordinal, record))
                .collect();
        for tool in &manifest.tools {
            for ordinal in &tool.record_ordinals {
                let record = &records[ordinal];
                let arguments = arguments_of(&environment, &tool.name, record);
                let answer = environment
                    .answer(&tool.name, &arguments)
                    .unwrap_or_else(|error| {
                        panic!("{} {}: {error}", relative.display(), tool.name)
                    });
                let chosen = &records[&answer.replay.record_ordinal];
                // The answer is this recording or an earlier one of the same path whose query
                // agrees on every name this one carries (arguments cannot name an absent query).
                let grouped = |record: &CaptureRecord| {
                    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
                    for (name, value) in record
                        .query
                        .iter()
                        .flat_map(|query| query.pairs.iter().flatten())
                    {
                        groups.entry(name.clone()).or_default().push(value.clone());
                    }
                    groups
                };
                let context = format!("{} {} #{ordinal}", relative.display(), tool.name);
                // contract: REPLAY-004
                assert!(
                    tool.record_ordinals.contains(&answer.replay.record_ordinal),
                    "{context}"
                );
                // contract: REPLAY-005
                assert_eq!(chosen.path, record.path, "{context}");
                let wanted = grouped(record);
                let found = grouped(chosen);
                for (name, values) in &wanted {
                    // contract: REPLAY-005
                    assert_eq!(found.get(name), Some(values), "{context}");
                }
                // contract: REPLAY-006
                assert!(answer.replay.record_ordinal <= *ordinal);
                // contract: REPLAY-012
                assert!(answer.replay.exact_match, "{context}");
                // contract: REPLAY-002
                assert_eq!(answer.replay.evidence_id, capture.id());
                // contract: REPLAY-004
                assert_eq!(
                    answer.status,
                    Some(chosen.response.status).filter(|status| *status != 0)
                );
            }
        }
    }
}
