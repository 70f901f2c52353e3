//! Write-plan benchmark: learning and confirming plans against the number of writes in a
//! capture (synthetic, so the capture grows linearly with its writes), and the latency of served
//! writes against the size of the collection they write. Prints figures and ratios; run with
//! `cargo bench -p rea-state --bench writes` (`REA_BENCH_ONLY=learning` or `=latency` runs one
//! part, `REA_BENCH_SAMPLES` sets the samples per served-write figure, by default 500 and at most
//! half the smallest size, so every delete finds its item; `REA_BENCH_SIZES`, a comma list, sets
//! the write counts or collection sizes measured, to profile one of them). Learning figures also
//! give the CPU time per write (`/proc/self/stat`, 10 ms ticks).
//!
//! The synthetic capture is a json-server-like collection: a whole list and every item by id,
//! then per write a create (`POST /items`, the next id and a fresh UUID `key`, read back by id),
//! every fourth write an update of an earlier item (read back by id), every eighth a delete of an
//! earlier item (read back as a 404), and twenty times in all a page of the list (a query the
//! state evaluates over the whole collection). Its records and bytes grow linearly with the
//! writes, so a derivation that is linear in the capture is linear here too.
//!
//! The capture also holds, after its first create, a create sending a title an item holds, refused
//! `409` as flexget refuses a taken list name: the create plan learns that conflict (a served
//! create sending a held title answers the refusal and changes nothing).
//!
//! Served writes: the plans learned from a 100-write capture (a `sequence` id, a `uuid` key, a
//! conflict over `title`), served through the state service as the MCP backend calls them, on a
//! live state holding 1k, 11k and 100k items. Each round sends a create with a held title
//! (refused), creates one item, updates one and deletes one (so the size stays put); the figures
//! are the medians and p99 per operation and the median's ratio to the 1k figure, the median of
//! as many refused creates on a state no create wrote yet (as after `data/reset`), and of as many
//! creates each made after a millisecond without calls (a write as an agent makes it, the stage's
//! worker asleep, not in a burst of writes). The first call of each series on a newly loaded
//! state builds the indexes it asks (one pass over the collection) and is printed apart. A
//! served write's rules ask the indexes the live state keeps (the largest id, the held keys), so
//! the figures should not grow with the collection.
//!
//! Issue 17 measured it (2 shared cores under load; `CARGO_PROFILE_BENCH_LTO=off
//! CARGO_PROFILE_BENCH_CODEGEN_UNITS=16`, `REA_BENCH_SAMPLES=300`, medians of the runs' medians).
//! Before held indexes, each rule got every held value of its fields in its request: creates
//! 679 µs / 35 ms / 848 ms at 1k / 11k / 100k items (x1250). With them: creates 81 / 36 / 33 µs,
//! updates 13 / 12 / 12 µs, deletes 9 / 9 / 11 µs (the 1k figure is the noisiest: it is
//! measured first, right after the derivation). A create's two rule calls each woke the stage's
//! worker and then the caller; on this 2-vCPU VM (guest halt polling off) whole runs came out at
//! 85–130 µs, ~45 µs more per call than the others. With one hand-off per write (six alternating
//! runs of each build, load average 6.7–7.1, medians of the runs' medians): creates 32.5 / 35.1
//! / 86.0 µs before (6 of 18 figures in the slow mode) → 30.4 / 31.7 / 34.2 µs (1 of 18).
//!
//! With the refused create (release bench profile, LTO off, 16 codegen units, 300 rounds, two
//! runs, load average 9.0–10.3 from other builds on the 2 cores), medians at 1k / 11k / 100k:
//! refused creates 12.9 / 13.8 / 13.8 µs and 12.7 / 12.5 / 17.1 µs, creates 124 / 136 / 130 µs
//! and 125 / 122 / 240 µs, updates 41 / 44 / 43 µs and 41 / 40 / 53 µs, deletes 29 / 32 / 34 µs
//! and 32 / 32 / 41 µs, refused creates on an unwritten state 8.4 / 8.4 / 8.9 µs and 7.9 / 8.4 /
//! 8.0 µs (ratios 100k/1k 0.8–1.9, none growing with the collection; the creates' two rule-stage
//! hand-offs dominate under this load). The first call after a load builds the indexes: at 100k
//! items the first create takes 0.9–1.1 s and the first refusal 0.12–0.32 s.
//!
//! Issue 12 measured learning (same build settings; 2 cores shared with other builds, load
//! average 6–9; each learning figure also prints the process's CPU time per write, which the
//! waits for a core leave out). Before: 651.7 µs per write at 1000 writes, 1407.3 µs at 4000
//! (x8.64 for x4 writes): a create's conflict learning held, for every successful call, every
//! value its collection held before it (quadratic), and each observed create listed its
//! collection to ask whether it held one. Without them, 250 → 8000 writes: CPU 480 / 473 / 487 /
//! 587 / 693 / 660 µs per write (wall 961 → 1040 µs), the rest in the allocator over each
//! stage's clone and encoding of the whole request. With the request encoded once for all the
//! stages (the calls spliced with each stage's residuals): CPU 333 / 327 / 333 / 355 / 405 / 435
//! µs per write (x1.31 from 250 to 8000; a second run under the fidelity run's load: 520 / 393 /
//! 417 / 462 / 413 / 452, the 250 figure being 8 clock ticks), wall 326 / 420 / 442 / 508 / 656 /
//! 682 µs at load average 7.4–8.8.
//!
//! Then a profile at 8000 writes put 54% of all samples in the rule stages' `learn`, nearly all
//! of it decoding each request's `Value` trees and freeing them again: the host sent 243 stage
//! requests for the 3 write tools (27 stages × 3 tools × 3 passes), each carrying every call of
//! its tool, most to stages that could only answer "nothing". With learn scopes (each stage
//! declares the effects it learns for and whether its rule joins only by explaining; the host
//! skips it outside them, `writes/explain.rs::run_rules`), same build settings, 1000 / 8000
//! writes, the binaries built before and after run one after the other, two rounds: CPU 223.3 /
//! 302.9 µs per write before → 103.3 / 132.5 µs after (x1.36 → x1.28 per write from 1000 to
//! 8000; wall 292.8 / 445.4 → 127.0 / 151.9 µs; load average 5.7–6.0), and under more load
//! (6.6–9.0, the other helpers' builds) 296.7 / 345.8 → 120.0 / 176.7 µs (wall 933.4 / 547.1 →
//! 181.9 / 300.5 µs). Every corpus capture's bundle is the same but for the binary's identity.

