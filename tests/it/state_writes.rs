//! Served writes: the write plans of every shared capture, replayed through MCP against the state
//! served from the same capture; the probe-crud agreement report; the refusals and semantics of
//! served writes; and a pipeline without a rule withholding what only that rule explained.

use crate::state_support;

use std::collections::BTreeSet;
use std::sync::Arc;

use rea_manifest::catalog::{is_query_post, is_safe_method};
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_serve::ToolBackend;
use rea_serve::mcp::McpSurface;
use serde_json::{Map, Value, json};
use state_support::agreement::{IdMap, answered_this_call, compare, describe, route};
use state_support::{APPS, Served, capture, serve, serve_with_rules};

/// Calls a tool through the MCP surface (the argument check against the input schema, then the
/// backend): the answer document and `isError`.
fn mcp_call(
    runtime: &tokio::runtime::Runtime,
    surface: &McpSurface,
    tool: &str,
    arguments: Map<String, Value>,
) -> Option<(Value, bool)> {
    let result = runtime.block_on(surface.call(tool, Some(arguments))).ok()?;
    let wire = serde_json::to_value(&result).expect("result");
    let text = wire
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or("null");
    Some((
        serde_json::from_str(text).unwrap_or(Value::Null),
        wire.get("isError").and_then(Value::as_bool) == Some(true),
    ))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn is_write(served: &Served, tool: &str) -> bool {
    served.manifest.tool(tool).is_some_and(|declared| {
        !is_safe_method(&declared.method)
            && !is_query_post(&declared.method, &declared.path_template)
    })
}

/// The records in time order (start instant, then ordinal), as the state orders them.
fn in_time_order(records: &[CaptureRecord]) -> Vec<&CaptureRecord> {
    let mut ordered: Vec<&CaptureRecord> = records.iter().collect();
    if ordered.iter().all(|record| {
        record
            .started
            .as_ref()
            .is_some_and(|start| start.instant.is_some())
    }) {
        ordered.sort_by(|a, b| {
            let instant = |record: &CaptureRecord| {
                record
                    .started
                    .as_ref()
                    .and_then(|start| start.instant.clone())
                    .unwrap_or_default()
            };
            instant(a).cmp(&instant(b)).then(a.ordinal.cmp(&b.ordinal))
        });
    } else {
        ordered.sort_by_key(|record| record.ordinal);
    }
    ordered
}

#[test]
fn served_writes_replayed_through_mcp_reproduce_the_later_reads() {
    let runtime = runtime();
    let mut report = Vec::new();
    let mut replayed = 0;
    for app in APPS {
        let served = serve(&format!("{app}/build.har"));
        let surface = McpSurface::new(Arc::clone(&served.backend) as Arc<dyn ToolBackend>);
        let state = served.state();
        let catalog: BTreeSet<String> = served
            .backend
            .tools()
            .iter()
            .map(|tool| tool.name.clone())
            .collect();
        // Unserved write tools are not in the catalog; served ones are.
        for plan in &state.write_plans {
            // contract: STATE-002, STATE-105, STATE-106
            assert_eq!(
                catalog.contains(&plan.tool),
                plan.served,
                "{app}: {}",
                plan.tool
            );
        }
        let Some(first_write) = state.first_write_ordinal else {
            report.push(format!("{app}: no write"));
            continue;
        };
        let ordered = in_time_order(&served.records);
        let start = ordered
            .iter()
            .position(|record| record.ordinal == first_write)
            .expect("the first write is a record");
        // A withheld write changes nothing here, so later reads of what it relates to may show
        // its effect: they are not checked, nor are served writes of what it relates to.
        let timeline =
            rea_state::observation::Timeline::for_state(&served.manifest, &served.records, state);
        let scope_of_write = |ordinal: u64| {
            state
                .related_writes
                .iter()
                .find(|write| write.ordinal == ordinal)
                .map(|write| write.scope.clone())
                .unwrap_or(rea_state::model::WriteScope::All)
        };
        let scope_of_read = |record: &CaptureRecord| {
            let observation = timeline.get(record.ordinal)?;
            let tool = &served.manifest.tools[observation.tool];
            Some(rea_state::derive::windows::read_scope(
                state.view(&tool.name),
                observation,
            ))
        };
        let mut blocked: Vec<(u64, rea_state::model::WriteScope)> = Vec::new();
        let blocks = |blocked: &[(u64, rea_state::model::WriteScope)],
                      scope: &rea_state::model::WriteScope| {
            blocked
                .iter()
                .any(|(_, withheld)| rea_state::derive::windows::relates(withheld, scope))
        };
        let mut ids = IdMap::default();
        let (mut writes, mut reads) = (0, 0);
        for record in &ordered[start..] {
            let Some((tool, arguments)) = route(&served, record) else {
                continue;
            };
            if is_write(&served, &tool) {
                let scope = scope_of_write(record.ordinal);
                if !catalog.contains(&tool) {
                    blocked.push((record.ordinal, scope));
                    continue;
                }
                if blocks(&blocked, &scope) {
                    continue;
                }
                let (answer, error) = mcp_call(
                    &runtime,
                    &surface,
                    &tool,
                    ids.translate_arguments(&arguments),
                )
                .expect("a served tool answers");
                assert!(!error, "{app} record {}: {answer}", record.ordinal);
                let (status, body) = state_support::recorded_answer(record);
                // contract: WRITE-041 (the status of the recorded response)
                assert_eq!(
                    answer
                        .get("status")
                        .and_then(Value::as_u64)
                        .map(|s| s as u16),
                    status,
                    "{app} record {}: {answer}",
                    record.ordinal
                );
                ids.learn(&body, answer.get("body").unwrap_or(&Value::Null));
                assert_eq!(
                    answer.pointer("/state/source").and_then(Value::as_str),
                    Some("state"),
                    "{app}: {answer}"
                );
                writes += 1;
                continue;
            }
            let Some(scope) = scope_of_read(record) else {
                continue;
            };
            if blocks(&blocked, &scope) {
                continue;
            }
            let Some((answer, _)) = mcp_call(
                &runtime,
                &surface,
                &tool,
                ids.translate_arguments(&arguments),
            ) else {
                continue;
            };
            if answer.pointer("/state/source").and_then(Value::as_str) != Some("state") {
                continue;
            }
            let verdict = compare(&ids, record, &answer);
            // contract: STATE-108, WRITE-001 (the later reads see what the served writes changed)
            assert!(
                verdict.status && verdict.body,
                "{app} record {} ({tool}) answered otherwise than recorded: {answer}",
                record.ordinal
            );
            reads += 1;
        }
        let blocked = blocked.first().map(|(ordinal, _)| *ordinal);
        report.push(format!(
            "{app}: {writes} served write calls replayed, {reads} later state reads reproduced{}",
            blocked
                .map(|ordinal| format!(
                    " (what withheld writes relate to unchecked from record {ordinal})"
                ))
                .unwrap_or_default()
        ));
        // A served write replayed is checked by some later read (a served write whose every
        // call follows a withheld write of what it relates to is not replayed here).
        assert!(writes == 0 || reads > 0, "{app}: no later read checked");
        replayed += writes;
    }
    assert!(replayed > 0, "no served write was replayed");
    println!("served writes replayed through MCP:");
    for line in report {
        println!("  {line}");
    }
}

#[test]
fn probe_crud_agreement_report() {
    // The probe-crud captures were recorded on the live application from the same seed: each
    // probe's calls run against the environment served from build.har (reset first) and every
    // step's answer is compared with the live one (status and body, ids mapped from the answers
    // the environment gave those calls, clocks by format), each disagreement classified.
    // Printed, not asserted to agree: the probes do what the build capture never showed.
    let runtime = runtime();
    let mut lines = Vec::new();
    for app in APPS {
        let served = serve(&format!("{app}/build.har"));
        let surface = McpSurface::new(Arc::clone(&served.backend) as Arc<dyn ToolBackend>);
        let probes = capture(&format!("{app}/probe-crud.har"));
        let records = rea_evidence::capture::capture_records(&probes).expect("records");
        plane(&served, "data/reset").expect("reset");
        let mut ids = IdMap::default();
        // Ids the application generated in answers the environment did not give itself.
        let mut unmapped: BTreeSet<String> = BTreeSet::new();
        let (mut steps, mut status_agree, mut both_agree, mut unordered, mut unserved) =
            (0, 0, 0, 0, 0);
        let mut categories: std::collections::BTreeMap<&'static str, usize> = Default::default();
        let mut detail = Vec::new();
        for record in in_time_order(&records) {
            steps += 1;
            let Some((tool, arguments)) = route(&served, record) else {
                unserved += 1;
                *categories.entry("no-tool").or_default() += 1;
                detail.push(format!(
                    "    {:>3} {} {}: no-tool",
                    record.ordinal,
                    record.method.as_deref().unwrap_or(""),
                    record.path.as_deref().unwrap_or("")
                ));
                note_generated_ids(&mut unmapped, record);
                continue;
            };
            let translated = ids.translate_arguments(&arguments);
            let Some((answer, is_error)) = mcp_call(&runtime, &surface, &tool, translated.clone())
            else {
                unserved += 1;
                *categories.entry("not-served").or_default() += 1;
                detail.push(format!("    {:>3} {tool}: not-served", record.ordinal));
                note_generated_ids(&mut unmapped, record);
                continue;
            };
            let (live_status, live_body) = state_support::recorded_answer(record);
            if answered_this_call(record, &answer) {
                ids.learn(&live_body, answer.get("body").unwrap_or(&Value::Null));
            } else if is_write(&served, &tool) {
                note_generated_ids(&mut unmapped, record);
            }
            let verdict = compare(&ids, record, &answer);
            let live_success = live_status.is_some_and(|status| (200..300).contains(&status));
            let answered_success = answer
                .get("status")
                .and_then(Value::as_u64)
                .is_some_and(|status| (200..300).contains(&status));
            let unmapped_path = live_success
                && (is_error || !answered_success)
                && translated
                    .values()
                    .filter_map(Value::as_str)
                    .any(|value| unmapped.contains(value) && !ids.maps(value));
            let agrees = !is_error && verdict.status && verdict.body;
            status_agree += usize::from(!is_error && verdict.status);
            both_agree += usize::from(agrees);
            unordered += usize::from(
                !is_error && verdict.status && (verdict.body || verdict.body_ignoring_order),
            );
            let cause = if agrees {
                "agrees".to_owned()
            } else if unmapped_path {
                *categories.entry("unmapped-id").or_default() += 1;
                "unmapped-id (an id the application generated in a write the environment did not serve)".to_owned()
            } else if is_error {
                *categories.entry("refused").or_default() += 1;
                format!(
                    "refused ({})",
                    answer
                        .pointer("/error/code")
                        .and_then(Value::as_str)
                        .unwrap_or("tool error")
                )
            } else {
                for difference in &verdict.differences {
                    *categories.entry(difference.category).or_default() += 1;
                }
                describe(&verdict, 3)
            };
            let source = answer
                .pointer("/state/source")
                .and_then(Value::as_str)
                .or_else(|| is_error.then_some("error"))
                .unwrap_or("replay");
            detail.push(format!(
                "    {:>3} {tool} [{source}]: {cause}",
                record.ordinal
            ));
        }
        lines.push(format!(
            "  {app}: {steps} steps, {status_agree} statuses agree, {both_agree} status and body agree ({unordered} ignoring order), {unserved} not served; differences by category {categories:?}"
        ));
        lines.extend(detail);
    }
    println!("probe-crud agreement (environment from build.har vs the live application):");
    for line in lines {
        println!("{line}");
    }
}

/// Remembers the ids the application generated in a recorded write's answer (a create's: a
/// `POST` answering `2xx`, or a write answering `201`, whose path may name a client-chosen id): a
/// later call naming one the environment cannot answer is `unmapped-id`, not a status difference.
fn note_generated_ids(unmapped: &mut BTreeSet<String>, record: &CaptureRecord) {
    fn walk(value: &Value, unmapped: &mut BTreeSet<String>) {
        match value {
            Value::Object(members) => {
                for (key, member) in members {
                    let id_like = matches!(key.as_str(), "id" | "uuid" | "guid")
                        || key.ends_with("_id")
                        || key.ends_with("Id");
                    match member {
                        Value::String(text) if id_like => {
                            unmapped.insert(text.clone());
                        }
                        Value::Number(number) if id_like => {
                            unmapped.insert(number.to_string());
                        }
                        _ => walk(member, unmapped),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, unmapped)),
            _ => {}
        }
    }
    let status = record.response.status;
    let method = record.method.as_deref().map(str::to_ascii_uppercase);
    let created =
        status == 201 || (method.as_deref() == Some("POST") && (200..300).contains(&status));
    if !created {
        return;
    }
    walk(&state_support::recorded_answer(record).1, unmapped);
    if status == 201
        && method.as_deref() != Some("POST")
        && let Some(last) = record
            .path
            .as_deref()
            .and_then(|path| path.rsplit('/').next())
    {
        unmapped.insert(
            rea_manifest::segments::percent_decode(last)
                .map(|decoded| decoded.into_owned())
                .unwrap_or_else(|| last.to_owned()),
        );
    }
}

#[test]
fn turning_a_rule_off_withholds_the_plans_only_it_explained() {
    // The default pipeline without `sort-inference`: Kinto lists new tasks first, which nothing
    // else explains, so the create is contradicted by the list read after it; and without
    // `clock`, Kinto's `last_modified` is unexplained.
    let dir = tempfile::tempdir().expect("temp");
    let without = |stage: &str| {
        let text = rea_pipeline::DEFAULT_PIPELINE
            .replace(&format!("[[rules]]\nstage = \"{stage}\"\n"), "");
        assert_ne!(
            text,
            rea_pipeline::DEFAULT_PIPELINE,
            "{stage} is in the default pipeline"
        );
        let path = dir.path().join(format!("without-{stage}.toml"));
        std::fs::write(&path, text).expect("pipeline");
        state_support::pipeline_rules(Some(&path))
    };
    let plan =
        |served: &Served, tool: &str| served.state().write_plan(tool).cloned().expect("a plan");
    let create = "post_buckets_workspace_collections_records_by_collection_id";
    let patch = "patch_buckets_workspace_collections_records_by_collection_id_and_id";
    let all = serve("kinto/build.har");
    assert!(plan(&all, create).served);
    assert!(plan(&all, patch).served);
    let unsorted = serve_with_rules(
        "kinto/build.har",
        without("sort-inference"),
        rea_backends::fetch::FetchOptions::default(),
    );
    let withheld = plan(&unsorted, create);
    assert!(!withheld.served);
    assert_eq!(withheld.reason.as_deref(), Some("contradicted"));
    assert!(withheld.contradicted_by.is_some());
    let unclocked = serve_with_rules(
        "kinto/build.har",
        without("clock"),
        rea_backends::fetch::FetchOptions::default(),
    );
    assert_eq!(
        plan(&unclocked, patch).reason.as_deref(),
        Some("unexplained-change")
    );
    // The state Evidence names the rules it was derived with, so its id differs.
    assert_ne!(
        all.backend.service().state_evidence_id(),
        unclocked.backend.service().state_evidence_id()
    );
}

fn call(served: &Served, tool: &str, arguments: Value) -> (Value, bool) {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    served.call(tool, arguments)
}

/// Runs a data-plane method without params.
fn plane(served: &Served, method: &str) -> Result<Value, rea_serve::RpcError> {
    runtime().block_on(served.plane.run(rea_serve::DataCall {
        method: method.to_owned(),
        params: None,
        params_raw: None,
        expects_reply: true,
        cancel: rea_serve::ShutdownToken::new(),
    }))
}

fn data_get(served: &Served) -> Value {
    plane(served, "data/get").expect("data/get")
}

#[test]
fn served_writes_change_the_state_every_session_sees() {
    let served = serve("json-server/build.har");
    let (created, error) = call(
        &served,
        "post_posts",
        json!({"body": {"title": "Served note", "views": 7}}),
    );
    assert!(!error, "{created}");
    // contract: WRITE-041 (the recorded status)
    assert_eq!(created["status"], 201);
    // contract: WRITE-003 (the sent fields, and the generated id)
    assert_eq!(
        created["body"],
        json!({"title": "Served note", "views": 7, "id": 5})
    );
    // contract: WRITE-064
    assert_eq!(created["state"]["view"], "create");
    assert_eq!(created["state"]["id"], "5");
    // A read by id and the list show it; data/get too.
    let (read, _) = call(&served, "get_posts_by_id", json!({"id": "5"}));
    // contract: WRITE-002, WRITE-001, STATE-108 (a read after the write sees it)
    assert_eq!(read["body"]["title"], "Served note");
    let (listed, _) = call(&served, "get_posts", json!({}));
    let titles: Vec<&str> = listed["body"]
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|post| post["title"].as_str())
        .collect();
    assert_eq!(titles.last(), Some(&"Served note"));
    let document = data_get(&served);
    // contract: WRITE-001, STATE-108 (data/get sees it)
    assert!(document.to_string().contains("Served note"));
    // The next create takes the next id; an update merges; a delete removes.
    let (second, _) = call(&served, "post_posts", json!({"body": {"title": "Second"}}));
    // contract: WRITE-058
    assert_eq!(second["body"]["id"], 6);
    let (patched, error) = call(
        &served,
        "patch_posts_by_id",
        json!({"id": "5", "body": {"title": "Renamed"}}),
    );
    assert!(!error, "{patched}");
    // contract: WRITE-006
    assert_eq!(
        patched["body"],
        json!({"title": "Renamed", "views": 7, "id": 5})
    );
    // contract: WRITE-064
    assert_eq!(patched["state"]["view"], "update");
    // A PUT replaces: the member it does not send is gone.
    let (put, error) = call(
        &served,
        "put_posts_by_id",
        json!({"id": "1", "body": {"title": "T", "author": "a", "body": "b", "published": false, "tags": []}}),
    );
    assert!(!error, "{put}");
    assert!(put["body"].get("views").is_none(), "{put}");
    // A document write merges.
    let (profile, error) = call(
        &served,
        "patch_profile",
        json!({"body": {"theme": "light"}}),
    );
    assert!(!error, "{profile}");
    assert_eq!(profile["body"]["theme"], "light");
    assert_eq!(profile["state"]["view"], "document-write");
    let (read_profile, _) = call(&served, "get_profile", json!({}));
    // contract: WRITE-032
    assert_eq!(read_profile["body"]["theme"], "light");
    // A nested create stores the path value and lands in its tied collection.
    let (comment, error) = call(
        &served,
        "post_posts_comments_by_post_id",
        json!({"post_id": "2", "body": {"author": "x", "body": "y", "approved": true}}),
    );
    assert!(!error, "{comment}");
    assert_eq!(comment["body"]["postId"], "2");
    let (read_comment, _) = call(
        &served,
        "get_comments_by_id",
        json!({"id": comment["body"]["id"].to_string()}),
    );
    assert_eq!(read_comment["body"]["author"], "x");
    // data/reset restores the derived state and restarts the sequence.
    plane(&served, "data/reset").expect("reset");
    let (again, _) = call(
        &served,
        "post_posts",
        json!({"body": {"title": "Served note", "views": 7}}),
    );
    // contract: WRITE-063 (data/reset restarts the sequence)
    assert_eq!(again["body"]["id"], 5);
    assert_eq!(again["body"], created["body"]);
}

#[test]
fn refused_writes_name_the_accepted_members_and_change_nothing() {
    let served = serve("json-server/build.har");
    let before = data_get(&served);
    let refused = |tool: &str, arguments: Value, needle: &str| {
        let (answer, error) = call(&served, tool, arguments);
        assert!(error, "{tool} should be refused: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{tool}: {message}");
    };
    // An unaccepted member, another JSON type, a missing required member.
    // contract: WRITE-044
    refused(
        "post_posts",
        json!({"body": {"title": "x", "color": "red"}}),
        "\"color\"",
    );
    // contract: WRITE-046
    refused(
        "post_posts",
        json!({"body": {"title": 5}}),
        "accepts the members",
    );
    // contract: WRITE-047
    refused(
        "post_posts_comments_by_post_id",
        json!({"post_id": "1", "body": {"author": "x"}}),
        "is required",
    );
    // A replacing update requires what every create sent (a member some create left out, such
    // as `author`, it does not: `writes::update_required`).
    refused(
        "put_posts_by_id",
        json!({"id": "1", "body": {"author": "x"}}),
        "is required",
    );
    // A body that is not an object never reaches the schema-checked backend as one: the MCP
    // surface refuses it first, and the backend refuses it too.
    let (answer, error) = served.call(
        "post_posts",
        serde_json::from_value(json!({"body": ["x"]})).expect("map"),
    );
    assert!(error, "{answer}");
    // contract: WRITE-055 (the state is unchanged)
    assert_eq!(data_get(&served), before);
    // An update or delete of an entity the state does not hold answers the recorded 404.
    let (missing, error) = call(
        &served,
        "patch_posts_by_id",
        json!({"id": "999", "body": {"title": "x"}}),
    );
    assert!(!error, "{missing}");
    // contract: WRITE-054
    assert_eq!(missing["status"], 404);
    assert_eq!(missing["state"]["view"], "missing");
    assert_eq!(data_get(&served), before);
}

/// A capture file inspected where it lies (its path named in the capture Evidence, as the
/// command names it) and served from the state.
fn serve_stored_at(path: &std::path::Path) -> Served {
    let capture = rea::commands::inspect_capture::inspect_with_builtins(
        &rea::commands::inspect_capture::InspectRequest {
            capture: path,
            input_kind: "har",
            selection: None,
            sensitive_values: &[],
        },
    )
    .expect("the capture inspects");
    state_support::serve_evidence(
        capture,
        state_support::state_rules(),
        rea_backends::fetch::FetchOptions::default(),
    )
}

/// The first generated id a create answers, served from the same recording stored at two paths.
fn generated_ids_at_two_paths(
    build: &std::path::Path,
    create: &str,
    arguments: &Value,
) -> [String; 2] {
    let dir = tempfile::tempdir().expect("temp dir");
    let near = dir.path().join("a/build.har");
    let far = dir.path().join("elsewhere/deeper/copy.har");
    [&near, &far].iter().for_each(|path| {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
        std::fs::copy(build, path).expect("copy");
    });
    let served = [serve_stored_at(&near), serve_stored_at(&far)];
    let [one, two] = &served;
    // The capture Evidence names the file, so the Evidence ids differ; the draw seed does not.
    assert_ne!(
        one.backend.service().state_evidence_id(),
        two.backend.service().state_evidence_id()
    );
    assert!(
        one.state().draw_seed.starts_with("ev_"),
        "a draw seed is sealed"
    );
    assert_eq!(one.state().draw_seed, two.state().draw_seed);
    served.map(|served| {
        let (answer, error) = call(&served, create, arguments.clone());
        assert!(!error, "{answer}");
        // The answer's `replay` names the capture Evidence (and so its path); its body does not.
        serde_json::to_string(&answer["body"]).expect("an answer")
    })
}

#[test]
fn generated_ids_are_the_same_wherever_the_recording_is_stored() {
    let kinto = state_support::captures_dir().join("kinto/build.har");
    let create = "post_buckets_workspace_collections_records_by_collection_id";
    let arguments = json!({"collection_id": "tasks", "body": {"data": {"title": "Moved"}}});
    let [near, far] = generated_ids_at_two_paths(&kinto, create, &arguments);
    assert!(near.contains("\"id\""), "{near}");
    assert_eq!(near, far, "a UUID the uuid rule draws");
    let tickets = rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|found| found.name == "json-server-v1")
        .expect("the corpus holds json-server-v1")
        .dir
        .join("build.har");
    let arguments = json!({"body": {"subject": "Moved", "customerId": "c1", "priority": 2}});
    let [near, far] = generated_ids_at_two_paths(&tickets, "post_tickets", &arguments);
    assert!(near.contains("\"id\""), "{near}");
    assert_eq!(near, far, "a token the token rule draws");
}

