//! What a bundle serves, checked against the bundle served: each bundle's inputs are served as its
//! Dockerfile serves them (`rea environment-serve envs/NAME/manifest.json --evidence
//! envs/NAME/evidence.json --pipeline envs/NAME/pipeline.toml` with `ENVIRONMENT_NAME=NAME`), and
//! the build's report, `verify.py` and README are compared with what that server lists, answers
//! and reports when it stops. Also: the report's `coverage` against the environment-coverage
//! view, the withheld writes' hints, a bundle whose state catalog exceeds the discovery
//! reservation (replay), an unknown recorded status and a bundle with no probe tool.

use crate::bundle_support;
use crate::serve_support;

use std::collections::BTreeSet;
use std::path::Path;

use bundle_support::*;
use serde_json::{Value, json};
use serve_support::process::{Server, answer_of, call_tool, card, tools_list};
use serve_support::synthetic::{catalog_charges, many_endpoints_har};

/// The withheld reasons and their hints, as the spec's table states them (each pinned row is
/// checked against the state's table, `WITHHELD_REASONS`, and against every withheld write's
/// `hint` in the report).
const SPEC_HINTS: [(&str, &str); 10] = [
    // contract: BUILD-057
    (
        "no-state-target",
        "The write could not be linked to a modelled target. Check the path template and recorded views; record missing reads. Some route forms may not be supported.",
    ),
    // contract: BUILD-058
    (
        "no-call",
        "No recorded call of this tool was modelled, for example because every call failed. Record a successful call.",
    ),
    // contract: BUILD-059
    (
        "body-unusable",
        "The retained request or response cannot be modelled. Record a successful call with a complete supported request and reproducible response.",
    ),
    // contract: BUILD-060
    (
        "no-observation",
        "Nothing showed the entity or document this write changed. Read a created entity back by id right after the write; for an update or delete the state must already hold the entity, so read it before the write or record the create that made it.",
    ),
    // contract: BUILD-061
    (
        "unexplained-change",
        "The write changed fields it did not send, in a way no rule explains. A second, different call of the same tool can show the pattern.",
    ),
    // contract: BUILD-062
    (
        "contradicted",
        "A later read disagreed with the modelled effect. Check the read at contradicted_by.",
    ),
    // contract: BUILD-063
    (
        "side-effect",
        "The write changed something besides its own entity, which the environment does not model.",
    ),
    // contract: BUILD-064
    (
        "unconfirmed",
        "No later read showed the effect. Read the entity and its list after the write.",
    ),
    // contract: BUILD-065
    (
        "incomplete-entities",
        "The write is confirmed, but the views that show its entity cannot render it in full. Read the written entity through every view that lists it.",
    ),
    // contract: BUILD-066
    (
        "unknown-clock",
        "The learned rules generate timestamps, but the capture establishes no global served clock start. Record usable start times and completed durations for every request.",
    ),
];

fn spec_hint(reason: &str) -> &'static str {
    SPEC_HINTS
        .iter()
        .find(|(name, _)| *name == reason)
        .map(|(_, hint)| *hint)
        .unwrap_or_else(|| panic!("{reason} is no withheld reason of the spec"))
}

/// Builds `capture` into `work/<folder>` with a stand-in binary; returns the report.
fn build(work: &Path, capture: &str, folder: &str, extra: &[&str]) -> Value {
    let binary = stand_in_binary(work).display().to_string();
    let mut args = vec![
        "environment-build",
        capture,
        folder,
        "--binary",
        binary.as_str(),
        "--json",
    ];
    args.extend_from_slice(extra);
    report(&run(work, &args))
}

