//! A created member spelled from the value another rule generates in the same create:
//! Roundup's issue creates (`build.har` calls 27 and 54) answer `{"data": {"id", "link"}}`, the
//! link the item's URL ending in the id the sequence generates. `composed` learns it as the
//! template `…/issue/{made:id}` (a source naming another rule's generated member, placed only as
//! a whole token, so the `7` of `127.0.0.1` is not taken), and the host calls it after the
//! sequence. The create is served: the issue's item view holds it flat (`rea_state::nesting`),
//! the links sent by name are stored as `{id, link}` references, and the `nosy` an auditor
//! fills is the `collected` rule's list of the sent assignee. One app: Roundup.

use crate::state_support::{corpus_write_plans, plan_of};
use serde_json::json;

#[test]
fn a_created_issue_link_is_composed_from_the_generated_id() {
    let plans = corpus_write_plans("roundup");
    let plan = plan_of(&plans, "post_rt_rest_data_issue");
    let rules = plan["rules"].as_array().expect("rules");
    let stages: Vec<&str> = rules
        .iter()
        .filter_map(|rule| rule["stage"].as_str())
        .collect();
    assert_eq!(stages, ["sequence", "composed", "collected"], "{plan:#}");
    let composed = &rules[1];
    assert_eq!(composed["explains"], json!(["/link"]), "{composed:#}");
    assert_eq!(composed["rule"]["earlier"], true, "{composed:#}");
    assert_eq!(
        composed["rule"]["fields"]["/link"],
        json!([
            {"text": "http://127.0.0.1:18841/rt/rest/data/issue/"},
            {"source": "made:id"}
        ]),
        "{composed:#}"
    );
    assert_eq!(plan["served"], true, "{plan:#}");
}