#[test]
fn kinto_writes_generate_deterministic_ids_and_clocks() {
    let served = serve("kinto/build.har");
    let state = served.state();
    let clock = state.write_clock.clone().expect("a write clock");
    let create = "post_buckets_workspace_collections_records_by_collection_id";
    let arguments = json!({"collection_id": "tasks", "body": {"data": {"title": "Served task"}}});
    let (first, error) = call(&served, create, arguments.clone());
    assert!(!error, "{first}");
    assert_eq!(first["status"], 201);
    let id = first["body"]["data"]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    assert_eq!(id.len(), 36);
    let stamped = first["body"]["data"]["last_modified"]
        .as_i64()
        .expect("a clock");
    let start = rea_state::instant::UtcInstant::parse(&clock)
        .expect("clock")
        .millis() as i64;
    // contract: WRITE-056
    assert_eq!(
        stamped, start,
        "the first served write takes the write clock"
    );
    let (second, _) = call(&served, create, arguments.clone());
    // contract: WRITE-057
    assert_eq!(
        second["body"]["data"]["last_modified"].as_i64(),
        Some(start + 1000),
        "one second per served write"
    );
    assert_ne!(second["body"]["data"]["id"], first["body"]["data"]["id"]);
    // contract: WRITE-049
    // A body outside the recorded envelope (`{"data": {…}}`) is refused.
    let (unwrapped, error) = call(
        &served,
        create,
        json!({"collection_id": "tasks", "body": {"title": "bare"}}),
    );
    assert!(error, "{unwrapped}");
    assert!(
        unwrapped["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("/data")),
        "{unwrapped}"
    );
    // Listed first, as the capture's lists showed new tasks.
    let (listed, _) = call(
        &served,
        "get_buckets_workspace_collections_records_by_collection_id",
        json!({"collection_id": "tasks"}),
    );
    assert_eq!(listed["body"]["data"][0]["title"], "Served task");
    // The same calls after a reset give the same ids and clocks.
    plane(&served, "data/reset").expect("reset");
    let (again, _) = call(&served, create, arguments);
    // contract: WRITE-059, WRITE-063 (the same generated id and clock after a reset)
    assert_eq!(again["body"], first["body"]);
    // A served delete answers the tombstone with the write's clock.
    let (deleted, error) = call(
        &served,
        "delete_buckets_workspace_collections_records_by_collection_id_and_id",
        json!({"collection_id": "tasks", "id": id}),
    );
    assert!(!error, "{deleted}");
    assert_eq!(deleted["body"]["data"]["deleted"], true);
    assert_eq!(deleted["body"]["data"]["id"], json!(id));
    assert_eq!(
        deleted["body"]["data"]["last_modified"].as_i64(),
        Some(start + 1000)
    );
    let (gone, _) = call(
        &served,
        "get_buckets_workspace_collections_records_by_collection_id_and_id",
        json!({"collection_id": "tasks", "id": id}),
    );
    assert_eq!(gone["status"], 404);
}

#[test]
fn a_third_party_rule_plugin_explains_a_write_no_built_in_rule_does() {
    // contract: WRITE-010
    // (The increment rule kind is this example plugin's: the issue asks for a write no built-in
    // rule explains, so no built-in `increment` stage exists.)
    // TiddlyWiki adds one to a tiddler's `revision` on every PUT (a real recording, see
    // examples/plugins/revision-counter/captures/README.md). The built-in rules leave it
    // unexplained; the example plugin, loaded by path through a pipeline, explains it, and the
    // plan is served without any change to the host.
    // The default pipeline's own `revision` rule explains it too, so the pipeline here leaves
    // that built-in stage out.
    let path = rea_tests::workspace_root()
        .join("examples/plugins/revision-counter/captures/tiddlywiki-revisions.har");
    let tool = "put_recipes_default_tiddlers_by_title";
    let dir = tempfile::tempdir().expect("temp");
    let without_revision =
        rea_pipeline::DEFAULT_PIPELINE.replace("[[rules]]\nstage = \"revision\"\n", "");
    assert_ne!(without_revision, rea_pipeline::DEFAULT_PIPELINE);
    let built_in_pipeline = dir.path().join("built-in.toml");
    std::fs::write(&built_in_pipeline, &without_revision).expect("pipeline");
    let built_in = state_support::serve_evidence(
        state_support::capture_file(&path),
        state_support::pipeline_rules(Some(&built_in_pipeline)),
        rea_backends::fetch::FetchOptions::default(),
    );
    let plan = built_in.state().write_plan(tool).cloned().expect("a plan");
    assert_eq!(plan.reason.as_deref(), Some("unexplained-change"));
    assert!(
        !built_in
            .backend
            .tools()
            .iter()
            .any(|served| served.name == tool)
    );

    let library = rea_tests::built_library("rea_example_revision_counter");
    let pipeline = dir.path().join("pipeline.toml");
    std::fs::write(
        &pipeline,
        format!(
            "[[plugins]]\npath = {}\n\n{}\n[[rules]]\nstage = \"revision-counter\"\n",
            Value::String(library.display().to_string()),
            without_revision
        ),
    )
    .expect("pipeline");
    let extended = state_support::serve_evidence(
        state_support::capture_file(&path),
        state_support::pipeline_rules(Some(&pipeline)),
        rea_backends::fetch::FetchOptions::default(),
    );
    let plan = extended.state().write_plan(tool).cloned().expect("a plan");
    assert!(plan.served, "{:?}", plan.reason);
    assert!(
        plan.rules
            .iter()
            .any(|rule| rule.stage == "revision-counter" && rule.explains == ["/revision"])
    );
    // Served: the revision goes one past the held value; the read by title shows it.
    let (read, _) = call(
        &extended,
        "get_recipes_default_tiddlers_by_title",
        json!({"title": "Buy milk"}),
    );
    let mut body = read["body"].clone();
    let held = body["revision"].as_i64().expect("a revision");
    let fields = body.as_object_mut().expect("object");
    fields.remove("revision");
    fields.remove("bag");
    fields.insert("text".into(), json!("Start here."));
    let (written, error) = call(&extended, tool, json!({"title": "Buy milk", "body": body}));
    assert!(!error, "{written}");
    assert_eq!(written["status"], 204);
    let (again, _) = call(
        &extended,
        "get_recipes_default_tiddlers_by_title",
        json!({"title": "Buy milk"}),
    );
    assert_eq!(again["body"]["revision"], json!(held + 1));
    assert_eq!(again["body"]["text"], "Start here.");
}

#[test]
fn creates_in_new_collections_stop_at_the_history_budget() {
    let served = serve("kinto/build.har");
    let create = "post_buckets_workspace_collections_records_by_collection_id";
    let long = "x".repeat(4000);
    let arguments = |index: usize| json!({"collection_id": format!("c{index:04}-{long}"), "body": {"data": {"title": "t"}}});
    let mut refused = None;
    for index in 0..1000 {
        let (answer, error) = call(&served, create, arguments(index));
        if error {
            refused = Some((index, answer));
            break;
        }
    }
    let (index, answer) = refused.expect("the budget refuses a create");
    assert_eq!(answer["error"]["code"], "resource_constraint", "{answer}");
    // Each new collection charges its spelling and a 64-byte allowance against 1 MiB, and so does
    // each possible sequence key (the collection and an integer member a rule generates: here
    // Kinto's `last_modified`).
    let spelling = format!("/v1/buckets/workspace/collections/c{index:04}-{long}/records").len();
    let charge = spelling + 64 + spelling + "last_modified".len() + 64;
    // contract: DATA-029, DATA-030, DATA-031, DATA-032 (1 MiB of spellings, sequence keys and
    // 64-byte allowances; nothing else counted)
    assert_eq!(index, 1024 * 1024 / charge, "{charge}");
    // contract: DATA-037 (the 1 MiB measured above is the store's ceiling, 1/32 of its separate
    // 32 MiB intake ceiling)
    assert_eq!(
        (
            rea_state::store::MAX_HISTORY_SCORE,
            rea_state::store::MAX_STATE_BYTES
        ),
        (32 * 1024 * 1024 / 32, 32 * 1024 * 1024)
    );
    // The refused create changed nothing; a collection the Evidence holds is never charged.
    let before = data_get(&served);
    let (_, error) = call(&served, create, arguments(index));
    assert!(error);
    // contract: DATA-035
    assert_eq!(data_get(&served), before);
    let (_, error) = call(
        &served,
        create,
        json!({"collection_id": "tasks", "body": {"data": {"title": "still fine"}}}),
    );
    // contract: DATA-033 (a collection the Evidence holds)
    assert!(!error);
    // data/reset clears the history: the same create is accepted again.
    plane(&served, "data/reset").expect("reset");
    let (_, error) = call(&served, create, arguments(index));
    // contract: DATA-036 (the data/reset half)
    assert!(!error);
}
