//! The `store-counter` rule on a recorded application: etcd's v3 `kv/put` stamps the pair it
//! writes with the store-wide revision (`mod_revision`), the integer every answer carries in
//! `header.revision` and every write of any key steps by one (`build.har` calls 49 and 52: 7 → 8
//! → 9, the put of an existing key moving its `mod_revision` from 4 to 9).

use crate::state_support::{corpus_write_plans, plan_of};
use serde_json::Value;

#[test]
fn a_put_learns_the_store_revision_its_answer_header_carries() {
    let plans = corpus_write_plans("etcd");
    let put = plan_of(&plans, "post_kv_put");
    let shown = serde_json::to_string_pretty(put).expect("plan");
    let rule = put["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|rule| rule["stage"] == "store-counter")
        .unwrap_or_else(|| panic!("no store-counter rule: {shown}"));
    assert_eq!(
        rule["explains"],
        serde_json::json!(["/mod_revision"]),
        "{shown}"
    );
    assert_eq!(rule["rule"]["counter"], "/header/revision", "{shown}");
    assert_eq!(
        rule["rule"]["fields"],
        serde_json::json!({"/mod_revision": "digits"}),
        "{shown}"
    );
    // The state keeps no store counter yet (nor stamps the range header from one): the put
    // stays withheld rather than answering a stale revision.
    assert_eq!(put["served"], Value::Bool(false), "{shown}");
}