/// Serves a bundle's env folder as its Dockerfile's CMD does, on an ephemeral loopback port.
fn serve_bundle(bundle: &Path, name: &str) -> (Server, String) {
    let env = bundle.join("envs").join(name);
    let dockerfile = std::fs::read_to_string(env.join("Dockerfile")).unwrap();
    let cmd = dockerfile
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("CMD "))
        .expect("a CMD line");
    let argv: Vec<String> = serde_json::from_str(cmd).expect("CMD is a JSON array");
    let mut command = std::process::Command::new(rea());
    for argument in &argv[1..] {
        match argument.strip_prefix("/env/") {
            Some(file) => command.arg(env.join(file)),
            None => command.arg(argument),
        };
    }
    let mut server = Server::spawn_in(
        command,
        &env,
        &[
            ("MCP_HOST", "127.0.0.1"),
            ("MCP_PORT", "0"),
            ("ENVIRONMENT_NAME", name),
        ],
    );
    let url = server.url();
    (server, url)
}

/// Stops a server with SIGTERM; returns its stopped document.
fn stop(server: Server) -> Value {
    server.signal("TERM");
    let (code, stdout, stderr) = server.finish();
    assert_eq!(code, Some(143), "{stderr:?}");
    serde_json::from_str(&stdout).unwrap()
}

/// `PROBE` and `EXPECTED_STATUS` of a `verify.py` (JSON values: a string or null, a number or
/// null).
fn verifier_constants(verify: &str) -> (Value, Value) {
    let constant = |name: &str| {
        let line = verify
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("no {name} in verify.py"));
        let value = line.split("  #").next().unwrap().trim();
        if value == "None" {
            Value::Null
        } else {
            serde_json::from_str(value).unwrap()
        }
    };
    (constant("PROBE"), constant("EXPECTED_STATUS"))
}

