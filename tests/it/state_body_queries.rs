//! Body queries (`rea_state::body_query`): a read whose query is its request body is read by a
//! query-grammar stage (`split_body`) into terms the state evaluates over the entities it holds,
//! so a probe body the build never sent is answered from the state with the live body. On two
//! recorded applications with two body languages: PouchDB's Mango `_find` (`mango-selector`) and
//! MLflow's `runs/search` and `experiments/search` (`search-filter`); and etcd's v3 `kv/range`
//! (`kv-range`: base64 keys compared as bytes), whose key-value pairs no other read holds, so
//! its type is seeded from its own answers. A page leaving matches out
//! carries the page token the recorded pages show (minted from the next page's offset), or the
//! one a sibling route's pages show (`derive/sibling_body_pages.rs`: MLflow's experiments/search
//! borrows runs/search's; neither etcd's `kv/range` nor PouchDB's `_find` has a sibling body
//! query). A body no grammar reads, or a page whose envelope no recording showed, is refused,
//! never answered with another body's recording.

use rea_manifest::catalog::ArgumentTarget;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_state::model::{BodyQueryView, DefaultOrder, EnvelopePresence, PageToken, ViewDetail};
use serde_json::{Map, Value, json};

use crate::state_query_grammar::served_with_probes;
use crate::state_support::{Served, assert_not_modelled, recorded_answer, with_body};

const FIND: &str = "post_find_by_segment_0";
const RUNS: &str = "post_mlflow_runs_search";
const EXPERIMENTS: &str = "post_mlflow_experiments_search";
const DOCUMENT: &str = "get_root_by_segment_0_and_id";
const RANGE: &str = "post_kv_range";

fn view<'a>(served: &'a Served, tool: &str) -> &'a BodyQueryView {
    served
        .state()
        .views
        .iter()
        .find_map(|view| match &view.detail {
            ViewDetail::BodyQuery(query) if view.tool == tool => Some(query),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{tool} is a body-query view"))
}

fn presence<'a>(view: &'a BodyQueryView, member: &str) -> &'a EnvelopePresence {
    &view
        .envelope
        .iter()
        .find(|envelope| envelope.member == member)
        .unwrap_or_else(|| panic!("the envelope member {member}"))
        .presence
}

fn request_body(record: &CaptureRecord) -> Option<Value> {
    let bytes = record.request.body.bytes()?;
    serde_json::from_slice(&bytes).ok()
}

/// The tool's arguments for a recorded request: its path parameters and its body.
fn arguments(served: &Served, tool: &str, record: &CaptureRecord) -> Map<String, Value> {
    let definition = served.replay.tool(tool).expect("the tool");
    let path = record.path.as_deref().expect("a path");
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let mut arguments = Map::new();
    for argument in &definition.input_schema.arguments {
        let value = match &argument.target {
            ArgumentTarget::Path {
                segment_index,
                prefix,
                suffix,
                ..
            } => {
                let segment = segments[*segment_index];
                let value = segment
                    .strip_prefix(prefix.as_str())
                    .and_then(|rest| rest.strip_suffix(suffix.as_str()))
                    .expect("the segment holds the parameter");
                Value::String(value.to_owned())
            }
            ArgumentTarget::Body => match request_body(record) {
                Some(body) => body,
                None => continue,
            },
            ArgumentTarget::Query { .. } => continue,
        };
        arguments.insert(argument.name.clone(), value);
    }
    arguments
}

pub(crate) fn probe(probes: &[CaptureRecord], ordinal: u64) -> &CaptureRecord {
    probes
        .iter()
        .find(|record| record.ordinal == ordinal)
        .unwrap_or_else(|| panic!("probe {ordinal}"))
}

/// Each probe request is answered from the state by evaluating its body, with the live body, and
/// the build never sent that body.
pub(crate) fn assert_live_answers(app: &str, tool: &str, ordinals: &[u64]) {
    let (served, probes) = served_with_probes(app);
    let recorded: Vec<Value> = served.records.iter().filter_map(request_body).collect();
    for ordinal in ordinals {
        let record = probe(&probes, *ordinal);
        let body = request_body(record).expect("a JSON body");
        assert!(
            !recorded.contains(&body),
            "{app}: the build never sent {body}"
        );
        let (answer, is_error) = served.call(tool, arguments(&served, tool, record));
        assert!(!is_error, "{app}: {body} is answered: {answer}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{app}: {body} answers from the state: {answer}"
        );
        assert_eq!(
            answer.pointer("/state/membership").and_then(Value::as_str),
            Some("body-query"),
            "{app}: {body} evaluates its body: {answer}"
        );
        let (_, live) = recorded_answer(record);
        assert_eq!(
            answer.get("body"),
            Some(&live),
            "{app}: {body} lists what the live application listed"
        );
    }
}

