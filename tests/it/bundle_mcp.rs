//! The MCP tool `export_environment_bundle` of `rea mcp`, over stdio: the same bundle and report
//! as `rea environment-build`, from retained Evidence or an Evidence file, into a new directory.

use crate::bundle_support;
use crate::self_mcp_support;

use std::collections::BTreeMap;
use std::path::Path;

use bundle_support::*;
use self_mcp_support::StdioSession;
use serde_json::{Value, json};

/// Every file below a folder: relative path → (SHA-256, size).
fn digests(dir: &Path) -> BTreeMap<String, (String, u64)> {
    files(dir)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(dir.join(&path)).expect("read");
            let digest = (rea_evidence::sha256_hex(&bytes), bytes.len() as u64);
            (path, digest)
        })
        .collect()
}

#[test]
fn retained_evidence_exports_the_bundle_environment_build_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = std::path::absolute(dir.path()).unwrap();
    let har_path = har("tiddlywiki");
    let mut session = StdioSession::start_in(&work);
    let tools = session.request("tools/list", json!({}));
    assert!(
        tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["name"] == "export_environment_bundle"),
        "{tools}"
    );
    let (capture, failed) = session.call(
        "inspect_web_network_capture",
        json!({"path": har_path.display().to_string()}),
    );
    assert!(!failed, "{capture}");
    let evidence_id = capture["evidence_id"]
        .as_str()
        .expect("evidence_id")
        .to_owned();
    let target = work.join("from-tool");
    let (report, failed) = session.call(
        "export_environment_bundle",
        json!({
            "source": {"kind": "retained-evidence", "evidence_id": evidence_id},
            "output_directory": target.display().to_string(),
            "name": "wiki"
        }),
    );
    // contract: BUILD-086, BUILD-090 (retained Evidence, into an absolute path that does not
    // exist yet)
    assert!(!failed, "{report}");
    assert_eq!(session.close(), Some(0));
    assert_eq!(report["status"], "built");
    // contract: BUILD-092 (`name` works as `--name`)
    assert_eq!(report["name"], "wiki");
    assert_eq!(report["capture"]["evidence_id"], evidence_id.as_str());
    assert_eq!(report["manifest"]["template_rules"], json!(DEFAULT_RULES));

    // The same bundle as environment-build writes from that Evidence written as a file.
    inspect_into(&work, &har_path, "capture.json");
    let built = report_of_build(
        &work,
        &[
            "environment-build",
            "capture.json",
            "from-cli",
            "--name",
            "wiki",
            "--json",
        ],
    );
    let tool_tree = digests(&target);
    // contract: BUILD-091 (the tool created the output directory)
    assert!(tool_tree.contains_key("envs/wiki/bin/rea"));
    // contract: BUILD-085, BUILD-089 (the bundle environment-build writes from that Evidence
    // as a file)
    assert!(
        tool_tree == digests(&work.join("from-cli")),
        "the tool and environment-build wrote different bundles"
    );
    // contract: BUILD-085 (the same report)
    for key in ["files", "tool_count", "state", "manifest", "name"] {
        assert_eq!(report[key], built[key], "{key}");
    }
}

fn report_of_build(work: &Path, args: &[&str]) -> Value {
    report(&run(work, args))
}

