//! A created member spelled from the value another rule generates in the same create:
//! Roundup's issue creates (`build.har` calls 27 and 54) answer `{"data": {"id", "link"}}`, the
//! link the item's URL ending in the id the sequence generates. `composed` learns it as the
//! template `…/issue/{made:id}` (a source naming another rule's generated member, placed only as
//! a whole token, so the `7` of `127.0.0.1` is not taken), and the host calls it after the
//! sequence. The create is no longer withheld for an unexplained link: since the issue's item
//! view holds it flat (`rea_state::nesting`), the item read after it shows what the create
//! stored of the sent properties, and it is withheld for those (`unexplained-change`: links sent
//! by name stored as `{id, link}` references, the `nosy` an auditor fills), which no rule
//! explains yet. One app: Roundup.

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
    assert_eq!(stages, ["sequence", "composed"], "{plan:#}");
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
    assert_eq!(plan["reason"], "unexplained-change", "{plan:#}");
}