/// The probe as the spec defines it, found on the live server: the first listed tool the manifest
/// declares as `GET` without path parameters whose answer to no arguments is not an error;
/// returns it with its answer.
fn live_probe(url: &str, listed: &[Value], manifest: &Value) -> Option<(String, Value)> {
    for tool in listed {
        let name = tool["name"].as_str().unwrap();
        let declared = manifest["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|declared| declared["name"] == name)
            .expect("a served tool the manifest declares");
        if declared["method"] != "GET"
            || !declared["path_parameters"].as_array().unwrap().is_empty()
        {
            continue;
        }
        let result = call_tool(url, name, &json!({}));
        if result["isError"] == true {
            continue;
        }
        return Some((name.to_owned(), answer_of(&result)));
    }
    None
}

/// The recorded response status of a capture record, by ordinal (`null` for status 0).
fn recorded_status(evidence: &Value, ordinal: u64) -> Value {
    let record = evidence["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|record| record["ordinal"] == ordinal)
        .expect("the record");
    match record["response"]["status"].as_u64() {
        Some(0) | None => Value::Null,
        Some(status) => json!(status),
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Checks a served bundle against its report and verifier; returns the tools it lists.
fn check_served_bundle(bundle: &Path, name: &str, report: &Value) -> Vec<Value> {
    let env = bundle.join("envs").join(name);
    let manifest = read_json(&env.join("manifest.json"));
    let evidence = read_json(&env.join("evidence.json"));
    let verify =
        std::fs::read_to_string(bundle.join(format!("artifacts/check_{name}/verify.py"))).unwrap();
    let (probe, expected_status) = verifier_constants(&verify);

    let (server, url) = serve_bundle(bundle, name);
    // contract: EXPORT-050 (deployed with ENVIRONMENT_NAME, the card carries the env's name)
    assert_eq!(card(&url)["name"], name);
    // contract: EXPORT-022 (the server lists what the export predicted under that name)
    let listed = tools_list(&url);
    assert_eq!(listed.len() as u64, report["tool_count"], "{name}");
    // The probe and its status are the live server's.
    match live_probe(&url, &listed, &manifest) {
        Some((tool, answer)) => {
            // contract: EXPORT-059, EXPORT-061 (the first GET tool without path parameters whose
            // answer to no arguments is not an error)
            assert_eq!(probe, json!(tool), "{name}: the probe");
            // contract: EXPORT-062 (the status of that tool's answer, as the server answers)
            assert_eq!(expected_status, answer["status"], "{name}: {answer}");
            // contract: EXPORT-063 (the status is the answer's base record's; a replayed
            // record's is tagged where a bundle replays)
            let ordinal = answer["replay"]["record_ordinal"]
                .as_u64()
                .unwrap_or_else(|| panic!("{name}: no base record in {answer}"));
            assert_eq!(
                expected_status,
                recorded_status(&evidence, ordinal),
                "{name}"
            );
        }
        None => {
            assert_eq!(probe, Value::Null, "{name}");
            assert!(verify.contains("count only"), "{verify}");
        }
    }
    let stopped = stop(server);
    assert_eq!(stopped["state"], report["state"], "{name}");
    assert_eq!(stopped["tool_count"], report["tool_count"], "{name}");
    listed
}

/// The environment-coverage view of a capture Evidence file with these template rules.
fn coverage_view(work: &Path, capture: &Path, rules: &[&str]) -> Value {
    let view = json!({
        "source": {"kind": "evidence-file", "path": capture.display().to_string()},
        "view": {"kind": "environment-coverage", "template_rules": rules},
    });
    let path = work.join("coverage-view.json");
    std::fs::write(&path, view.to_string()).unwrap();
    let run = run(
        work,
        &["inspect-analysis-view", &path.display().to_string()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn every_shared_bundle_serves_what_its_report_coverage_and_verifier_predict() {
    // The state's hint table is the spec's, reason for reason and word for word (the rows of
    // SPEC_HINTS carry their ids).
    assert_eq!(
        rea_state::writes::model::WITHHELD_REASONS.to_vec(),
        SPEC_HINTS.to_vec()
    );
    let mut reasons_seen = BTreeSet::new();
    let mut served_write_count = 0;
    for (name, har) in build_captures() {
        let dir = tempfile::tempdir().expect("temp dir");
        let work = dir.path();
        let report = build(
            work,
            &har.display().to_string(),
            "bundle",
            &["--name", &name],
        );
        assert_eq!(report["state"]["served"], true, "{name}: {report}");
        let bundle = work.join("bundle");

        // The coverage shape.
        let coverage = &report["coverage"];
        assert_eq!(keys(coverage), ["reads", "writes"]);
        // contract: BUILD-048
        assert_eq!(
            keys(&coverage["reads"]),
            ["recorded", "recorded_reasons", "state"]
        );
        let state_reads = coverage["reads"]["state"].as_u64().expect("reads.state");
        let recorded = coverage["reads"]["recorded"]
            .as_u64()
            .expect("reads.recorded");
        let reasons_total: u64 = coverage["reads"]["recorded_reasons"]
            .as_object()
            .unwrap()
            .values()
            .map(|count| count.as_u64().unwrap())
            .sum();
        assert_eq!(reasons_total, recorded, "{name}");
        assert_eq!(keys(&coverage["writes"]), ["served", "withheld"]);
        let served_writes = coverage["writes"]["served"].as_array().unwrap();
        served_write_count += served_writes.len();
        for served in served_writes {
            // contract: BUILD-049
            assert_eq!(keys(served), ["effect", "tool"], "{served}");
            assert!(
                ["create", "update", "delete", "document"]
                    .contains(&served["effect"].as_str().unwrap())
            );
        }
        let withheld = coverage["writes"]["withheld"].as_array().unwrap();
        for write in withheld {
            // contract: BUILD-050
            assert_eq!(
                keys(write),
                [
                    "contradicted_by",
                    "effect",
                    "exemplar_ordinal",
                    "hint",
                    "reason",
                    "tool"
                ],
                "{write}"
            );
            let reason = write["reason"].as_str().unwrap();
            // contract: BUILD-056 (each withheld write carries its reason's hint)
            assert_eq!(write["hint"], spec_hint(reason), "{name}: {write}");
            if reason != "contradicted" {
                assert_eq!(write["contradicted_by"], Value::Null, "{write}");
            }
            reasons_seen.insert(reason.to_owned());
        }
        // contract: BUILD-052 (coverage summarizes the served catalog: every read, and the
        // served writes)
        assert_eq!(
            report["tool_count"].as_u64().unwrap(),
            state_reads + recorded + served_writes.len() as u64,
            "{name}: {coverage}"
        );

        // The environment-coverage view reports the same summary without building.
        let view = coverage_view(
            work,
            &bundle.join(format!("envs/{name}/evidence.json")),
            &DEFAULT_RULES,
        );
        // contract: BUILD-054
        assert_eq!(view["reads"], coverage["reads"], "{name}");
        assert_eq!(view["writes"], coverage["writes"], "{name}");

        // The bundle served: count, probe, status, stopped state, card name.
        let listed = check_served_bundle(&bundle, &name, &report);
        // contract: BUILD-056 (hints change nothing served: served writes are listed, withheld
        // ones are not)
        let listed: BTreeSet<&str> = listed
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        for served in served_writes {
            assert!(
                listed.contains(served["tool"].as_str().unwrap()),
                "{served}"
            );
        }
        for write in withheld {
            assert!(!listed.contains(write["tool"].as_str().unwrap()), "{write}");
        }
    }
    assert!(
        !reasons_seen.is_empty(),
        "no shared capture withholds a write: the hints went unchecked"
    );
    assert!(
        served_write_count > 0,
        "no shared capture serves a write: the served list went unchecked"
    );
}

/// A HAR whose replay catalog fits the discovery reservation and whose state catalog does not.
fn oversize_state_har() -> String {
    const LIMIT: u64 = 1024 * 1024; // the spec's 1 MiB reservation (MANIFEST-018)
    const TOOLS: usize = 200;
    let (empty, _) = catalog_charges(&many_endpoints_har(TOOLS, 0));
    let (one_each, _) = catalog_charges(&many_endpoints_har(TOOLS, TOOLS));
    let per_field = (one_each - empty) / TOOLS as u64;
    let mut fields = ((LIMIT - empty) / per_field) as usize;
    loop {
        let (replay, state) = catalog_charges(&many_endpoints_har(TOOLS, fields));
        if replay > LIMIT {
            fields -= 1;
            continue;
        }
        let (next, _) = catalog_charges(&many_endpoints_har(TOOLS, fields + 1));
        if next <= LIMIT {
            fields += 1;
            continue;
        }
        assert!(state > LIMIT, "replay {replay}, state {state}");
        return many_endpoints_har(TOOLS, fields);
    }
}

#[test]
fn a_state_catalog_over_the_reservation_exports_a_replay_bundle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    std::fs::write(work.join("wide.har"), oversize_state_har()).unwrap();
    inspect_into(work, &work.join("wide.har"), "capture.json");
    let manifest = project_into(work, "capture.json", &[], "manifest.json");
    let manifest_name = read_json(&manifest)["name"].as_str().unwrap().to_owned();
    let binary = stand_in_binary(work).display().to_string();
    // The export keeps the manifest's name: the name the reservation was charged under.
    let report = report(&run(
        work,
        &[
            "environment-export",
            "manifest.json",
            "--evidence",
            "capture.json",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
    ));
    // contract: EXPORT-023, EXPORT-024 (the state over the reservation is unavailable; the
    // export still builds)
    assert_eq!(report["status"], "built");
    assert_eq!(report["name"], manifest_name.as_str());
    assert_eq!(report["state"]["served"], false, "{report}");
    assert_eq!(report["state"]["reason"], "unavailable");
    assert_eq!(report["state"]["code"], "resource_constraint");
    // contract: BUILD-053
    assert_eq!(report["coverage"], Value::Null);
    // contract: EXPORT-058
    assert_eq!(
        report["tool_count"], 200,
        "replay serves every manifest tool"
    );

    // The README says replay applies, with the unavailable state's code and message.
    let readme = std::fs::read_to_string(work.join("bundle/README.md")).unwrap();
    // contract: EXPORT-080
    assert!(readme.contains("This bundle serves **replay**"), "{readme}");
    let code = report["state"]["code"].as_str().unwrap();
    let message = report["state"]["message"].as_str().unwrap();
    // contract: EXPORT-081
    assert!(
        readme.contains(&format!("The state is unavailable: `{code}`: {message}")),
        "{readme}"
    );

    // The coverage view, which applies no serve-time admission, still reports the state.
    let view = coverage_view(work, &work.join("capture.json"), &[]);
    // contract: BUILD-055
    assert_eq!(view["reads"]["state"], 200, "{view}");

    // Served: replay, as predicted; the probe's status is its replayed record's.
    // contract: EXPORT-064 (checked in check_served_bundle, on a replayed answer here)
    check_served_bundle(&work.join("bundle"), &manifest_name, &report);
    let (server, url) = serve_bundle(&work.join("bundle"), &manifest_name);
    assert_eq!(card(&url)["capabilities"]["operations"], json!([]));
    stop(server);
}

// contract: EXPORT-065, EXPORT-066
#[test]
fn an_unknown_status_stays_unknown_and_no_probe_means_a_count_only_verifier() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let entry = |url: &str, status: u16, text: &str| {
        let query: Vec<Value> = url
            .split_once('?')
            .map(|(_, query)| {
                query
                    .split('&')
                    .map(|pair| {
                        let (name, value) = pair.split_once('=').unwrap();
                        json!({"name": name, "value": value})
                    })
                    .collect()
            })
            .unwrap_or_default();
        let content = if status == 0 {
            json!({"size": 0, "mimeType": ""})
        } else {
            json!({"size": text.len(), "mimeType": "application/json", "text": text})
        };
        json!({
            "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
            "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": [],
                        "cookies": [], "queryString": query, "headersSize": -1, "bodySize": 0},
            "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1",
                         "headers": [], "cookies": [], "content": content, "redirectURL": "",
                         "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
        })
    };
    let har = |entries: Vec<Value>| {
        json!({"log": {"version": "1.2", "creator": {"name": "rea-tests", "version": "1"}, "entries": entries}})
            .to_string()
    };
    // The call without arguments answers from the record without a response (status 0); the
    // other record of the same tool recorded 200, which must not be borrowed.
    std::fs::write(
        work.join("unknown.har"),
        har(vec![
            entry("https://api.example.com/api/health", 0, ""),
            entry(
                "https://api.example.com/api/health?verbose=1",
                200,
                "{\"ok\":true}",
            ),
        ]),
    )
    .unwrap();
    let report = build(work, "unknown.har", "unknown", &["--name", "health"]);
    let verify = std::fs::read_to_string(work.join("unknown/artifacts/check_health/verify.py"))
        .expect("verify.py");
    let (probe, status) = verifier_constants(&verify);
    assert_eq!(probe, "get_health");
    assert_eq!(status, Value::Null, "{verify}");
    check_served_bundle(&work.join("unknown"), "health", &report);

    // No GET tool without path parameters: the verifier checks the count only and says so.
    std::fs::write(
        work.join("items.har"),
        har(vec![entry(
            "https://api.example.com/api/items/7",
            200,
            "{\"id\":7}",
        )]),
    )
    .unwrap();
    let report = build(work, "items.har", "items", &["--name", "items"]);
    let verify = std::fs::read_to_string(work.join("items/artifacts/check_items/verify.py"))
        .expect("verify.py");
    assert_eq!(verifier_constants(&verify), (Value::Null, Value::Null));
    assert!(verify.contains("count only"), "{verify}");
    let readme = std::fs::read_to_string(work.join("items/README.md")).unwrap();
    assert!(!readme.contains("answers with status"), "{readme}");
    check_served_bundle(&work.join("items"), "items", &report);
}
