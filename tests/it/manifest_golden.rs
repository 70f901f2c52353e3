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

// contract: MANIFEST-005, MANIFEST-007, MANIFEST-008, MANIFEST-009, MANIFEST-010, MANIFEST-012, MANIFEST-013, MANIFEST-018, MANIFEST-022
// contract: CARD-001, CARD-012, CARD-013, CARD-014, CARD-015, CARD-016, CARD-017, CARD-027, CARD-031, CARD-041, CARD-042, CARD-044
// contract: REPLAY-037, BUILD-012
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
                assert_eq!(back.id(), evidence.id());
                assert_eq!(manifest.parent_evidence_id, capture.id());
                let environment = Environment::from_evidence(&evidence, capture)
                    .unwrap_or_else(|refusal| panic!("{}: {refusal}", relative.display()));
                environment
                    .check_discovery_reservation(environment.name())
                    .unwrap_or_else(|refusal| panic!("{}: {refusal}", relative.display()));
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

// contract: REPLAY-001, REPLAY-002, REPLAY-004, REPLAY-005, REPLAY-006, REPLAY-009, REPLAY-012, REPLAY-017, REPLAY-043
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
                assert_eq!(chosen.path, record.path, "{context}");
                let wanted = grouped(record);
                let found = grouped(chosen);
                for (name, values) in &wanted {
                    assert_eq!(found.get(name), Some(values), "{context}");
                }
                assert!(answer.replay.record_ordinal <= *ordinal);
                assert!(answer.replay.exact_match, "{context}");
                assert_eq!(answer.replay.evidence_id, capture.id());
                assert_eq!(
                    answer.status,
                    Some(chosen.response.status).filter(|status| *status != 0)
                );
            }
        }
    }
}
