//! Fuzzing the HAR reader with proptest: mutated real captures, random JSON in every standard
//! slot, random bytes and deep nesting. No input may panic or hang: each case runs on a worker
//! thread that must answer (an extraction or a structured refusal) within a generous bound.

use crate::capture_support;

use std::sync::mpsc;
use std::time::Duration;

use capture_support::*;
use proptest::prelude::*;
use rea_evidence::Evidence;
use rea_json::{self as json, Json};
use rea_plugin_api::contracts::capture::ExtractRequest;

/// Far beyond what any case needs (they take milliseconds); reaching it means a hang.
const HANG: Duration = Duration::from_secs(60);

/// Runs the extractor on `bytes` on a worker thread and checks the answer's shape.
fn extract_checked(bytes: Vec<u8>, sensitive: Vec<String>) {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let request = ExtractRequest {
            input_kind: "har".to_owned(),
            sensitive_values: sensitive,
            schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
        };
        let outcome = rea_plugin_har::extract(&request, &bytes);
        let _ = send.send(outcome);
    });
    match receive.recv_timeout(HANG) {
        Ok(Ok(extraction)) => {
            // The answer serializes and its container is canonical JSON.
            let text = serde_json::to_string(&extraction).expect("serializes");
            assert!(!text.is_empty());
            let container = extraction.container.get();
            let parsed = json::parse_with(
                container.as_bytes(),
                &json::ParseOptions::default().max_depth(128),
            )
            .expect("container is JSON");
            assert_eq!(parsed.to_canonical_string(), container);
        }
        Ok(Err(error)) => {
            assert!(
                [
                    "invalid_request",
                    "resource_constraint",
                    "unsupported_target"
                ]
                .contains(&error.code.as_str()),
                "unexpected code {}: {}",
                error.code,
                error.message
            );
            let detail: serde_json::Value =
                serde_json::from_str(error.detail_json.as_str()).expect("detail JSON");
            assert!(detail.get("category").and_then(|c| c.as_str()).is_some());
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the extractor hung"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the extractor panicked"),
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let root = captures_dir();
    [
        "producers/har_files--insomnia.har",
        "producers/flows--error_log.har",
        "producers/har_files--with-bom.har",
        "producers/flows--websocket.har",
    ]
    .iter()
    .map(|relative| std::fs::read(root.join(relative)).expect("seed capture"))
    .collect()
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, bit: u8 },
    Set { at: usize, byte: u8 },
    Delete { at: usize, len: usize },
    Repeat { at: usize, len: usize, to: usize },
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting = prop::sample::select(vec![
        b'"', b'{', b'}', b'[', b']', b',', b':', b'\\', b'0', b'-', b'e', b'.', b'n', b' ', 0x00,
        0xff, 0xc3, b'u',
    ]);
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<usize>(), interesting).prop_map(|(at, byte)| Mutation::Set { at, byte }),
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), 1usize..256, any::<usize>()).prop_map(|(at, len, to)| Mutation::Repeat {
            at,
            len,
            to
        }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let n = bytes.len();
    match *mutation {
        Mutation::Flip { at, bit } => bytes[at % n] ^= 1 << bit,
        Mutation::Set { at, byte } => bytes[at % n] = byte,
        Mutation::Delete { at, len } => {
            let start = at % n;
            bytes.drain(start..(start + len).min(n));
        }
        Mutation::Repeat { at, len, to } => {
            let start = at % n;
            let piece = bytes[start..(start + len).min(n)].to_vec();
            let to = to % n;
            bytes.splice(to..to, piece);
        }
        Mutation::Truncate { at } => bytes.truncate(at % n),
    }
}

