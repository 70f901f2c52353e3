//! The MCP tool `compare_environment` of `rea mcp`, over stdio: the comparison
//! `rea environment-compare --json` makes, from retained Evidence or Evidence files, retained by
//! the session; the `verify_reconstruction` workflow names it.

use serde_json::{Value, json};

use crate::compare_support::{app_dir, compare, shared_har};
use crate::self_mcp_support::StdioSession;

#[test]
fn the_tool_returns_the_comparison_the_command_prints() {
    let dir = app_dir("json-server");
    let work = std::path::absolute(dir.path()).unwrap();
    let mut session = StdioSession::start_in(&work);
    let retain = |session: &mut StdioSession, name: &str| -> String {
        let (capture, failed) = session.call(
            "inspect_web_network_capture",
            json!({"path": shared_har("json-server", name).display().to_string()}),
        );
        assert!(!failed, "{capture}");
        capture["evidence_id"].as_str().expect("id").to_owned()
    };
    let build = retain(&mut session, "build");
    let reads = retain(&mut session, "probe-reads");
    let (manifest, failed) = session.call(
        "inspect_analysis_view",
        json!({
            "source": {"kind": "retained-evidence", "evidence_id": build},
            "view": {"kind": "environment-manifest", "template_rules": ["after-uid-literal", "opaque-token", "sibling-variance", "prefix-variance"]}
        }),
    );
    assert!(!failed, "{manifest}");
    let manifest_id = manifest["evidence_id"].as_str().unwrap().to_owned();
    let (report, failed) = session.call(
        "compare_environment",
        json!({
            "manifest": {"kind": "retained-evidence", "evidence_id": manifest_id},
            "capture": {"kind": "retained-evidence", "evidence_id": build},
            "probes": [
                {"kind": "retained-evidence", "evidence_id": reads},
                {"kind": "evidence-file", "path": work.join("probe-crud.json").display().to_string()}
            ]
        }),
    );
    assert!(!failed, "{report}");
    assert_eq!(report["operation"], "environment_compare");
    assert_eq!(report["summary"]["agreeing"], json!(38));
    // The workflow that judges a reconstruction names the tool as its way to comparison Evidence.
    let (rendered, failed) = session.call(
        "guided_workflows",
        json!({"action": "render", "workflow_id": "verify_reconstruction", "arguments": {"specification": "posts read back after a create"}}),
    );
    assert!(!failed, "{rendered}");
    assert!(
        rendered.to_string().contains("compare_environment"),
        "{rendered}"
    );
    // A relative path is refused, naming where.
    let (refused, failed) = session.call(
        "compare_environment",
        json!({
            "manifest": {"kind": "evidence-file", "path": "manifest.json"},
            "capture": {"kind": "retained-evidence", "evidence_id": build},
            "probes": [{"kind": "retained-evidence", "evidence_id": reads}]
        }),
    );
    assert!(failed, "{refused}");
    assert_eq!(refused["refusal"]["pointer"], "/manifest/path", "{refused}");
    assert_eq!(session.close(), Some(0));
    // The same Evidence as the command prints (the probes given as files there).
    let run = compare(
        dir.path(),
        &[
            "--probe",
            "probe-reads.json",
            "--probe",
            "probe-crud.json",
            "--json",
        ],
    );
    let printed: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(report["summary"], printed["summary"]);
}