/// The call is a structured `not_modelled` refusal: no recording, no state answer.
fn assert_refused(served: &Served, tool: &str, arguments: Map<String, Value>) {
    let (answer, is_error) = served.call(tool, arguments);
    assert_not_modelled(&answer, is_error);
}

#[test]
fn body_queries_are_learned_as_views_of_the_held_types() {
    let (pouchdb, _) = served_with_probes("pouchdb-server");
    let find = view(&pouchdb, FIND);
    assert_eq!(find.entity_type, "/{prefix-variance}");
    assert_eq!(find.list_member, "docs");
    // `_find` without a sort lists by `_id`; the index warning is absent exactly when the
    // selector or sort names an indexed field (year, title), which the recordings show.
    assert_eq!(find.default_order, DefaultOrder::Identity);
    assert_eq!(
        presence(find, "warning"),
        &EnvelopePresence::UnlessNamed {
            fields: vec!["title".to_owned(), "year".to_owned()]
        }
    );
    let (mlflow, _) = served_with_probes("mlflow");
    let runs = view(&mlflow, RUNS);
    assert_eq!(runs.entity_type, "/api/2.0/mlflow/runs");
    assert_eq!(runs.default_order, DefaultOrder::Reversed);
    assert_eq!(presence(runs, "next_page_token"), &EnvelopePresence::Paged);
    assert!(runs.partial_pages);
    let experiments = view(&mlflow, EXPERIMENTS);
    assert_eq!(experiments.entity_type, "/api/2.0/mlflow/experiments");
    // Its own recordings never left experiments out: its pages are lent by runs/search.
    assert!(experiments.partial_pages);
}

#[test]
fn mango_selectors_never_sent_answer_from_the_state() {
    // Recorded: equality, $gt, $in, fields, sort asc, limit, skip. Never: $lt with a descending
    // sort, $gte on pages, $regex with fields, an $or group beside equality, $ne with fields,
    // $all on an array, skip 6, the members database by a flag.
    assert_live_answers("pouchdb-server", FIND, &[16, 17, 18, 19, 20, 21, 23, 24]);
}

#[test]
fn search_filters_never_sent_answer_from_the_state() {
    // Recorded: attributes.status =, metrics.auc >, params.model =, order_by start_time ASC and
    // metrics.auc DESC, max_results, page tokens, an experiments sort by name. Never: another
    // metric and operator, another param, tags on runs, LIKE, a descending order on run_name,
    // the second page of an order by a metric, a name prefix.
    assert_live_answers("mlflow", RUNS, &[0, 1, 2, 3, 6]);
    assert_live_answers("mlflow", EXPERIMENTS, &[8]);
}

#[test]
fn a_body_the_grammars_do_not_read_is_refused_never_another_bodys_recording() {
    let (pouchdb, probes) = served_with_probes("pouchdb-server");
    // $nor, an $or group holding what the stage does not model, a regular expression the
    // state's regex engine does not read (a look-ahead).
    let or_probe = arguments(&pouchdb, FIND, probe(&probes, 19));
    for selector in [
        serde_json::json!({"type": "book", "$nor": [{"genre": "fantasy"}, {"status": "withdrawn"}]}),
        serde_json::json!({"type": "book", "$or": [{"genre": "fantasy"}, {"tags": {"$size": 1}}]}),
        serde_json::json!({"type": "book", "title": {"$regex": "^(?=The)"}}),
    ] {
        let mut arguments = or_probe.clone();
        let body = arguments
            .values_mut()
            .find(|value| value.get("selector").is_some())
            .expect("the body argument");
        body["selector"] = selector;
        assert_refused(&pouchdb, FIND, arguments);
    }
    let (mlflow, probes) = served_with_probes("mlflow");
    // A comparator the filter language does not have.
    let record = probe(&probes, 19);
    assert_refused(&mlflow, RUNS, arguments(&mlflow, RUNS, record));
}

