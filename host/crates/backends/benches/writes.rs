//! Write-plan benchmark: learning and confirming plans against the number of writes in a
//! capture (synthetic, so the capture grows linearly with its writes), and the latency of served
//! writes. Prints figures and ratios; run with `cargo bench -p rea-backends --bench writes`.
//!
//! The synthetic capture is a json-server-like collection: a whole list and every item by id,
//! then per write a create (`POST /items`, the next id, read back by id), every fourth write an
//! update of an earlier item (read back by id), and twenty times in all a page of the list (a
//! query the state evaluates over the whole collection). Its records and bytes grow linearly with
//! the writes, so a derivation that is linear in the capture is linear here too.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rea_manifest::{Environment, TemplateRules, project_manifest};
use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, RecordQuery, RecordRequest, RecordResponse, StartTime,
};
use rea_state::rules::RuleSet;
use rea_state::service::StateService;
use serde_json::{Map, Value, json};

const SEEDED: usize = 20;

fn record(
    ordinal: u64,
    method: &str,
    target: &str,
    request: Option<Value>,
    status: u16,
    body: Value,
) -> CaptureRecord {
    let (path, query) = match target.split_once('?') {
        Some((path, raw)) => (
            path.to_owned(),
            Some(RecordQuery {
                pairs: raw
                    .split('&')
                    .map(|pair| {
                        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                        Some((name.to_owned(), value.to_owned()))
                    })
                    .collect(),
                raw: Some(raw.to_owned()),
            }),
        ),
        None => (target.to_owned(), None),
    };
    CaptureRecord {
        duration_ms: Some(3.0),
        method: Some(method.to_owned()),
        ordinal,
        origin: Some("http://127.0.0.1:3000".to_owned()),
        path: Some(path),
        pointer: format!("/log/entries/{ordinal}"),
        query,
        request: RecordRequest {
            body: request.map_or(Body::Missing, |body| Body::Text {
                text: body.to_string(),
            }),
            headers: Vec::new(),
            http_version: None,
            media_type: Some("application/json".to_owned()),
        },
        response: RecordResponse {
            body: Body::Text {
                text: body.to_string(),
            },
            headers: Vec::new(),
            http_version: None,
            media_type: Some("application/json".to_owned()),
            status,
            status_text: None,
        },
        started: Some(StartTime {
            instant: Some(format!(
                "2026-01-01T{:02}:{:02}:{:02}.{:03}000000Z",
                ordinal / 360_000 % 24,
                ordinal / 6_000 % 60,
                ordinal / 100 % 60,
                ordinal % 100 * 10
            )),
            recorded: String::new(),
        }),
        url: Some(format!("http://127.0.0.1:3000{target}")),
    }
}

fn item(id: usize, title: &str) -> Value {
    json!({"title": title, "done": id.is_multiple_of(2), "id": id})
}

