//! State benchmarks, printed as figures (run with `cargo bench -p rea-backends --bench state`):
//!
//! 1. state derivation (manifest projection, then the state view) for each shared capture,
//!    the largest included;
//! 2. derivation of synthetic captures scaled from 1 to 32 MiB of recorded responses, to show how
//!    time grows with records (it should stay near linear: time per record roughly constant);
//! 3. `data/add` (a 32 MiB `rea-state/v1` document read from a file, validated and installed) and
//!    `data/get` (the same state written back).
//!
//! Each figure is the median of a few runs on this machine; they are measurements, not
//! assertions.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rea::commands::inspect_capture::{InspectRequest, inspect_with_builtins};
use rea_backends::plane::StatePlane;
use rea_evidence::capture::capture_records;
use rea_manifest::{Environment, TemplateRules, project_manifest};
use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, RecordQuery, RecordRequest, RecordResponse, StartTime,
};
use rea_serve::{DataCall, ShutdownToken};
use rea_state::rules::RuleSet;
use rea_state::service::StateService;
use serde_json::json;

const RULES: [&str; 4] = [
    "after-uid-literal",
    "opaque-token",
    "sibling-variance",
    "prefix-variance",
];

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(runs: usize, mut work: impl FnMut() -> T) -> (Duration, T) {
    let mut samples = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let started = Instant::now();
        let value = work();
        samples.push(started.elapsed());
        last = Some(value);
    }
    (median(samples), last.expect("at least one run"))
}

fn captures_dir() -> PathBuf {
    let shared = std::env::var_os("REA_SHARED_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared"),
        PathBuf::from,
    );
    shared.join("captures")
}

fn shared_captures() {
    println!("state derivation of the shared captures (median of 5):");
    let mut files = Vec::new();
    for app in ["json-server", "kinto", "mlflow", "tiddlywiki"] {
        files.push(format!("{app}/build.har"));
    }
    files.push("tiddlywiki/browser-ui.har".to_owned());
    let rules = TemplateRules::parse(&RULES).expect("rules");
    for relative in files {
        let path = captures_dir().join(&relative);
        let bytes = std::fs::metadata(&path).map(|meta| meta.len()).unwrap_or(0);
        let evidence = inspect_with_builtins(&InspectRequest {
            capture: &path,
            input_kind: "har",
            selection: None,
            sensitive_values: &[],
        })
        .expect("inspect");
        let records = capture_records(&evidence).expect("records");
        let manifest = project_manifest(evidence.id(), &records, &rules).expect("manifest");
        let (projection, _) = time(5, || {
            project_manifest(evidence.id(), &records, &rules).expect("manifest")
        });
        let (derivation, state) = time(5, || {
            rea_state::derive_state(&manifest, "ev_manifest", &records, &RuleSet::empty())
                .expect("state")
        });
        let (sealing, _) = time(5, || rea_state::seal_state(&state).expect("seal"));
        println!(
            "  {relative:<28} {bytes:>9} bytes {:>4} records: manifest {:>8.2?}, state {:>8.2?}, seal {:>8.2?} ({} entities, {} views)",
            records.len(),
            projection,
            derivation,
            sealing,
            state.entities.len(),
            state.views.len()
        );
    }
}

fn record(ordinal: u64, target: &str, body: String) -> CaptureRecord {
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
                raw: Some(raw.into()),
            }),
        ),
        None => (target.to_owned(), None),
    };
    CaptureRecord {
        duration_ms: Some(3.0),
        method: Some("GET".into()),
        ordinal,
        origin: Some("http://127.0.0.1:3000".into()),
        path: Some(path.into()),
        pointer: format!("/log/entries/{ordinal}").into(),
        query,
        request: RecordRequest {
            body: Body::Missing,
            headers: Vec::new(),
            http_version: None,
            media_type: None,
        },
        response: RecordResponse {
            body: Body::Text { text: body.into() },
            headers: Vec::new(),
            http_version: None,
            media_type: Some("application/json".into()),
            status: 200,
            status_text: None,
        },
        started: Some(StartTime {
            instant: Some(
                format!(
                    "2026-01-01T{:02}:{:02}:{:02}.{:09}Z",
                    ordinal / 3_600_000 % 24,
                    ordinal / 60_000 % 60,
                    ordinal / 1000 % 60,
                    ordinal % 1000
                )
                .into(),
            ),
            recorded: Default::default(),
        }),
        url: Some(format!("http://127.0.0.1:3000{target}").into()),
    }
}

fn item(id: usize) -> serde_json::Value {
    json!({
        "id": id,
        "title": format!("Task number {id} of the synthetic capture"),
        "status": (["todo", "doing", "done", "blocked"][id % 4]),
        "priority": id % 5 + 1,
        "owner": format!("user{}", id % 17),
        "notes": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.",
        "tags": ["alpha", "beta"]
    })
}

/// Tasks per project in the synthetic capture.
const PER_PROJECT: usize = 100;