use std::sync::Arc;
use std::time::{Duration, Instant};

// The built-in plugins the default pipeline names, linked so the registry finds them.
#[path = "support/pipeline_plugins.rs"]
mod pipeline_plugins;

use rea_manifest::{Environment, TemplateRules, project_manifest};
use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, RecordQuery, RecordRequest, RecordResponse, StartTime,
};
use rea_plugin_api::json::Json;
use rea_state::model::Entity;
use rea_state::rules::RuleSet;
use rea_state::service::StateService;
use rea_state::store::LiveState;
use serde_json::{Value, json};

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
                raw: Some(raw.into()),
            }),
        ),
        None => (target.to_owned(), None),
    };
    CaptureRecord {
        duration_ms: Some(3.0),
        method: Some(method.into()),
        ordinal,
        origin: Some("http://127.0.0.1:3000".into()),
        path: Some(path.into()),
        pointer: format!("/log/entries/{ordinal}").into(),
        query,
        request: RecordRequest {
            body: request.map_or(Body::Missing, |body| Body::Text {
                text: body.to_string().into(),
            }),
            headers: Vec::new(),
            http_version: None,
            media_type: Some("application/json".into()),
        },
        response: RecordResponse {
            body: Body::Text {
                text: body.to_string().into(),
            },
            headers: Vec::new(),
            http_version: None,
            media_type: Some("application/json".into()),
            status,
            status_text: None,
        },
        started: Some(StartTime {
            instant: Some(
                format!(
                    "2026-01-01T{:02}:{:02}:{:02}.{:03}000000Z",
                    ordinal / 360_000 % 24,
                    ordinal / 6_000 % 60,
                    ordinal / 100 % 60,
                    ordinal % 100 * 10
                )
                .into(),
            ),
            recorded: Default::default(),
        }),
        url: Some(format!("http://127.0.0.1:3000{target}").into()),
    }
}

fn item(id: usize, title: &str) -> Value {
    json!({"title": title, "done": id.is_multiple_of(2), "key": key(id), "id": id})
}

/// A version-4-shaped UUID, different for every id.
fn key(id: usize) -> String {
    let mixed = (id as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        mixed >> 32,
        (mixed >> 16) & 0xffff,
        mixed & 0xfff,
        (mixed >> 12) & 0xfff,
        id
    )
}

/// The records of a synthetic capture, numbered in the order they are pushed.
#[derive(Default)]
struct Recording {
    records: Vec<CaptureRecord>,
    ordinal: u64,
}

/// The items by id (json-server lists them in id order, which is creation order).
type Items = std::collections::BTreeMap<usize, Value>;