/// A capture with `writes` writes (see the module docs).
fn synthetic(writes: usize) -> Vec<CaptureRecord> {
    let mut records = Vec::new();
    let mut ordinal = 0u64;
    let mut push =
        |method: &str, target: String, request: Option<Value>, status: u16, body: Value| {
            records.push(record(ordinal, method, &target, request, status, body));
            ordinal += 1;
        };
    let mut items: Vec<Value> = (1..=SEEDED)
        .map(|id| item(id, &format!("seed {id}")))
        .collect();
    push("GET", "/items".into(), None, 200, json!(items));
    push(
        "GET",
        "/items?_page=1&_limit=10".into(),
        None,
        200,
        json!(items[..10]),
    );
    for seeded in &items {
        push(
            "GET",
            format!("/items/{}", seeded["id"]),
            None,
            200,
            seeded.clone(),
        );
    }
    for write in 0..writes {
        let id = SEEDED + write + 1;
        let created = item(id, &format!("item {id}"));
        push(
            "POST",
            "/items".into(),
            Some(json!({"title": created["title"], "done": created["done"]})),
            201,
            created.clone(),
        );
        push("GET", format!("/items/{id}"), None, 200, created.clone());
        items.push(created);
        if write % 4 == 3 {
            let target = id - 2;
            let position = target - 1;
            let mut updated = items[position].clone();
            updated["title"] = json!(format!("renamed {target}"));
            push(
                "PATCH",
                format!("/items/{target}"),
                Some(json!({"title": updated["title"]})),
                200,
                updated.clone(),
            );
            push(
                "GET",
                format!("/items/{target}"),
                None,
                200,
                updated.clone(),
            );
            items[position] = updated;
        }
        if write.is_multiple_of((writes / 20).max(1)) {
            push(
                "GET",
                "/items?_page=1&_limit=10".into(),
                None,
                200,
                json!(items[..10]),
            );
        }
    }
    records
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn rules() -> Arc<RuleSet> {
    let mut registry = rea::builtin_registry().expect("registry");
    let (_, rules) = rea_state::rules::load_pipeline(None, &mut registry).expect("pipeline");
    Arc::new(rules)
}

fn learning(rules: &RuleSet) {
    println!(
        "write plans: learning and confirmation against the writes in a capture (median of 3):"
    );
    let template = TemplateRules::parse(&["sibling-variance", "prefix-variance"]).expect("rules");
    let mut previous: Option<(usize, Duration)> = None;
    for writes in [250usize, 500, 1000, 2000, 4000, 8000] {
        let records = synthetic(writes);
        let manifest = project_manifest("ev_synthetic", &records, &template).expect("manifest");
        let mut samples = Vec::new();
        let mut state = None;
        for _ in 0..3 {
            let started = Instant::now();
            state = Some(
                rea_state::derive_state(&manifest, "ev_manifest", &records, rules).expect("state"),
            );
            samples.push(started.elapsed());
        }
        let state = state.expect("derived");
        let time = median(samples);
        let served = state.served_writes().count();
        let ratio = previous.map_or(String::new(), |(writes_before, time_before)| {
            format!(
                ", x{:.2} for x{:.1} writes",
                time.as_secs_f64() / time_before.as_secs_f64(),
                writes as f64 / writes_before as f64
            )
        });
        println!(
            "  {writes:>5} writes, {:>6} records: state with plans {time:>10.2?} = {:>6.1} µs per write ({served} of {} plans served){ratio}",
            records.len(),
            time.as_secs_f64() * 1e6 / writes as f64,
            state.write_plans.len(),
        );
        previous = Some((writes, time));
    }
}

fn latency(rules: Arc<RuleSet>) {
    println!("served write latency (through the state service, as the MCP backend calls it):");
    let template = TemplateRules::parse(&["sibling-variance", "prefix-variance"]).expect("rules");
    let records = synthetic(100);
    let manifest = project_manifest("ev_synthetic", &records, &template).expect("manifest");
    let state = rea_state::derive_state(&manifest, "ev_manifest", &records, &rules).expect("state");
    for plan in &state.write_plans {
        assert!(plan.served, "{}: {:?}", plan.tool, plan.reason);
    }
    let environment = Environment::new(&manifest, "ev_synthetic", records.clone()).expect("env");
    let service = StateService::new(state, "ev_state".into(), environment, &records, rules);
    let arguments = |value: Value| -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    };
    for (label, count) in [("first 1000", 1000usize), ("next 10000", 10_000)] {
        let mut creates = Vec::with_capacity(count);
        let mut updates = Vec::with_capacity(count);
        for index in 0..count {
            let started = Instant::now();
            // Timed as served: the answer and its document text.
            let answer = service.answer(
                "post_items",
                &arguments(json!({"body": {"title": format!("served {index}"), "done": false}})),
            );
            let text = answer.to_json_string();
            creates.push(started.elapsed());
            assert!(!answer.is_error(), "{text}");
            let started = Instant::now();
            let answer = service.answer(
                "patch_items_by_id",
                &arguments(json!({"id": "5", "body": {"title": format!("renamed {index}")}})),
            );
            let text = answer.to_json_string();
            updates.push(started.elapsed());
            assert!(!answer.is_error(), "{text}");
        }
        let held = service.read().len();
        println!(
            "  {label:>10}: create median {:>9.2?} (p99 {:>9.2?}), update median {:>9.2?}; {held} entities held",
            median(creates.clone()),
            {
                creates.sort();
                creates[creates.len() * 99 / 100]
            },
            median(updates),
        );
    }
}

fn main() {
    // `REA_BENCH_ONLY=learning` or `=latency` runs one part (for profiling).
    let only = std::env::var("REA_BENCH_ONLY").unwrap_or_default();
    let rules = rules();
    if only != "latency" {
        learning(&rules);
    }
    if only != "learning" {
        latency(rules);
    }
}