/// A capture of `projects` projects of 100 tasks each: per project, the whole task list, each
/// task by id, every page of 20, and a filter per status. Its records and response bytes grow
/// linearly with the number of projects, and every list fits a reply.
fn synthetic(projects: usize) -> Vec<CaptureRecord> {
    let mut records = Vec::new();
    let mut ordinal = 0u64;
    let mut push = |target: String, body: serde_json::Value, records: &mut Vec<CaptureRecord>| {
        records.push(record(ordinal, &target, body.to_string()));
        ordinal += 1;
    };
    for project in 1..=projects {
        let base = format!("/projects/{project}/tasks");
        let all: Vec<serde_json::Value> = (1..=PER_PROJECT)
            .map(|index| item((project - 1) * PER_PROJECT + index))
            .collect();
        push(base.clone(), json!(all), &mut records);
        for task in &all {
            push(format!("{base}/{}", task["id"]), task.clone(), &mut records);
        }
        for (page, chunk) in all.chunks(20).enumerate() {
            push(
                format!("{base}?_page={}&_limit=20", page + 1),
                json!(chunk),
                &mut records,
            );
        }
        for status in ["todo", "doing", "done", "blocked"] {
            let matching: Vec<&serde_json::Value> =
                all.iter().filter(|task| task["status"] == status).collect();
            push(
                format!("{base}?status={status}"),
                json!(matching),
                &mut records,
            );
        }
    }
    records
}

fn response_bytes(records: &[CaptureRecord]) -> usize {
    records
        .iter()
        .map(|record| record.response.body.text().map_or(0, str::len))
        .sum()
}

fn synthetic_scaling() {
    println!("state derivation of synthetic captures (median of 3):");
    let rules = TemplateRules::parse(&RULES).expect("rules");
    let per_project = response_bytes(&synthetic(10)) / 10;
    for mebibytes in [1usize, 2, 4, 8, 16, 32] {
        let count = mebibytes * 1024 * 1024 / per_project;
        let records = synthetic(count);
        let manifest = project_manifest("ev_synthetic", &records, &rules).expect("manifest");
        let (derivation, state) = time(3, || {
            rea_state::derive_state(&manifest, "ev_manifest", &records, &RuleSet::empty())
                .expect("state")
        });
        let (_, recorded) = state.coverage();
        println!(
            "  {:>6.2} MiB {:>6} records ({count} projects of {PER_PROJECT} tasks): state {:>9.2?} = {:>6.2} µs per record ({recorded} recorded views)",
            response_bytes(&records) as f64 / 1048576.0,
            records.len(),
            derivation,
            derivation.as_secs_f64() * 1e6 / records.len() as f64,
        );
    }
}

fn data_plane() {
    println!("data plane with a 32 MiB state (median of 3):");
    let rules = TemplateRules::parse(&RULES).expect("rules");
    let records = synthetic(2);
    let manifest = project_manifest("ev_synthetic", &records, &rules).expect("manifest");
    let state = rea_state::derive_state(&manifest, "ev_manifest", &records, &RuleSet::empty())
        .expect("state");
    let environment =
        Environment::new(&manifest, "ev_synthetic", records.clone()).expect("environment");
    let service = Arc::new(StateService::new(
        state,
        "ev_state".to_owned(),
        environment,
        &records,
        Arc::new(RuleSet::empty()),
    ));
    let plane = StatePlane::new(Arc::clone(&service));
    // A document of as many tasks as fit 32 MiB with what data/get adds.
    let template = serde_json::to_value(service.document().to_serde_value().expect("document"))
        .expect("value");
    let entity = template["rea_state"]["entities"][0].clone();
    let per_entity = serde_json::to_vec(&entity).expect("json").len() + 16;
    let count = (32 * 1024 * 1024 - 64 * 1024) / per_entity;
    let entities: Vec<serde_json::Value> = (1..=count)
        .map(|id| {
            let mut entity = entity.clone();
            entity["id"] = json!(id.to_string());
            entity["fields"]["id"] = json!(id);
            entity["record_ordinals"] = json!([]);
            entity
        })
        .collect();
    let mut document = template.clone();
    document["rea_state"]["entities"] = json!(entities);
    document["rea_state"]["documents"] = json!([]);
    let bytes = serde_json::to_vec(&document).expect("json");
    let folder = std::env::temp_dir().join(format!("rea-state-bench-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("folder");
    let path = folder.join("state.json");
    std::fs::write(&path, &bytes).expect("write");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let call = |method: &str, params: Option<serde_json::Value>| DataCall {
        method: method.to_owned(),
        params,
        params_raw: None,
        expects_reply: true,
        cancel: ShutdownToken::new(),
    };
    let uri = format!("file://{}", path.display());
    let (add, result) = time(3, || {
        runtime.block_on(plane.run(call(
            "data/add",
            Some(json!({"parts": [{"kind": "file", "file": {"uri": uri}}]})),
        )))
    });
    result.expect("data/add");
    let (get, reply) = time(3, || {
        runtime
            .block_on(plane.run(call("data/get", None)))
            .expect("data/get")
    });
    let (write, text) = time(3, || serde_json::to_vec(&reply).expect("json"));
    println!(
        "  {count} entities, {:.2} MiB document: data/add (file, parse, validate, install) {add:.2?}; data/get {get:.2?} + serialize {write:.2?} ({:.2} MiB)",
        bytes.len() as f64 / 1048576.0,
        text.len() as f64 / 1048576.0
    );
    let _ = std::fs::remove_dir_all(&folder);
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects one section.
    let filter: Option<String> = std::env::args()
        .skip(1)
        .find(|argument| !argument.starts_with("--"));
    let wanted = |name: &str| filter.as_deref().is_none_or(|filter| name.contains(filter));
    if wanted("shared") {
        shared_captures();
    }
    if wanted("synthetic") {
        synthetic_scaling();
    }
    if wanted("data") {
        data_plane();
    }
}