impl Recording {
    fn push(
        &mut self,
        method: &str,
        target: String,
        request: Option<Value>,
        status: u16,
        body: Value,
    ) {
        let record = record(self.ordinal, method, &target, request, status, body);
        self.records.push(record);
        self.ordinal += 1;
    }

    /// The first page of the list.
    fn page(&mut self, items: &Items) {
        let page = json!(items.values().take(10).cloned().collect::<Vec<_>>());
        self.push("GET", "/items?_page=1&_limit=10".into(), None, 200, page);
    }

    /// The seeded items read as a list, a page and one by one.
    fn seeds(&mut self, items: &Items) {
        let all = json!(items.values().cloned().collect::<Vec<_>>());
        self.push("GET", "/items".into(), None, 200, all);
        self.page(items);
        for seeded in items.values() {
            let target = format!("/items/{}", seeded["id"]);
            self.push("GET", target, None, 200, seeded.clone());
        }
    }

    /// A create sending a title an item holds, refused as flexget refuses a taken name.
    fn taken_create(&mut self, items: &Items) {
        let taken = items[&3]["title"].clone();
        let message = format!(
            "item with title '{}' already exists",
            taken.as_str().unwrap_or_default()
        );
        self.push(
            "POST",
            "/items".into(),
            Some(json!({"title": taken, "done": false})),
            409,
            json!({"message": message, "status": "error", "status_code": 409}),
        );
    }

    /// An update of `target`'s title, read back.
    fn update(&mut self, items: &mut Items, target: usize) {
        let mut updated = items[&target].clone();
        updated["title"] = json!(format!("renamed {target}"));
        let path = format!("/items/{target}");
        let body = Some(json!({"title": updated["title"]}));
        self.push("PATCH", path.clone(), body, 200, updated.clone());
        self.push("GET", path, None, 200, updated.clone());
        items.insert(target, updated);
    }

    /// A delete of `target`, read back missing.
    fn delete(&mut self, items: &mut Items, target: usize) {
        self.push("DELETE", format!("/items/{target}"), None, 200, json!({}));
        self.push("GET", format!("/items/{target}"), None, 404, json!({}));
        items.remove(&target);
    }
}

/// A capture with `writes` writes (see the module docs).
fn synthetic(writes: usize) -> Vec<CaptureRecord> {
    let mut recording = Recording::default();
    let mut items: Items = (1..=SEEDED)
        .map(|id| (id, item(id, &format!("seed {id}"))))
        .collect();
    recording.seeds(&items);
    for write in 0..writes {
        let id = SEEDED + write + 1;
        let created = item(id, &format!("item {id}"));
        let body = Some(json!({"title": created["title"], "done": created["done"]}));
        recording.push("POST", "/items".into(), body, 201, created.clone());
        recording.push("GET", format!("/items/{id}"), None, 200, created.clone());
        items.insert(id, created);
        if write == 0 {
            recording.taken_create(&items);
        }
        if write % 4 == 3 {
            // An item created two writes ago (ids 2 mod 4 past the seeds: never deleted).
            recording.update(&mut items, id - 2);
        }
        if write % 8 == 5 {
            // An item created three writes ago (ids 3 mod 8 past the seeds: never updated).
            recording.delete(&mut items, id - 3);
        }
        if write.is_multiple_of((writes / 20).max(1)) {
            recording.page(&items);
        }
    }
    recording.records
}

/// The sizes `REA_BENCH_SIZES` names (a comma list of counts), else `default`.
fn sizes(default: &[usize]) -> Vec<usize> {
    std::env::var("REA_BENCH_SIZES")
        .ok()
        .map(|list| {
            list.split(',')
                .filter_map(|size| size.trim().parse().ok())
                .collect::<Vec<usize>>()
        })
        .filter(|sizes| !sizes.is_empty())
        .unwrap_or_else(|| default.to_vec())
}

/// The CPU time the process has used, user and system, from `/proc/self/stat` (in clock ticks of
/// 10 ms): on a shared machine it grows with the work done, not with the waits for a core.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn rules() -> Arc<RuleSet> {
    let mut registry = rea_registry::Registry::with_builtins().expect("registry");
    let (_, rules) = rea_state::rules::load_pipeline(None, &mut registry).expect("pipeline");
    Arc::new(rules)
}

