//! Writes and the lists that show them, on recorded applications: a revision each update moves
//! one past the held value and a sent array stored as one joined string (TiddlyWiki's tiddler
//! `PUT`, the built-in `revision` and `joined-list` rules); a list read at `/x.json` listing
//! collection `/x`, in its learned order, with the members of a nested object shown at the top
//! level and the held entities the list leaves out left out, a filtered list evaluated as a query
//! showing a create (TiddlyWiki); and a list under a parent answered as the entities holding it,
//! a create under it shown (json-server's relation list, `rea_state::relations`).

use crate::state_support;

use serde_json::{Value, json};
use state_support::{Served, serve};

fn call(served: &Served, tool: &str, arguments: Value) -> (Value, bool) {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    served.call(tool, arguments)
}

fn titles(list: &Value) -> Vec<&str> {
    list["body"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|member| member["title"].as_str().expect("a title"))
        .collect()
}

const PUT: &str = "put_recipes_default_tiddlers_by_title";
const ITEM: &str = "get_recipes_default_tiddlers_by_title";
const LIST: &str = "get_recipes_default_tiddlers_json";

#[test]
fn tiddlywiki_puts_count_revisions_join_tags_and_reach_the_ordered_list() {
    let served = serve("tiddlywiki/build.har");
    let plan = served.state().write_plan(PUT).cloned().expect("a plan");
    assert!(plan.served, "{:?}", plan.reason);
    let stages: Vec<(&str, &[String])> = plan
        .rules
        .iter()
        .map(|rule| (rule.stage.as_str(), rule.explains.as_slice()))
        .collect();
    assert!(stages.contains(&("revision", &["/revision".to_owned()][..])));
    assert!(stages.contains(&("joined-list", &["/tags".to_owned()][..])));

    // Before any write, the filtered list answers its recording.
    let filter = json!({"filter": "[tag[Task]]"});
    let (before, error) = call(&served, LIST, filter.clone());
    assert!(!error, "{before}");

    // A create: the tags joined by a space, the one with a space quoted as the held tags show
    // (`Task [[Home and Garden]]`), the first revision the build's creates showed.
    let body = json!({"title": "Plant tulips", "text": "Before the frost.",
        "tags": ["Task", "Home and Garden"], "fields": {"status": "open"}});
    let (written, error) = call(&served, PUT, json!({"title": "Plant tulips", "body": body}));
    assert!(!error, "{written}");
    assert_eq!(written["status"], 204);
    let (read, _) = call(&served, ITEM, json!({"title": "Plant tulips"}));
    assert_eq!(read["body"]["tags"], "Task [[Home and Garden]]", "{read}");
    assert_eq!(read["body"]["revision"], 1);
    // An update moves the revision one past the held value.
    let mut update = body.clone();
    update["text"] = json!("Planted.");
    let (written, error) = call(
        &served,
        PUT,
        json!({"title": "Plant tulips", "body": update}),
    );
    assert!(!error, "{written}");
    let (read, _) = call(&served, ITEM, json!({"title": "Plant tulips"}));
    assert_eq!(read["body"]["revision"], 2, "{read}");
    assert_eq!(read["body"]["text"], "Planted.");

    // The whole list: in title order, the nested `fields` shown at the top level, without the
    // text, and without the system tiddler the build's list left out though an item read held it.
    let (list, error) = call(&served, LIST, json!({}));
    assert!(!error, "{list}");
    let listed = titles(&list);
    assert_eq!(
        listed,
        [
            "Alice Liddell",
            "Bob Marley",
            "Buy milk",
            "Fix the garden fence",
            "Plant tulips",
            "Welcome",
            "Write quarterly report"
        ]
    );
    let tulips = &list["body"][4];
    assert_eq!(tulips["status"], "open", "{tulips}");
    assert!(tulips.get("fields").is_none() && tulips.get("text").is_none());
    assert_eq!(tulips["revision"], 2);

    // The filtered list is a query the state evaluates (the `filter-steps` grammar split it into
    // terms and `tag[…]` was learned as an item of the tags): it shows the new task.
    let (after, error) = call(&served, LIST, filter);
    assert!(!error, "{after}");
    assert_eq!(after["state"]["membership"], "query", "{after}");
    assert_eq!(
        titles(&after),
        [
            "Buy milk",
            "Fix the garden fence",
            "Plant tulips",
            "Write quarterly report"
        ]
    );
}

#[test]
fn a_relation_list_shows_a_create_under_its_parent() {
    // json-server: the build read /posts/1/comments once, whose members all hold the post in
    // `postId` (`rea_state::relations`), and its comment create under a post is served; after
    // it, that list answers from the state with the new comment.
    let served = serve("json-server/build.har");
    let list = "get_posts_comments_by_post_id";
    let (before, error) = call(&served, list, json!({"post_id": "1"}));
    assert!(!error, "{before}");
    let create = "post_posts_comments_by_post_id";
    assert!(
        served
            .state()
            .write_plan(create)
            .is_some_and(|plan| plan.served)
    );
    let (written, error) = call(
        &served,
        create,
        json!({"post_id": "1", "body": {"author": "dana", "body": "Agreed.", "approved": true}}),
    );
    assert!(!error, "{written}");
    let (after, error) = call(&served, list, json!({"post_id": "1"}));
    assert!(!error, "{after}");
    let bodies = |list: &Value| -> Vec<Value> {
        list["body"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|comment| comment["body"].clone())
            .collect()
    };
    let mut expected = bodies(&before);
    expected.push(json!("Agreed."));
    assert_eq!(bodies(&after), expected, "{after}");
    // The whole comments list answers from the state, the new comment in it.
    let (all, error) = call(&served, "get_comments", json!({}));
    assert!(!error, "{all}");
    assert!(
        all["body"]
            .as_array()
            .expect("a list")
            .iter()
            .any(|comment| comment["body"] == "Agreed."),
        "{all}"
    );
}
