//! `rea environment-serve` served from the state, as a process, from the transport's side: the
//! card and catalog in state mode, reads answered from the state (and from recordings where the
//! state does not back them), served writes, the data plane's three methods and the live state it
//! holds, and the state falling back to replay when its catalog does not fit the discovery
//! reservation. Inputs are the shared json-server and mlflow captures. Servers bind 127.0.0.1.

use crate::serve_support as support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::process::{
    Server, address, answer_of, call_tool, card, input_json, inputs, project, request, tools_list,
};
use support::synthetic::{catalog_charges, many_endpoints_har};

/// `<name>.capture.json` and `<name>.manifest.json` for a shared capture (no opt-in rules).
pub(crate) fn shared(name: &str) {
    let dir = &inputs().dir;
    if !dir.join(format!("{name}.manifest.json")).is_file() {
        let shared = rea_tests::shared_dir().join("captures").join(name);
        let corpus = rea_tests::workspace_root()
            .join("tests/corpus/apps")
            .join(name);
        let har = if shared.is_dir() { shared } else { corpus }.join("build.har");
        std::fs::copy(&har, dir.join(format!("{name}.har"))).unwrap();
        project(dir, name);
    }
}

pub(crate) fn serve(name: &str, replay_only: bool) -> (Server, String) {
    shared(name);
    let manifest = format!("{name}.manifest.json");
    let capture = format!("{name}.capture.json");
    let mut args = vec![manifest.as_str(), "--evidence", capture.as_str()];
    if replay_only {
        args.push("--replay-only");
    }
    let mut server = Server::start(&args, &[]);
    let url = server.url();
    (server, url)
}

fn stop(server: Server) -> Value {
    server.signal("TERM");
    let (code, stdout, stderr) = server.finish();
    assert_eq!(code, Some(143), "{stderr:?}");
    serde_json::from_str(&stdout).unwrap()
}

/// One JSON-RPC call to `/agentenv`.
pub(crate) fn data_call(url: &str, method: &str, params: Option<Value>) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "id": 1, "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    let (status, body) = request(
        &address(url),
        "POST",
        "/agentenv",
        &[],
        Some(&message.to_string()),
    );
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// The held state, as `data/get` writes it.
fn held(url: &str) -> Value {
    let reply = data_call(url, "data/get", None);
    reply["result"]["parts"][0]["data"].clone()
}

fn add(url: &str, document: &Value) -> Value {
    data_call(
        url,
        "data/add",
        Some(json!({"parts": [{"kind": "data", "data": document}]})),
    )
}

