//! A bench script (no harness) printing the projection, catalog and replay figures on synthetic
//! captures: `cargo bench -p rea-manifest --bench replay`.
//!
//! * projection of 5,000 records (2,500 item reads over 500 ids, 2,500 paged list reads);
//! * building the replay environment from them;
//! * `answer` latency (p50, p99) and throughput for item calls selecting among 2,500 records;
//! * the catalog of one tool with 1,500 query fields: build time, reservation charge, sizes.

use std::time::{Duration, Instant};

use rea_manifest::{Environment, TemplateRules, project_manifest};
use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, RecordQuery, RecordRequest, RecordResponse,
};
use serde_json::{Map, Value, json};

fn record(ordinal: u64, path: String, query: Option<String>, body: String) -> CaptureRecord {
    CaptureRecord {
        duration_ms: None,
        method: Some("GET".into()),
        ordinal,
        origin: Some("http://bench.example".into()),
        path: Some(path.clone().into()),
        pointer: format!("/log/entries/{ordinal}").into(),
        query: query.as_ref().map(|raw| RecordQuery {
            pairs: raw
                .split('&')
                .map(|pair| {
                    let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                    Some((name.to_owned(), value.to_owned()))
                })
                .collect(),
            raw: Some(raw.clone().into()),
        }),
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
        started: None,
        url: Some(format!("http://bench.example{path}").into()),
    }
}

fn capture() -> Vec<CaptureRecord> {
    let mut records = Vec::new();
    for n in 0..5000u64 {
        if n % 2 == 0 {
            let id = n % 1000 / 2;
            let body = json!({"id": id, "name": format!("item {id}"), "tags": ["a", "b"], "text": "x".repeat(1500)});
            records.push(record(
                n,
                format!("/api/items/{id}"),
                None,
                body.to_string(),
            ));
        } else {
            let page = n % 50;
            let body = json!({"data": [{"id": page, "name": "x".repeat(500)}], "total": 50});
            records.push(record(
                n,
                "/api/items".into(),
                Some(format!("page={page}&limit=10")),
                body.to_string(),
            ));
        }
    }
    records
}

fn time<T>(label: &str, runs: usize, mut work: impl FnMut() -> T) -> T {
    let mut durations = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        last = Some(work());
        durations.push(start.elapsed());
    }
    durations.sort();
    println!(
        "{label}: median {:?} (min {:?}, {runs} runs)",
        durations[runs / 2],
        durations[0]
    );
    last.expect("at least one run")
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    sorted[((sorted.len() as f64 * fraction) as usize).min(sorted.len() - 1)]
}

fn main() {
    let records = capture();
    let rules = TemplateRules::all();
    let manifest = time("project 5,000 records (all rules)", 5, || {
        project_manifest("ev_bench", &records, &rules).expect("projects")
    });
    let environment = time("build the replay environment", 5, || {
        Environment::new(&manifest, "ev_bench", records.clone()).expect("environment")
    });

    let calls: Vec<Map<String, Value>> = (0..20_000u64)
        .map(|n| {
            let mut arguments = Map::new();
            arguments.insert("id".into(), json!((n % 600).to_string()));
            arguments
        })
        .collect();
    // Warm the per-record body cache as a running server would be after its first calls.
    for arguments in calls.iter().take(1000) {
        let _ = environment.answer("get_items_by_id", arguments);
    }
    let mut latencies = Vec::with_capacity(calls.len());
    let started = Instant::now();
    for arguments in &calls {
        let start = Instant::now();
        let answer = environment
            .answer("get_items_by_id", arguments)
            .expect("answers");
        let text = answer.to_json_string();
        std::hint::black_box(text);
        latencies.push(start.elapsed());
    }
    let total = started.elapsed();
    latencies.sort();
    println!(
        "answer + serialize, item tool citing 2,500 records: p50 {:?}, p99 {:?}, max {:?}, {:.0} calls/s on one core",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        latencies[latencies.len() - 1],
        calls.len() as f64 / total.as_secs_f64()
    );

    let mut query = String::new();
    for n in 0..1500 {
        if n > 0 {
            query.push('&');
        }
        query.push_str(&format!("field_{n:04}=v"));
    }
    let wide = vec![record(0, "/search".into(), Some(query), "{}".into())];
    let wide_manifest =
        project_manifest("ev_wide", &wide, &TemplateRules::none()).expect("projects");
    let wide_environment = time("catalog with 1,500 query fields", 5, || {
        Environment::new(&wide_manifest, "ev_wide", wide.clone()).expect("environment")
    });
    let charge = wide_environment
        .check_discovery_reservation("bench")
        .expect("admitted");
    let tools = serde_json::to_string(wide_environment.tools()).expect("tools");
    let card = serde_json::to_string(&wide_environment.card("bench")).expect("card");
    println!(
        "1,500 query fields: tools/list {} bytes, card {} bytes, reservation charge {} of {} bytes",
        tools.len(),
        card.len(),
        charge.charged_bytes,
        charge.limit_bytes
    );
}
