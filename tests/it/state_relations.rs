//! Related entities answered from the state (`rea_state::relations`): a query a build's item or
//! list reads made to show related entities in one member (`_embed=comments`, `_expand=post`,
//! `_embed=tickets`, `fields=*,project.*`) is learned per entity type with its link (children
//! holding the entity's id, the parent a field names), offered on the type's item and list
//! tools, and a list under a parent path segment
//! (`/posts/{id}/comments`) with the member its entities hold the parent in; probes on other
//! entities, recorded on the live application, are answered from the state with the live body.
//! On five recorded applications: json-server, json-server v1, Directus, Parse Server (a member
//! holding a reference object, a Pointer, replaced by the entity it names, shown with the
//! members the read showed beside its fields), and PouchDB Server, whose
//! `_all_docs` rows show each row's document beside it (`include_docs=true`): the row is held
//! without it, and the document is the one the database (the collection enclosing the rows')
//! holds under the row's id.

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_state::model::ViewDetail;
use rea_state::relations::{Link, ParentSegment, Relation};
use serde_json::{Map, Value};

use crate::state_query_grammar::served_with_probes;
use crate::state_support::agreement::route;
use crate::state_support::{Served, assert_not_modelled, recorded_answer, view_detail};

fn relations_of(served: &Served, tool: &str) -> Vec<Relation> {
    match view_detail(served, tool) {
        ViewDetail::Item(item) => item.relations.clone(),
        _ => panic!("{tool} is an item view"),
    }
}

/// Each probe line is answered through its tool from the state with the live body, and is no
/// request the build recorded.
fn assert_live(app: &str, lines: &[&str]) {
    let (served, probes) = served_with_probes(app);
    let recorded: Vec<String> = served
        .records
        .iter()
        .map(|record| crate::state_support::request_line(record, ""))
        .collect();
    for line in lines {
        let record: &CaptureRecord = crate::state_support::probe_with_line(&probes, line);
        assert!(!recorded.iter().any(|known| known == line), "{line}");
        // The tool the path names; the query as string arguments (relation parameters the
        // tool never recorded are offered by the state catalog).
        let mut bare = record.clone();
        bare.query = None;
        let (tool, mut arguments) = route(&served, &bare).expect("the probe has a tool");
        for (name, value) in record
            .query
            .iter()
            .flat_map(|query| query.pairs.iter().flatten())
        {
            arguments.insert(name.clone(), Value::String(value.clone()));
        }
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(!is_error, "{app}: {line}: {answer}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{app}: {line} answers from the state: {answer}"
        );
        assert_eq!(
            answer.get("body"),
            Some(&recorded_answer(record).1),
            "{app}: {line} answers the live body"
        );
    }
}

#[test]
fn item_queries_learn_their_links() {
    let (json_server, _) = served_with_probes("json-server");
    let embed = relations_of(&json_server, "get_posts_by_id");
    assert_eq!(embed.len(), 1);
    assert_eq!(embed[0].member, "comments");
    assert_eq!(embed[0].entity_type, "/comments");
    assert_eq!(
        embed[0].link,
        Link::Children {
            field: "postId".to_owned()
        }
    );
    let expand = relations_of(&json_server, "get_comments_by_id");
    assert_eq!(
        expand[0].link,
        Link::Parent {
            field: "postId".to_owned(),
            key: None,
        }
    );
    // Directus replaces the member holding the id by the entity it names.
    let (directus, _) = served_with_probes("directus");
    let project = relations_of(&directus, "get_items_tasks_by_id");
    assert_eq!(project.len(), 1);
    assert_eq!(project[0].member, "project");
    assert_eq!(
        project[0].link,
        Link::Parent {
            field: "project".to_owned(),
            key: None,
        }
    );
}

#[test]
fn related_entities_of_other_entities_answer_from_the_state() {
    // Recorded: post 1's comments, comment 2's post, post 1's comment list.
    assert_live(
        "json-server",
        &[
            "GET /posts/3?_embed=comments",
            "GET /comments/5?_expand=post",
            "GET /posts/4/comments",
            "GET /posts/42/comments",
        ],
    );
    // Recorded: customer c3's tickets, ticket 102's customer, the note list with each ticket;
    // never the customer of each ticket of a filtered list, or one note's ticket.
    assert_live(
        "json-server-v1",
        &[
            "GET /customers/c1?_embed=tickets",
            "GET /tickets?_embed=customer&status=pending",
            "GET /notes/n3?_embed=ticket",
        ],
    );
    // Recorded: task 2 with its project; task 9 has none.
    assert_live("directus", &["GET /items/tasks/9?fields=%2A%2Cproject.%2A"]);
    // Recorded: tskAtl0002 with its project (Atlas); Cobalt, listed, was never included.
    assert_live(
        "parse-server",
        &["GET /parse/classes/Task/tskCbt0007?include=project"],
    );
}

