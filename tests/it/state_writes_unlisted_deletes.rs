//! A whole list read after a delete that disagrees about another entity it shows still confirms
//! the delete: Roundup's `build.har` retires issue 8 (call 57) and reads every issue's title
//! (call 58), whose issue 7 shows a title the withheld property-document `PUT` (call 42) wrote;
//! the difference is blamed on issue 7's writes, and the retire, whose issue the list no longer
//! shows, is served. And a create's `composed` template takes no held member (a served create
//! holds none before the call): the message create's `link` is not spelled from its `type`.
//! One app: Roundup (no other corpus app's delete is followed only by a list disagreeing about
//! another entity).

use crate::state_support::{Served, corpus_write_plans, plan_of, serve_corpus_app};
use rea_manifest::catalog::ArgumentTarget;
use serde_json::{Map, Value, json};

const DELETE_ISSUE: &str = "delete_rt_rest_data_issue_by_id";
const LIST_ISSUES: &str = "get_rt_rest_data_issue";

#[test]
fn a_retire_is_confirmed_by_a_whole_list_disagreeing_about_another_issue() {
    let plans = corpus_write_plans("roundup");
    let plan = plan_of(&plans, DELETE_ISSUE);
    assert_eq!(plan["served"], true, "{plan:#}");
    assert_eq!(plan["confirmed_by"], json!([58]), "{plan:#}");
}

/// The arguments naming `values` by their captured names (a path parameter's or a query's).
fn arguments(served: &Served, tool: &str, values: &[(&str, &str)]) -> Map<String, Value> {
    let definition = served.replay.tool(tool).expect("the tool");
    let mut arguments = Map::new();
    for argument in &definition.input_schema.arguments {
        let captured = match &argument.target {
            ArgumentTarget::Path { name, .. } | ArgumentTarget::Query { name } => name,
            ArgumentTarget::Body => continue,
        };
        if let Some((_, value)) = values.iter().find(|(name, _)| name == captured) {
            arguments.insert(argument.name.clone(), json!(value));
        }
    }
    assert_eq!(arguments.len(), values.len(), "{values:?}: {definition:#?}");
    arguments
}

#[test]
fn a_served_retire_leaves_the_issue_list() {
    let served = serve_corpus_app("roundup");
    let titles = |served: &Served| {
        let list = arguments(served, LIST_ISSUES, &[("@fields", "title")]);
        let (answer, is_error) = served.call(LIST_ISSUES, list);
        assert!(!is_error, "{answer:#}");
        answer["body"]["data"]["collection"]
            .as_array()
            .expect("a collection")
            .iter()
            .map(|issue| issue["id"].as_str().expect("an id").to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(titles(&served), ["1", "2", "3", "4", "5", "6"]);
    let (answer, is_error) = served.call(
        DELETE_ISSUE,
        arguments(&served, DELETE_ISSUE, &[("id", "6")]),
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer["body"],
        json!({"data": {"status": "ok"}}),
        "{answer:#}"
    );
    assert_eq!(titles(&served), ["1", "2", "3", "4", "5"]);
}

#[test]
fn a_created_message_link_is_no_template_of_a_held_member() {
    let plans = corpus_write_plans("roundup");
    let plan = plan_of(&plans, "post_rt_rest_data_msg");
    assert_eq!(plan["served"], true, "{plan:#}");
    let rules = plan["rules"].as_array().expect("rules");
    for rule in rules.iter().filter(|rule| rule["stage"] == "composed") {
        assert!(
            !rule["explains"]
                .as_array()
                .expect("explains")
                .contains(&json!("/link")),
            "{rule:#}"
        );
        assert!(!rule["rule"].to_string().contains("held:"), "{rule:#}");
    }
}