/// Random JSON text (valid JSON, arbitrary shape) for the standard slots.
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        prop::sample::select(vec![
            "1e400",
            "-0",
            "0.10000000000000000001",
            "123456789012345678901234567890",
            "1.5"
        ])
        .prop_map(str::to_owned),
        ".{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        prop::sample::select(vec![
            "\"base64\"",
            "\"aGVsbG8=\"",
            "\"1.2\"",
            "\"2024-01-01T00:00:00Z\"",
            "\"http://u:p@h:80/p?q=1#f\""
        ])
        .prop_map(str::to_owned),
    ];
    leaf.prop_recursive(6, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6)
                .prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec(("[a-z_]{0,6}", inner), 0..6).prop_map(|members| {
                let members: Vec<String> = members
                    .into_iter()
                    .map(|(key, value)| format!("{}:{value}", serde_json::to_string(&key).unwrap()))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

/// A HAR template with one slot, `@`, replaced by random JSON.
fn templates() -> Vec<String> {
    let base = entry(
        "http://h/p?a=1",
        r#", "postData": {"mimeType": "text/plain", "text": "x"}"#,
        "",
    );
    let mut templates = Vec::new();
    for (from, to) in [
        ("\"GET\"", "@"),
        ("\"http://h/p?a=1\"", "@"),
        ("\"status\": 200", "\"status\": @"),
        ("\"time\": 12.5", "\"time\": @"),
        ("\"headers\": []", "\"headers\": @"),
        ("\"text\": \"x\"", "\"text\": @"),
        ("\"text\": \"{}\"", "\"text\": @, \"encoding\": \"base64\""),
        ("\"mimeType\": \"application/json\"", "\"mimeType\": @"),
        (
            "\"startedDateTime\": \"2024-05-01T10:00:00.000Z\"",
            "\"startedDateTime\": @",
        ),
        ("\"timings\": {", "\"timings\": {\"dns\": @, "),
        ("\"queryString\": []", "\"queryString\": @"),
        ("\"cache\": {}", "\"cache\": @"),
    ] {
        templates.push(har_with_entries(&[&base.replacen(from, to, 1)]));
    }
    templates.push(har_with_entries(&["@"]));
    templates.push(r#"{"log": {"version": "1.2", "entries": [], "pages": @}}"#.to_owned());
    templates.push(r#"{"log": {"version": @, "entries": []}}"#.to_owned());
    templates.push(r#"{"log": @}"#.to_owned());
    templates
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn mutated_captures_never_panic_or_hang(
        seed in 0usize..4,
        mutations in prop::collection::vec(mutation(), 1..8),
        sensitive in prop::option::of("[a-zA-Z0-9/:.]{1,8}"),
    ) {
        let mut bytes = seeds()[seed].clone();
        for mutation in &mutations {
            apply(&mut bytes, mutation);
        }
        extract_checked(bytes, sensitive.into_iter().collect());
    }

    #[test]
    fn random_json_in_standard_slots_never_panics(
        template in 0usize..16,
        value in json_text(),
        sensitive in prop::option::of("[a-z0-9.]{1,4}"),
    ) {
        let templates = templates();
        let text = templates[template % templates.len()].replacen('@', &value, 1);
        extract_checked(text.into_bytes(), sensitive.into_iter().collect());
    }

    #[test]
    fn random_bytes_and_deep_nesting_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        depth in 0usize..400,
        open in prop::sample::select(vec![b'[', b'{']),
    ) {
        extract_checked(bytes, Vec::new());
        let mut deep = b"{\"log\": ".to_vec();
        for _ in 0..depth {
            deep.push(open);
            if open == b'{' {
                deep.extend_from_slice(b"\"k\":");
            }
        }
        extract_checked(deep, Vec::new());
    }

    #[test]
    fn mutated_evidence_never_panics_and_is_refused_unless_unchanged(
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let path = captures_dir().join("producers/har_files--insomnia.har");
        let original = inspect_all(&path).expect("inspect").to_canonical_vec();
        let mut bytes = original.clone();
        for mutation in &mutations {
            apply(&mut bytes, mutation);
        }
        let outcome = Evidence::authenticate(&bytes);
        if let Ok(evidence) = outcome {
            // Only a change that keeps the content (such as whitespace) may authenticate.
            let reparsed = json::parse_with(&bytes, &json::ParseOptions::default().max_depth(128)).unwrap();
            prop_assert!(!Json::Object(evidence.body().clone()).to_canonical_vec().is_empty());
            let options = json::ParseOptions::default().max_depth(128);
            let unchanged = json::parse_with(&original, &options).unwrap().to_canonical_vec();
            prop_assert_eq!(reparsed.to_canonical_vec(), unchanged);
        }
    }
}