fn learning(rules: &RuleSet) {
    println!(
        "write plans: learning and confirmation against the writes in a capture (median of 3):"
    );
    let template = TemplateRules::parse(&["sibling-variance", "prefix-variance"]).expect("rules");
    let mut previous: Option<(usize, Duration)> = None;
    for writes in sizes(&[250, 500, 1000, 2000, 4000, 8000]) {
        let records = synthetic(writes);
        let manifest = project_manifest("ev_synthetic", &records, &template).expect("manifest");
        let mut samples = Vec::new();
        let mut state = None;
        let cpu_before = cpu_time();
        for _ in 0..3 {
            let started = Instant::now();
            state = Some(
                rea_state::derive_state(&manifest, "ev_manifest", &records, rules).expect("state"),
            );
            samples.push(started.elapsed());
        }
        let cpu = cpu_time()
            .zip(cpu_before)
            .map(|(after, before)| (after - before) / 3);
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
        let cpu = cpu.map_or(String::new(), |cpu| {
            format!(
                ", CPU {:.1} µs per write",
                cpu.as_secs_f64() * 1e6 / writes as f64
            )
        });
        println!(
            "  {writes:>5} writes, {:>6} records: state with plans {time:>10.2?} = {:>6.1} µs per write ({served} of {} plans served){ratio}{cpu}",
            records.len(),
            time.as_secs_f64() * 1e6 / writes as f64,
            state.write_plans.len(),
        );
        previous = Some((writes, time));
    }
}

/// The served state's items grown (or cut) to `size`: the derived items, then generated ones
/// numbered on from the largest id held.
fn holding(service: &StateService, size: usize) -> LiveState {
    let mut entities: Vec<Entity> = service.initial().entities().cloned().collect();
    let exemplar = entities
        .last()
        .cloned()
        .expect("the derived state holds items");
    let mut next = entities
        .iter()
        .filter_map(|entity| entity.id.parse::<usize>().ok())
        .max()
        .unwrap_or(0);
    entities.truncate(size);
    while entities.len() < size {
        next += 1;
        entities.push(Entity {
            id: next.to_string(),
            fields: Json::from_serde_value(&item(next, &format!("held {next}"))),
            view_fields: Default::default(),
            record_ordinals: Vec::new(),
            ..exemplar.clone()
        });
    }
    LiveState::new(entities, service.initial().documents().cloned().collect())
}

fn percentile(samples: &[Duration], per_cent: usize) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[(sorted.len() * per_cent / 100).min(sorted.len() - 1)]
}

/// One served call, timed as served: the answer and its document text; the answer must carry
/// `status` (a create's conflict) or be no error.
fn served(service: &StateService, tool: &str, arguments: Value, status: Option<u16>) -> Duration {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are an object")
    };
    let started = Instant::now();
    let answer = service.answer(tool, &arguments);
    let text = answer.to_json_string();
    let elapsed = started.elapsed();
    assert!(!answer.is_error(), "{tool}: {text}");
    if let Some(status) = status {
        assert_eq!(answer.status(), Some(status), "{tool}: {text}");
    }
    elapsed
}

/// The operations a round makes, in order.
const OPERATIONS: [&str; 4] = ["conflict", "create", "update", "delete"];

/// A create sending `title`, answering `status` when it is taken.
fn create(service: &StateService, title: String, status: Option<u16>) -> Duration {
    served(
        service,
        "post_items",
        json!({"body": {"title": title, "done": false}}),
        status,
    )
}

/// The ids and titles a state holds, in its order.
fn held_titles(service: &StateService) -> Vec<(String, String)> {
    let live = service.read();
    live.entities()
        .map(|entity| {
            let title = entity.fields.get("title").and_then(Json::as_str);
            (entity.id.clone(), title.unwrap_or_default().to_owned())
        })
        .collect()
}

/// `samples` rounds of a create sending a taken title (refused), a create, an update and a
/// delete on a state holding `size` items: the timings of each operation.
fn rounds(service: &StateService, size: usize, samples: usize) -> [Vec<Duration>; 4] {
    service.replace(holding(service, size));
    let held = held_titles(service);
    // Updates take the even positions, deletes the odd ones, spread over the collection; a
    // round's refused create sends the title of the item it updates next (still its own).
    let spread =
        |index: usize, parity: usize| &held[(index * 7919 % (held.len() / 2)) * 2 + parity];
    let mut times: [Vec<Duration>; 4] = Default::default();
    for index in 0..samples {
        let (updated, taken) = spread(index, 0);
        times[0].push(create(service, taken.clone(), Some(409)));
        times[1].push(create(service, format!("served {index}"), None));
        times[2].push(served(
            service,
            "patch_items_by_id",
            json!({"id": updated, "body": {"title": format!("renamed {index}")}}),
            None,
        ));
        times[3].push(served(
            service,
            "delete_items_by_id",
            json!({"id": spread(index, 1).0}),
            None,
        ));
    }
    assert_eq!(service.read().len(), size, "each round keeps the size");
    times
}

