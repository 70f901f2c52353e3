//! The comparison reads a served write's `composed` rules as the stage spells them: a
//! `sent-last:NAME` part is the last `/`-separated part of the sent text. Jupyter Server's
//! rename (`PATCH {"path": "archive"}` in the build) learns its answer's `name` as the last part
//! of the sent `path`; the probe's rename below a folder (`{"path": "reports/2027"}`, named
//! `2027`) agrees, each side spelling its rule, where it was a `value` difference between two
//! equal texts while the comparison did not know the part.

use rea_compare::adapter::Mode;
use rea_tests::fidelity;
use serde_json::Value;

/// The state mode's report of one corpus app's probe, as the fidelity run measures it.
fn state_report(app: &str, probe: &str) -> Value {
    let found = fidelity::discover(&fidelity::default_roots())
        .into_iter()
        .find(|found| found.name == app)
        .expect("the corpus holds the app");
    let rules = fidelity::fidelity_rules().expect("rules");
    let (capture, manifest) = fidelity::build(&found, &rules).expect("built");
    let probe = fidelity::inspect(&found.dir.join(format!("{probe}.har"))).expect("probe");
    let comparison =
        fidelity::compare(&capture, &manifest, &probe, Mode::State, &rules).expect("compared");
    serde_json::to_value(&comparison.report).expect("report")
}

#[test]
fn a_rename_below_a_folder_agrees_under_its_sent_last_rule() {
    let report = state_report("jupyter_server", "probe-crud");
    let step = report["probes"][0]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|step| step["request"] == "PATCH /api/contents/reports/Untitled%20Folder")
        .expect("the rename below reports");
    assert_eq!(step["source"], "write", "{step}");
    assert_eq!(step["agrees"], true, "{step}");
}