#[test]
fn a_page_leaving_matches_out_answers_only_the_token_the_state_can_mint() {
    let (mlflow, _) = served_with_probes("mlflow");
    // A runs page leaving runs out carries the token the build's pages show (the base64 of
    // `{"offset": n}`, n the next page's offset), minted from the state: the first page of 3 by
    // a metric the build never paged answers live.
    let token = PageToken {
        member: "next_page_token".to_owned(),
        prefix: "{\"offset\": ".to_owned(),
        suffix: "}".to_owned(),
    };
    assert_eq!(view(&mlflow, RUNS).page_token, Some(token.clone()));
    // experiments/search was never recorded with a page leaving experiments out; its sibling
    // route runs/search lends it the token (the same `max_results`, no page token of its own,
    // the token right after the list): the newest experiment by creation time, one a page,
    // answers live, its token naming the next page.
    let experiments = view(&mlflow, EXPERIMENTS);
    assert_eq!(experiments.page_token, Some(token));
    assert_eq!(
        presence(experiments, "next_page_token"),
        &EnvelopePresence::Paged
    );
    assert_live_answers("mlflow", EXPERIMENTS, &[9]);
    assert_live_answers("mlflow", RUNS, &[5]);
    // The build's own first page answers from the state too, its token minted as recorded.
    let recorded = mlflow
        .records
        .iter()
        .find(|record| {
            record
                .path
                .as_deref()
                .is_some_and(|path| path.ends_with("/runs/search"))
                && recorded_answer(record).1.get("next_page_token").is_some()
        })
        .expect("the build's first runs page");
    let (answer, is_error) = mlflow.call(RUNS, arguments(&mlflow, RUNS, recorded));
    assert!(!is_error, "{answer}");
    assert_eq!(answer.get("body"), Some(&recorded_answer(recorded).1));
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state")
    );
}

#[test]
fn documents_listed_one_level_down_in_rows_are_held() {
    // book:fifth-season was only listed by `_all_docs?include_docs=true` over the book range.
    let (pouchdb, probes) = served_with_probes("pouchdb-server");
    let record = probe(&probes, 8);
    assert_eq!(record.path.as_deref(), Some("/library/book:fifth-season"));
    let (answer, is_error) = pouchdb.call(DOCUMENT, arguments(&pouchdb, DOCUMENT, record));
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state")
    );
    assert_eq!(answer.get("body"), Some(&recorded_answer(record).1));
}

#[test]
fn key_ranges_never_sent_answer_from_a_type_seeded_from_their_answers() {
    let (etcd, probes) = served_with_probes("etcd");
    let range = view(&etcd, RANGE);
    // No other read lists the key-value pairs: the type is the range answers' own, its
    // collection the route's parent, its identity the `key` a single-key body names.
    assert_eq!(range.entity_type, "/v3/kv");
    assert_eq!(range.list_member, "kvs");
    let seeded = etcd
        .state()
        .types
        .iter()
        .find(|known| known.collection_template == "/v3/kv")
        .expect("the seeded type");
    assert_eq!(seeded.identity_field, "key");
    // The count is the number matched, as decimal text, left out (with the list) when nothing
    // matched, as the build's read of a deleted key showed; `more` marks a page leaving pairs
    // out.
    assert_eq!(
        presence(range, "count"),
        &EnvelopePresence::Matched {
            text: true,
            omit_zero: true
        }
    );
    assert_eq!(presence(range, "more"), &EnvelopePresence::LeftOut);
    assert!(range.omit_empty_list);
    // The db/ pairs were only listed keys-only before the build's writes.
    assert!(range.whole_members.contains(&"value".to_owned()));
    // One key never read alone, a range sorted by value, a page of one, the count of a prefix,
    // an open-ended keys-only range over both prefixes, a key that does not exist; db/primary,
    // listed keys-only before the writes and completed from the build's later answers
    // (`derive/later_members.rs`; the db/ prefix below).
    assert_live_answers("etcd", RANGE, &[11, 12, 14, 15, 16, 17, 18]);
    // Not modelled, never another body's recording: a historical revision, a key that is not
    // base64.
    for ordinal in [19, 25] {
        let record = probe(&probes, ordinal);
        assert_refused(&etcd, RANGE, arguments(&etcd, RANGE, record));
    }
}