/// `samples` creates sending a taken title on a state holding `size` items that no served
/// write changed yet (as after `data/reset`): their timings.
fn fresh_conflicts(service: &StateService, size: usize, samples: usize) -> Vec<Duration> {
    service.replace(holding(service, size));
    let held = held_titles(service);
    (0..samples)
        .map(|index| {
            create(
                service,
                held[index * 7919 % held.len()].1.clone(),
                Some(409),
            )
        })
        .collect()
}

/// `samples` creates on a state holding `size` items (and those created before), each after the
/// service has been idle for a millisecond (as an agent's writes come): their timings.
fn idle_creates(service: &StateService, size: usize, samples: usize) -> Vec<Duration> {
    service.replace(holding(service, size));
    (0..samples)
        .map(|index| {
            std::thread::sleep(Duration::from_millis(1));
            create(service, format!("idle {index}"), None)
        })
        .collect()
}

/// The 1-minute load average (other work on the machine takes the cores the bench runs on).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

/// A figure: median, p99 and the median's ratio to `base`'s.
fn figure(name: &str, times: &[Duration], base: Duration) -> String {
    let median = percentile(times, 50);
    format!(
        "{name} median {median:>9.2?} (p99 {:>9.2?}, x{:.2})",
        percentile(times, 99),
        median.as_secs_f64() / base.as_secs_f64()
    )
}

fn latency(rules: Arc<RuleSet>) {
    let sizes = sizes(&[1_000, 11_000, 100_000]);
    let samples = std::env::var("REA_BENCH_SAMPLES")
        .ok()
        .and_then(|value| value.parse::<usize>().ok())
        .filter(|samples| *samples > 0)
        .unwrap_or(500)
        .min(sizes.iter().min().map_or(500, |smallest| smallest / 2));
    println!(
        "served write latency against the collection's size (through the state service, as the MCP backend calls it; {samples} rounds of a create refused for a taken title, a create, an update and a delete; medians, p99 and the median's ratio to the 1k one):"
    );
    let template = TemplateRules::parse(&["sibling-variance", "prefix-variance"]).expect("rules");
    let records = synthetic(100);
    let manifest = project_manifest("ev_synthetic", &records, &template).expect("manifest");
    let state = rea_state::derive_state(&manifest, "ev_manifest", &records, &rules).expect("state");
    for plan in &state.write_plans {
        assert!(plan.served, "{}: {:?}", plan.tool, plan.reason);
        let stages: Vec<&str> = plan.rules.iter().map(|rule| rule.stage.as_str()).collect();
        let conflicts: Vec<&str> = plan.conflicts.iter().map(|c| c.member.as_str()).collect();
        println!(
            "  {} applies {stages:?}, conflicts over {conflicts:?}",
            plan.tool
        );
    }
    let environment = Environment::new(&manifest, "ev_synthetic", records.clone()).expect("env");
    let service = StateService::new(state, "ev_state".into(), environment, &records, rules);
    let mut first: Option<[Duration; 6]> = None;
    for size in sizes {
        let mut times = rounds(&service, size, samples).to_vec();
        times.push(fresh_conflicts(&service, size, samples.min(50)));
        times.push(idle_creates(&service, size, samples));
        // The first call of each series on a newly loaded state builds the indexes it asks (one
        // pass over the collection, once): shown apart, not in the figures.
        let builds: Vec<Duration> = times.iter_mut().map(|series| series.remove(0)).collect();
        let medians: [Duration; 6] = std::array::from_fn(|at| percentile(&times[at], 50));
        let base = *first.get_or_insert(medians);
        let names = OPERATIONS
            .iter()
            .copied()
            .chain(["conflict on an unwritten state", "create after 1 ms idle"]);
        let (figures, firsts): (Vec<String>, Vec<String>) = names
            .enumerate()
            .map(|(at, name)| {
                let first = format!("{name} {:.2?}", builds[at]);
                (figure(name, &times[at], base[at]), first)
            })
            .unzip();
        println!(
            "  {size:>7} items: {}; the first call of each on the loaded state: {} (load average {})",
            figures.join(", "),
            firsts.join(", "),
            load_average()
        );
    }
}

fn main() {
    let only = std::env::var("REA_BENCH_ONLY").unwrap_or_default();
    let rules = rules();
    if only != "latency" {
        learning(&rules);
    }
    if only != "learning" {
        latency(rules);
    }
}