#[test]
fn a_reference_object_is_replaced_by_the_entity_it_names_shown_with_members_beside() {
    // Parse Server holds a task's project as a Pointer (`{"__type": "Pointer", "className":
    // "Project", "objectId": …}`); `include=project` shows the project's own fields and
    // `__type: "Object"` and `className` beside them.
    let (parse, _) = served_with_probes("parse-server");
    let project = relations_of(&parse, "get_parse_classes_task_by_object_id");
    assert_eq!(project.len(), 1, "{project:?}");
    assert_eq!(project[0].member, "project");
    assert_eq!(
        project[0].link,
        Link::Parent {
            field: "project".to_owned(),
            key: Some("objectId".to_owned()),
        }
    );
    let beside = project[0]
        .beside
        .as_ref()
        .map(|beside| serde_json::to_value(beside).expect("JSON"));
    assert_eq!(
        beside,
        Some(serde_json::json!({"__type": "Object", "className": "Project"}))
    );
}

#[test]
fn a_list_under_a_parent_learns_the_member_holding_it() {
    let (json_server, _) = served_with_probes("json-server");
    let parent = match view_detail(&json_server, "get_posts_comments_by_post_id") {
        ViewDetail::List(list) => list.parent.clone(),
        _ => None,
    };
    assert_eq!(
        parent,
        Some(ParentSegment {
            segment: 1,
            collection: "/comments".to_owned(),
            field: "postId".to_owned(),
            fixed: Vec::new(),
        })
    );
}

#[test]
fn a_query_no_read_showed_related_entities_for_is_refused() {
    let (json_server, _) = served_with_probes("json-server");
    // `_embed=users` was never recorded: never another query's or another id's recording.
    let mut arguments = Map::new();
    let tool = json_server
        .manifest
        .tools
        .iter()
        .find(|tool| tool.name == "get_posts_by_id")
        .expect("the tool");
    arguments.insert(tool.path_parameters[0].name.clone(), Value::from("3"));
    arguments.insert("_embed".to_owned(), Value::from("users"));
    let (answer, is_error) = json_server.call("get_posts_by_id", arguments);
    assert_not_modelled(&answer, is_error);
}

#[test]
fn rows_shown_with_their_documents_hold_the_documents_of_the_enclosing_database() {
    let (pouchdb, _) = served_with_probes("pouchdb-server");
    let list = crate::state_support::list_view(&pouchdb, "get_all_docs_by_segment_0");
    // Recorded with documents on both databases: one relation, its collection named by the call.
    let include_docs: Vec<&Relation> = list
        .relations
        .iter()
        .filter(|relation| relation.query == [("include_docs".to_owned(), "true".to_owned())])
        .collect();
    assert_eq!(include_docs.len(), 1, "{:?}", list.relations);
    let relation = include_docs[0];
    assert_eq!(relation.member, "doc");
    assert!(relation.enclosing);
    assert_eq!(
        relation.collection_for("/members/_all_docs").as_deref(),
        Some("/members")
    );
    // The rows hold no document, even those only read with their documents (members).
    let rows: Vec<_> = pouchdb
        .state()
        .entities
        .iter()
        .filter(|entity| entity.entity_type == list.entity_type)
        .collect();
    assert!(
        rows.iter()
            .any(|row| row.collection == "/members/_all_docs")
    );
    assert!(
        rows.iter().all(|row| row.fields.get("doc").is_none()),
        "a row holds its document"
    );
    // Recorded: the library's rows with documents for a book range and paged by 3 (limit=3
    // there asked for documents, not another representation), the members' rows only with
    // their documents (which lists every row, as the read without them would); never one key's
    // row with its document, a range from another start, a descending range, or a page of the
    // members' rows alone.
    assert_live(
        "pouchdb-server",
        &[
            "GET /library/_all_docs?key=%22book%3Akindred%22&include_docs=true",
            "GET /library/_all_docs?startkey=%22book%3Ak%22&limit=3",
            "GET /library/_all_docs?descending=true&startkey=%22book%3Akindred%22&limit=3",
            "GET /members/_all_docs?limit=2",
        ],
    );
}