#[test]
fn a_recording_made_after_the_builds_writes_does_not_answer_a_body_query() {
    // The build read the db/ prefix only after its writes (a put elsewhere, a delete of
    // db/replica); the state holds db/ as it was before them, so the live prefix read is
    // answered from the state with db/replica, which that recording (made after its delete)
    // lacks.
    let (etcd, probes) = served_with_probes("etcd");
    let record = probe(&probes, 13);
    let (answer, is_error) = etcd.call(RANGE, arguments(&etcd, RANGE, record));
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "{answer}"
    );
    let listed = answer
        .pointer("/body/kvs")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    assert_eq!(listed, 2, "db/primary and db/replica: {answer}");
    let after_writes = etcd
        .records
        .iter()
        .rev()
        .find(|built| request_body(built) == request_body(record))
        .expect("the build's read of db/ after its writes");
    let (_, recorded) = recorded_answer(after_writes);
    assert_ne!(answer.get("body"), Some(&recorded));
    assert_eq!(
        answer.get("body"),
        Some(&recorded_answer(record).1),
        "the live answer"
    );
}

#[test]
fn pairs_listed_keys_only_are_completed_from_later_answers_showing_them_unchanged() {
    // db/primary: the build's last db/ range, after writes none of which named it, lists it with
    // the revisions the keys-only listing showed and its value. db/replica: the delete that
    // named it answered it whole (`prev_kvs`) and a later read of it alone listed nothing.
    let (etcd, _) = served_with_probes("etcd");
    let values: Vec<(String, Option<String>)> = etcd
        .state()
        .entities
        .iter()
        .filter(|entity| entity.entity_type == "/v3/kv" && entity.id.starts_with("ZGIv"))
        .map(|entity| {
            let value = entity.fields.get("value").and_then(|value| value.as_str());
            (entity.id.clone(), value.map(str::to_owned))
        })
        .collect();
    assert_eq!(
        values,
        vec![
            (
                "ZGIvcHJpbWFyeQ==".to_owned(),
                Some("MTAuMC4yLjEwOjU0MzI=".to_owned())
            ),
            (
                "ZGIvcmVwbGljYQ==".to_owned(),
                Some("MTAuMC4yLjExOjU0MzI=".to_owned())
            ),
        ]
    );
}

#[test]
fn an_empty_listing_is_spelled_as_the_application_spells_it() {
    // MLflow leaves empty arrays out (no answer of the build holds one; a run whose `data`
    // holds no metrics has no `metrics`): a search matching no run has no `runs` at all.
    let (mlflow, _) = served_with_probes("mlflow");
    assert!(view(&mlflow, RUNS).omit_empty_list);
    assert_live_answers("mlflow", RUNS, &[4, 7]);
    // PouchDB's documents of several shapes say nothing of empty arrays: `_find` keeps `docs`.
    let (pouchdb, _) = served_with_probes("pouchdb-server");
    assert!(!view(&pouchdb, FIND).omit_empty_list);
    // etcd's build read a deleted key (`{"header": …}`, no kvs, no count): a range matching
    // nothing is spelled so (key_ranges_never_sent_answer_from_a_type_seeded_from_their_answers).
    let (etcd, _) = served_with_probes("etcd");
    assert!(view(&etcd, RANGE).omit_empty_list);
}

#[test]
fn a_put_of_a_value_the_range_reads_as_base64_that_does_not_decode_is_refused() {
    // The range grammar reads key and value as base64 bytes; the build only ever put base64.
    // A value that does not decode (etcd answers 400) is not modelled and changes nothing, so
    // the key keeps its value; a base64 value is stored.
    let (etcd, _) = served_with_probes("etcd");
    assert_eq!(
        view(&etcd, RANGE).encoded_fields.keys().collect::<Vec<_>>(),
        vec!["key", "value"]
    );
    let env_key = "YXBwL2Vudg==";
    let put = |value: &str| {
        etcd.call(
            "post_kv_put",
            with_body(
                &etcd,
                "post_kv_put",
                json!({"key": env_key, "value": value}),
            ),
        )
    };
    let range = || {
        let (answer, is_error) = etcd.call(RANGE, with_body(&etcd, RANGE, json!({"key": env_key})));
        assert!(!is_error, "{answer}");
        answer.pointer("/body/kvs/0/value").cloned()
    };
    let before = range();
    let (refused, is_error) = put("staging!");
    assert!(is_error, "{refused}");
    assert!(refused.to_string().contains("not_modelled"), "{refused}");
    assert_eq!(range(), before, "nothing changed");
    let (stored, is_error) = put("c3RhZ2luZw==");
    assert!(!is_error, "{stored}");
    assert_eq!(range(), Some(json!("c3RhZ2luZw==")));
}