#[test]
fn the_tool_refuses_what_it_must_and_writes_nothing_then() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = std::path::absolute(dir.path()).unwrap();
    let har_path = har("json-server");
    let evidence_file = inspect_into(&work, &har_path, "json-server.capture.json");
    std::fs::create_dir(work.join("empty")).unwrap();
    let mut session = StdioSession::start_in(&work);
    let (capture, _) = session.call(
        "inspect_web_network_capture",
        json!({"path": har_path.display().to_string()}),
    );
    let retained = json!({"kind": "retained-evidence", "evidence_id": capture["evidence_id"]});
    let absent = work.join("absent").display().to_string();
    let before = snapshot(&work);
    let mut refused = |arguments: Value| {
        let (result, failed) = session.call("export_environment_bundle", arguments.clone());
        assert!(failed, "{arguments} was not refused: {result}");
        assert!(
            snapshot(&work) == before,
            "{arguments} changed the file system"
        );
        result["refusal"].clone()
    };

    // Retained Evidence of a loopback origin has no file to name it after.
    let refusal = refused(json!({"source": retained, "output_directory": absent}));
    assert_eq!(refusal["code"], "invalid_request");
    // contract: BUILD-093
    assert_eq!(refusal["pointer"], "/name");
    // contract: BUILD-095 (a refusal that is not the destination's names environment-build)
    assert_eq!(refusal["stage"], "environment-build");
    // An existing directory, even empty; a relative path; a missing parent.
    let refusal = refused(json!({
        "source": retained, "name": "js",
        "output_directory": work.join("empty").display().to_string()
    }));
    // contract: BUILD-091, BUILD-095 (an existing empty directory, refused as the destination)
    assert_eq!(refusal["stage"], "export_environment_bundle");
    let refusal =
        refused(json!({"source": retained, "name": "js", "output_directory": "relative/dir"}));
    // contract: BUILD-090 (a relative path)
    assert_eq!(refusal["stage"], "export_environment_bundle");
    let refusal = refused(json!({
        "source": retained, "name": "js",
        "output_directory": work.join("missing/dir").display().to_string()
    }));
    // contract: BUILD-090 (a missing parent)
    assert_eq!(refusal["stage"], "export_environment_bundle");
    // A dry run still checks the directory.
    let refusal = refused(json!({
        "source": retained, "name": "js", "dry_run": true,
        "output_directory": work.join("empty").display().to_string()
    }));
    // contract: BUILD-094
    assert_eq!(refusal["stage"], "export_environment_bundle");
    // A HAR is inspected first.
    let refusal = refused(json!({
        "source": {"kind": "evidence-file", "path": har_path.display().to_string()},
        "output_directory": absent
    }));
    // contract: BUILD-088
    assert_eq!(refusal["code"], "unsupported_target");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("inspect_web_network_capture")
    );
    // A bad name, a repeated rule.
    let refusal = refused(json!({"source": retained, "name": "Bad", "output_directory": absent}));
    assert_eq!(refusal["pointer"], "/name");
    let refusal = refused(json!({
        "source": retained, "name": "js", "output_directory": absent,
        "template_rules": ["opaque-token", "opaque-token"]
    }));
    assert_eq!(refusal["pointer"], "/template_rules/1");

    // A dry run from an Evidence file: named after the file, nothing written.
    let (planned, failed) = session.call(
        "export_environment_bundle",
        json!({
            "source": {"kind": "evidence-file", "path": evidence_file.display().to_string()},
            "output_directory": absent,
            "dry_run": true,
            "template_rules": []
        }),
    );
    // contract: BUILD-087
    assert!(!failed, "{planned}");
    assert_eq!(planned["status"], "planned");
    assert_eq!(planned["name"], "json-server");
    assert_eq!(planned["manifest"]["template_rules"], json!([]));
    assert!(snapshot(&work) == before);
    assert_eq!(session.close(), Some(0));
}

/// `build_environment` (issue 14): the one-step build from a HAR path over `rea mcp`, the same
/// bundle `rea environment-build` writes; a relative path or an existing directory refused.
#[test]
fn build_environment_builds_from_a_har_path_in_one_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = std::path::absolute(dir.path()).unwrap();
    let har_path = har("json-server");
    let har = har_path.display().to_string();
    let mut session = StdioSession::start_in(&work);
    let target = work.join("from-tool");
    let (report, failed) = session.call(
        "build_environment",
        json!({"capture": har, "output_directory": target.display().to_string()}),
    );
    assert!(!failed, "{report}");
    assert_eq!(report["status"], "built");
    assert_eq!(report["name"], "json-server");
    assert!(
        report["coverage"]["writes"]["withheld"].is_array(),
        "{report}"
    );
    // Refusals: a relative capture path, an existing directory.
    let (refusal, failed) = session.call(
        "build_environment",
        json!({"capture": "build.har", "output_directory": work.join("x").display().to_string()}),
    );
    assert!(failed);
    assert_eq!(refusal["refusal"]["pointer"], "/capture", "{refusal}");
    let (refusal, failed) = session.call(
        "build_environment",
        json!({"capture": har, "output_directory": target.display().to_string()}),
    );
    assert!(failed);
    assert_eq!(refusal["refusal"]["code"], "invalid_request", "{refusal}");
    assert_eq!(session.close(), Some(0));

    let built = report_of_build(&work, &["environment-build", &har, "from-cli", "--json"]);
    assert!(
        digests(&target) == digests(&work.join("from-cli")),
        "the tool and environment-build wrote different bundles"
    );
    for key in [
        "files",
        "tool_count",
        "state",
        "coverage",
        "manifest",
        "name",
    ] {
        assert_eq!(report[key], built[key], "{key}");
    }
}
