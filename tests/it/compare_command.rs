//! `rea environment-compare` through the binary on the shared captures: the report, its
//! agreement figures and categories, unobserved records, determinism and the absence of network
//! calls.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::compare_support::{app_dir, compare, edited_har_into, evidence_of, rea, shared_har};

fn steps(report: &Value, probe: usize) -> &Vec<Value> {
    report["probes"][probe]["steps"].as_array().expect("steps")
}

fn step<'a>(report: &'a Value, probe: usize, request: &str) -> &'a Value {
    steps(report, probe)
        .iter()
        .find(|step| step["request"] == request)
        .unwrap_or_else(|| panic!("no step {request}"))
}

#[test]
fn both_probes_are_compared_and_reported_as_evidence() {
    let dir = app_dir("json-server");
    let args = [
        "--probe",
        "probe-reads.json",
        "--probe",
        "probe-crud.json",
        "--json",
    ];
    let run = compare(dir.path(), &args);
    let report = evidence_of(&run);
    // contract: COMPARE-001, COMPARE-002
    assert_eq!(
        report["probe_evidence_ids"].as_array().map(Vec::len),
        Some(2)
    );
    // contract: COMPARE-003
    assert_eq!(report["probes"][0]["order"], "start-time");
    let summary = &report["summary"];
    // contract: COMPARE-078
    assert_eq!(
        (&summary["compared"], &summary["agreeing"]),
        (&json!(69), &json!(38))
    );
    assert_eq!(summary["agreement"], json!(0.5507));
    // contract: COMPARE-079
    assert_eq!(
        [
            &report["probes"][0]["agreeing"],
            &report["probes"][0]["compared"],
            &report["probes"][1]["agreeing"],
            &report["probes"][1]["compared"]
        ],
        [&json!(22), &json!(27), &json!(16), &json!(42)]
    );
    let tools = report["tools"].as_array().expect("tools");
    let get_posts = tools
        .iter()
        .find(|tool| tool["tool"] == "get_posts")
        .expect("get_posts");
    // contract: COMPARE-080
    assert_eq!(
        (&get_posts["agreeing"], &get_posts["compared"]),
        (&json!(12), &json!(15))
    );
    let per_tool: u64 = tools
        .iter()
        .map(|tool| tool["compared"].as_u64().unwrap())
        .sum();
    let no_tool = summary["categories"]["no-tool"].as_u64().unwrap();
    assert_eq!(per_tool + no_tool, 69);
    // contract: COMPARE-081
    assert!(summary["agreeing_ignoring_order"].as_u64() >= summary["agreeing"].as_u64());
    assert!(summary.get("agreement_ignoring_order").is_some());
    for probe in 0..2 {
        for step in steps(&report, probe) {
            let listed = step["differences"].as_array().unwrap().len();
            // contract: COMPARE-082
            assert!(listed <= 20 && listed <= step["difference_count"].as_u64().unwrap() as usize);
            assert_eq!(step["agrees"], json!(step["difference_count"] == 0));
        }
    }
    // Deterministic: the same inputs give the same bytes.
    assert_eq!(compare(dir.path(), &args).stdout, run.stdout);
    // The text form names the same figures.
    let text = compare(dir.path(), &args[..4]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(
        text.stdout.contains("agreement: 38/69 agree (55.1%)"),
        "{}",
        text.stdout
    );
}

#[test]
fn every_probe_starts_from_the_reset_state() {
    let dir = app_dir("json-server");
    let report = evidence_of(&compare(
        dir.path(),
        &[
            "--probe",
            "probe-crud.json",
            "--probe",
            "probe-crud.json",
            "--json",
        ],
    ));
    // The CRUD probe writes (a served create and update); the second run sees the state reset.
    assert!(
        steps(&report, 0)
            .iter()
            .any(|step| step["source"] == "write")
    );
    // contract: COMPARE-006
    assert_eq!(report["probes"][0]["steps"], report["probes"][1]["steps"]);
}

#[test]
fn calls_are_checked_against_the_served_schema_and_categorised() {
    let dir = app_dir("json-server");
    // Without the `dependents` rule stage the post delete (which the build showed cascading to
    // the post's comments) is withheld: its probe steps show a withheld write's categories.
    let default = std::fs::read_to_string(
        rea_tests::workspace_root().join("host/crates/pipeline/src/default.toml"),
    )
    .expect("the default pipeline");
    let stanza = "[[rules]]\nstage = \"dependents\"\n\n";
    assert!(
        default.contains(stanza),
        "the default pipeline runs dependents"
    );
    std::fs::write(
        dir.path().join("no-dependents.toml"),
        default.replace(stanza, ""),
    )
    .expect("pipeline");
    let report = evidence_of(&compare(
        dir.path(),
        &[
            "--probe",
            "probe-reads.json",
            "--probe",
            "probe-crud.json",
            "--pipeline",
            "no-dependents.toml",
            "--json",
        ],
    ));
    let unknown = step(&report, 0, "GET /posts?_start=1&_end=3");
    // contract: COMPARE-028, COMPARE-091
    assert_eq!(
        (&unknown["source"], &unknown["categories"]),
        (&json!("refused"), &json!(["refused"]))
    );
    assert!(
        unknown["differences"][0]["env"]
            .as_str()
            .unwrap()
            .starts_with("invalid_arguments"),
        "{unknown}"
    );
    // contract: COMPARE-093
    assert_eq!(
        step(&report, 0, "GET /db")["categories"],
        json!(["no-tool"])
    );
    // The delete is withheld from the served catalog.
    // contract: COMPARE-092
    assert_eq!(
        step(&report, 1, "DELETE /posts/5")["categories"],
        json!(["not-served"])
    );
    // The comment's create has no tool, so its new id was never mapped: the read finds nothing.
    let unmapped = step(&report, 1, "GET /comments/6");
    // contract: COMPARE-094
    assert_eq!(unmapped["differences"][0]["category"], "unmapped-id");
    assert_eq!(
        (&unmapped["live_status"], &unmapped["env_status"]),
        (&json!(200), &json!(404))
    );
    // A served delete's absence: the application says 404, the environment still holds it.
    let status = step(&report, 1, "GET /posts/2");
    // contract: COMPARE-084
    assert_eq!(status["differences"][0]["category"], "status");
    // contract: COMPARE-077
    assert_eq!(step(&report, 1, "PATCH /posts/4")["agrees"], json!(true));
}

#[test]
fn normalised_values_are_counted_by_kind() {
    let dir = app_dir("kinto");
    let report = evidence_of(&compare(
        dir.path(),
        &["--probe", "probe-reads.json", "--json"],
    ));
    let normalised = &report["summary"]["normalised"];
    // Kinto's `last_modified` epochs differ from capture to capture and compare by format.
    // contract: COMPARE-052
    assert!(normalised["clock"].as_u64().unwrap() > 0, "{normalised}");
    assert!(normalised.get("id").is_some() && normalised.get("generated").is_some());
    assert!(report["summary"].get("id_conflicts").is_some());
}

#[test]
fn unobserved_records_are_listed_with_their_reasons_and_not_counted() {
    let dir = app_dir("json-server");
    edited_har_into(
        dir.path(),
        &shared_har("json-server", "probe-reads"),
        "probe-edited",
        |entries| {
            entries[0]["request"]["url"] = json!("data:application/json,{}");
            entries[1]["request"]["url"] = json!("http://127.0.0.1:9999/posts?author=zed");
            entries[2]["response"]["status"] = json!(0);
            entries[3]["response"]["content"]
                .as_object_mut()
                .unwrap()
                .remove("text");
            // `GET /posts/42` answered 404 `{}`; as a 204 without a body it carries none.
            entries[20]["response"]["status"] = json!(204);
            entries[20]["response"]["content"]
                .as_object_mut()
                .unwrap()
                .remove("text");
        },
    );
    let report = evidence_of(&compare(
        dir.path(),
        &["--probe", "probe-edited.json", "--json"],
    ));
    let probe = &report["probes"][0];
    let reasons: Vec<(u64, &str)> = probe["unobserved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| {
            (
                record["ordinal"].as_u64().unwrap(),
                record["reason"].as_str().unwrap(),
            )
        })
        .collect();
    // contract: COMPARE-096, COMPARE-097, COMPARE-099, COMPARE-100
    assert_eq!(
        reasons,
        vec![
            (0, "no-request-line"),
            (1, "other-origin"),
            (2, "no-answer")
        ]
    );
    // contract: COMPARE-098
    assert_eq!(probe["origin"], "http://127.0.0.1:3000");
    // contract: COMPARE-101
    assert_eq!(report["summary"]["unobserved"], json!(3));
    // contract: COMPARE-095
    assert_eq!(report["summary"]["compared"], json!(24));
    let ordinals: BTreeSet<u64> = steps(&report, 0)
        .iter()
        .map(|step| step["ordinal"].as_u64().unwrap())
        .collect();
    assert!(!ordinals.contains(&0) && !ordinals.contains(&1) && !ordinals.contains(&2));
    let by_status_only = steps(&report, 0)
        .iter()
        .find(|step| step["ordinal"] == 3)
        .unwrap();
    // contract: COMPARE-102
    assert_eq!(
        (
            &by_status_only["unobserved_body"],
            &by_status_only["agrees"]
        ),
        (&json!(true), &json!(true))
    );
    // contract: COMPARE-103
    assert_eq!(report["summary"]["unobserved_bodies"], json!(1));
}

#[test]
fn the_comparison_makes_no_network_call() {
    assert!(
        std::process::Command::new("strace")
            .args(["-f", "-qq", "-o", "/dev/null", "true"])
            .status()
            .is_ok_and(|status| status.success()),
        "strace must be installed (.ci/run installs it)"
    );
    let dir = app_dir("json-server");
    let trace = dir.path().join("network.trace");
    let status = std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=network", "-o"])
        .arg(&trace)
        .arg(rea())
        .args([
            "environment-compare",
            "manifest.json",
            "--evidence",
            "build.json",
            "--probe",
            "probe-crud.json",
            "--json",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("strace");
    assert!(status.success());
    let calls = std::fs::read_to_string(&trace).expect("trace");
    let inet: Vec<&str> = calls
        .lines()
        .filter(|line| line.contains("AF_INET") || line.contains("connect("))
        .collect();
    // contract: COMPARE-005
    assert!(inet.is_empty(), "network calls: {inet:?}");
}