/// The coverage view of a capture: which write tools the state serves and withholds.
fn coverage(name: &str) -> Value {
    let dir = &inputs().dir;
    let view = json!({
        "source": {"kind": "evidence-file", "path": format!("{name}.capture.json")},
        "view": {"kind": "environment-coverage", "template_rules": []}
    });
    std::fs::write(
        dir.join(format!("{name}.coverage-view.json")),
        view.to_string(),
    )
    .unwrap();
    let run = rea_tests::run_rea(
        &support::process::binary(),
        dir,
        &[
            "inspect-analysis-view",
            &format!("{name}.coverage-view.json"),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Whether a manifest tool is a read: a safe method, or a query `POST` (MCP says so with
/// `readOnlyHint`).
fn reads(replay_tools: &[Value]) -> BTreeSet<String> {
    replay_tools
        .iter()
        .filter(|tool| tool["annotations"]["readOnlyHint"] == true)
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_state_card_declares_the_data_plane_and_serves_reads_and_confirmed_writes() {
    let (replay_server, replay_url) = serve("json-server", true);
    let replay_tools = tools_list(&replay_url);
    let replay_card = card(&replay_url);
    stop(replay_server);

    let (server, url) = serve("json-server", false);
    let card = card(&url);
    let capabilities = &card["capabilities"];
    // The three data-plane operations and one intake extension.
    // contract: CARD-054
    assert_eq!(
        capabilities["operations"],
        json!(["data/reset", "data/add", "data/get"])
    );
    let extensions = capabilities["extensions"].as_array().expect("extensions");
    // contract: CARD-055
    assert_eq!(extensions.len(), 1, "{extensions:?}");
    assert_eq!(extensions[0]["uri"], "urn:agentenv:intake/v1");
    // The catalog: every read tool, and exactly the writes whose effect the capture confirmed.
    let coverage = coverage("json-server");
    let served_writes: BTreeSet<String> = coverage["writes"]["served"]
        .as_array()
        .unwrap()
        .iter()
        .map(|write| write["tool"].as_str().unwrap().to_owned())
        .collect();
    let withheld: Vec<&str> = coverage["writes"]["withheld"]
        .as_array()
        .unwrap()
        .iter()
        .map(|write| write["tool"].as_str().unwrap())
        .collect();
    // json-server's build serves every write it recorded (its cascading delete too); that a
    // withheld write is no tool is checked on four apps that withhold some
    // (`state_withheld::hidden_withheld_writes_are_no_tools`).
    assert!(!served_writes.is_empty());
    let read_tools = reads(&replay_tools);
    let listed = tools_list(&url);
    let state_names: BTreeSet<String> = names(&listed).into_iter().collect();
    let expected: BTreeSet<String> = read_tools.union(&served_writes).cloned().collect();
    // contract: CARD-056
    assert_eq!(state_names, expected);
    for tool in withheld {
        assert!(!state_names.contains(tool), "{tool} is withheld");
    }
    assert_eq!(
        names(capabilities["tools"].as_array().unwrap()),
        names(&listed),
        "the card lists the MCP catalog"
    );
    // Descriptions: longer than replay's; reads say where they answer from; writes name their
    // effect, and their body schema the members they accept.
    let manifest = input_json("json-server.manifest.json");
    for tool in &listed {
        let name = tool["name"].as_str().unwrap();
        let description = tool["description"].as_str().unwrap();
        let replayed = replay_tools
            .iter()
            .find(|replayed| replayed["name"] == name)
            .unwrap();
        // contract: MANIFEST-023 (each description is longer)
        assert!(
            description.len() > replayed["description"].as_str().unwrap().len(),
            "{name}"
        );
        if read_tools.contains(name) {
            // contract: CARD-057
            assert!(
                description.contains("answers from the environment state"),
                "{description}"
            );
            continue;
        }
        let effect = coverage["writes"]["served"]
            .as_array()
            .unwrap()
            .iter()
            .find(|write| write["tool"] == name)
            .unwrap()["effect"]
            .as_str()
            .unwrap()
            .to_owned();
        let phrase = match effect.as_str() {
            "create" => "creates an entity",
            "update" => "updates",
            "delete" => "deletes",
            "document" => "changes the document",
            other => panic!("effect {other}"),
        };
        // contract: CARD-058 (the effect)
        assert!(description.contains(phrase), "{effect}: {description}");
        let declared = manifest["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|declared| declared["name"] == name)
            .unwrap();
        if declared["request_body"].is_null() {
            // A delete that sends no body takes no body argument.
            assert_eq!(effect, "delete", "{name}");
            assert!(tool["inputSchema"]["properties"].get("body").is_none());
            continue;
        }
        // The body's schema names the members it accepts (typed), or its description lists them.
        let body = ["body", "request_body"]
            .iter()
            .find_map(|key| tool["inputSchema"]["properties"].get(*key))
            .unwrap_or_else(|| panic!("{name}: no body argument"));
        let accepted = format!("{} {}", body["properties"], body["description"]);
        let recorded = manifest["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|declared| declared["name"] == name)
            .unwrap()["request_body"]["members"]
            .as_object()
            .unwrap()
            .clone();
        let quoted: Vec<String> = recorded
            .keys()
            .map(|member| Value::String(member.clone()).to_string())
            .filter(|quoted| accepted.contains(quoted.as_str()))
            .collect();
        // contract: CARD-058 (the quoted body members)
        assert!(!quoted.is_empty(), "{name}: {accepted}");
    }
    // contract: MANIFEST-023 (served from the state, the card, with the data plane and the
    // longer descriptions, is larger than replay's)
    assert!(card.to_string().len() > replay_card.to_string().len());
    // contract: SERVE-027 (the data plane serves its three methods)
    let document = held(&url);
    assert!(document["rea_state"].is_object(), "{document}");
    assert_eq!(data_call(&url, "data/reset", None)["result"], json!({}));
    assert_eq!(add(&url, &document)["result"], json!({}));
    // contract: SERVE-023 (a read the state backs answers from it)
    let answer = answer_of(&call_tool(&url, "get_posts_by_id", &json!({"id": "1"})));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"]["id"], 1);
    let stopped = stop(server);
    assert_eq!(stopped["state"]["served"], true);
}

/// The held state with a changed `title` for post 1.
fn retitled(document: &Value, title: &str) -> Value {
    let mut document = document.clone();
    let entity = document["rea_state"]["entities"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|entity| entity["collection"] == "/posts" && entity["fields"]["id"] == 1)
        .expect("post 1");
    entity["fields"]["title"] = json!(title);
    document
}

#[test]
fn reads_answer_from_the_live_state_that_writes_and_data_add_change() {
    let (server, url) = serve("json-server", false);
    let derived = held(&url);
    let title = |url: &str| {
        let answer = answer_of(&call_tool(url, "get_posts_by_id", &json!({"id": "1"})));
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        answer["body"]["title"].clone()
    };
    let recorded_title = title(&url);
    assert!(recorded_title.is_string());

    // A document loaded through data/add is what reads answer from, and what data/get writes
    // whole.
    let retitled = retitled(&derived, "Loaded through data/add");
    assert_eq!(add(&url, &retitled)["result"], json!({}));
    // contract: SERVE-023, REPLAY-038 (reads answer from the state a caller loaded)
    assert_eq!(title(&url), "Loaded through data/add");
    // data/get writes the held state whole: every entity and document (a changed entity no
    // longer cites the recordings it left), and what it writes loads back unchanged.
    let loaded = held(&url);
    for member in ["entities", "documents", "types"] {
        // contract: LIMITS-014
        assert_eq!(
            loaded["rea_state"][member].as_array().map(Vec::len),
            derived["rea_state"][member].as_array().map(Vec::len),
            "{member}"
        );
    }
    assert!(loaded.to_string().contains("Loaded through data/add"));
    assert_eq!(add(&url, &loaded)["result"], json!({}));
    assert_eq!(held(&url), loaded);

    // A refused document changes nothing: the live state stays the one validated document.
    let mut invalid = loaded.clone();
    invalid["rea_state"]["entities"] = json!("not a list");
    let refused = add(&url, &invalid);
    assert!(refused.get("error").is_some(), "{refused}");
    // contract: LIMITS-012 (the live state stays a validated document)
    assert_eq!(held(&url), loaded);
    // A file over the 32 MiB document limit is refused before it is read (a sparse file).
    let folder = tempfile::tempdir().unwrap();
    let large = folder.path().join("large.json");
    std::fs::File::create(&large)
        .unwrap()
        .set_len(33 * 1024 * 1024)
        .unwrap();
    let refused = data_call(
        &url,
        "data/add",
        Some(
            json!({"parts": [{"kind": "file", "file": {"uri": format!("file://{}", large.display())}}]}),
        ),
    );
    assert!(refused.get("error").is_some(), "{refused}");
    assert_eq!(held(&url), loaded);

    // A served write applies its effect to the state every read and data/get see.
    let capture = input_json("json-server.capture.json");
    let exemplar = capture["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|record| record["method"] == "POST" && record["path"] == "/posts")
        .unwrap();
    let mut body: Value =
        serde_json::from_str(exemplar["request"]["body"]["text"].as_str().unwrap()).unwrap();
    body["title"] = json!("Written through MCP");
    let created = call_tool(&url, "post_posts", &json!({"body": body}));
    assert_ne!(created["isError"], true, "{created}");
    let created = answer_of(&created);
    assert_eq!(created["status"], 201, "{created}");
    let listed = answer_of(&call_tool(&url, "get_posts", &json!({})));
    // contract: SERVE-024 (the served write applied its effect)
    assert!(
        listed["body"]
            .as_array()
            .unwrap()
            .iter()
            .any(|post| post["title"] == "Written through MCP"),
        "{listed}"
    );
    let after = held(&url);
    assert!(after.to_string().contains("Written through MCP"));

    // data/reset restores the derived state.
    assert_eq!(data_call(&url, "data/reset", None)["result"], json!({}));
    assert_eq!(held(&url), derived);
    assert_eq!(title(&url), recorded_title);
    stop(server);
}

/// Served from the state, every read tool of mlflow's build answers from it: the body queries too,
/// a page leaving runs out with the page token the state mints.
#[test]
fn the_reads_the_state_backs_answer_from_it() {
    let (server, url) = serve("mlflow", false);
    let capture = input_json("mlflow.capture.json");
    let records = capture["records"].as_array().unwrap();
    let paged = records
        .iter()
        .find(|record| {
            record["path"]
                .as_str()
                .is_some_and(|path| path.ends_with("/runs/search"))
                && record["response"]["body"]["text"]
                    .as_str()
                    .is_some_and(|text| text.contains("next_page_token"))
        })
        .unwrap();
    let sent: Value =
        serde_json::from_str(paged["request"]["body"]["text"].as_str().unwrap()).unwrap();
    let answer = answer_of(&call_tool(
        &url,
        "post_mlflow_runs_search",
        &json!({"body": sent}),
    ));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let recorded: Value =
        serde_json::from_str(paged["response"]["body"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        answer["body"]["next_page_token"],
        recorded["next_page_token"]
    );
    let by_name = records
        .iter()
        .find(|record| {
            record["path"]
                .as_str()
                .is_some_and(|path| path.ends_with("/experiments/get-by-name"))
        })
        .unwrap();
    let experiment = by_name["query"]["pairs"][0][1].clone();
    let answer = answer_of(&call_tool(
        &url,
        "get_mlflow_experiments_get_by_name",
        &json!({"experiment_name": experiment}),
    ));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    stop(server);
}

#[test]
fn a_read_tool_whose_view_the_state_does_not_back_answers_its_recording() {
    // jupyter_server's checkpoint list is no entity, list or document the state derives
    // (`no-view`: read only after the checkpoint create, a write the state does not model):
    // served from the state, that tool answers its recording; the contents root answers from
    // the state.
    let (server, url) = serve("jupyter_server", false);
    let capture = input_json("jupyter_server.capture.json");
    let path = "/api/contents/notes/standup.md/checkpoints";
    let recorded: Vec<&Value> = capture["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["method"] == "GET" && record["path"] == path)
        .collect();
    assert!(!recorded.is_empty());
    let answer = answer_of(&call_tool(
        &url,
        "get_contents_checkpoints_by_content_id_and_segment_3",
        &json!({"content_id": "notes", "segment_3": "standup.md"}),
    ));
    // contract: REPLAY-003
    assert_eq!(answer["state"]["source"], "recording", "{answer}");
    assert_eq!(answer["replay"]["exact_match"], true, "{answer}");
    let specs = recorded
        .iter()
        .find(|record| record["ordinal"] == answer["replay"]["record_ordinal"])
        .unwrap_or_else(|| panic!("not a recorded checkpoint list: {answer}"));
    let text = specs["response"]["body"]["text"].as_str().unwrap();
    assert_eq!(answer["body"], serde_json::from_str::<Value>(text).unwrap());
    let root = answer_of(&call_tool(&url, "get_contents", &json!({})));
    assert_eq!(root["state"]["source"], "state", "{root}");
    stop(server);
}
// contract: MANIFEST-023, REPLAY-003, SERVE-003, CARD-059
#[test]
fn a_state_catalog_over_the_reservation_serves_replay_when_replay_fits() {
    const LIMIT: u64 = 1024 * 1024; // the spec's 1 MiB reservation (MANIFEST-018)
    const TOOLS: usize = 200;
    // The most query fields with which the replay catalog fits.
    let (empty, _) = catalog_charges(&many_endpoints_har(TOOLS, 0));
    let (one_each, _) = catalog_charges(&many_endpoints_har(TOOLS, TOOLS));
    let per_field = (one_each - empty) / TOOLS as u64;
    let mut fields = ((LIMIT - empty) / per_field) as usize;
    let (replay, state) = loop {
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
        break (replay, state);
    };
    assert!(
        replay <= LIMIT && state > LIMIT,
        "replay {replay}, state {state}"
    );

    project_har_named("oversize-state", &many_endpoints_har(TOOLS, fields));
    let mut server = Server::start(
        &[
            "oversize-state.manifest.json",
            "--evidence",
            "oversize-state.capture.json",
        ],
        &[],
    );
    let url = server.url();
    let card = card(&url);
    assert_eq!(card["capabilities"]["operations"], json!([]));
    assert_eq!(card["capabilities"]["extensions"], Value::Null);
    // Replay answers every tool.
    let tools = tools_list(&url);
    assert_eq!(tools.len(), TOOLS);
    for tool in &tools {
        let answer = answer_of(&call_tool(&url, tool["name"].as_str().unwrap(), &json!({})));
        assert!(answer.get("state").is_none(), "{answer}");
        assert_eq!(answer["status"], 200);
        assert!(answer["replay"]["record_ordinal"].is_u64(), "{answer}");
    }
    let unavailable = data_call(&url, "data/get", None);
    assert_eq!(unavailable["error"]["code"], -32601);
    let stopped = stop(server);
    assert_eq!(stopped["state"]["served"], false);
    assert_eq!(stopped["state"]["reason"], "unavailable");
    assert_eq!(stopped["state"]["code"], "resource_constraint");
}

fn project_har_named(name: &str, har: &str) {
    support::process::project_har(name, har);
}
