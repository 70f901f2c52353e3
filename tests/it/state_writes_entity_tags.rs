//! The `token` rule on an entity tag a body repeats: Roundup's items carry `@etag`, the `ETag`
//! header's quoted HMAC (`"46359978…"`), which every write renews. `build.har`'s message create
//! (call 30) learns it as a fresh 32-hex-digit token spelled between double quotes. One app:
//! Roundup (no other corpus application repeats its entity tag in a body).

use crate::state_support::{corpus_write_plans, plan_of, rule_of};
use serde_json::json;

#[test]
fn a_quoted_entity_tag_in_the_body_is_a_generated_token() {
    let plans = corpus_write_plans("roundup");
    let plan = plan_of(&plans, "post_rt_rest_data_msg");
    let token = rule_of(plan, "token");
    assert_eq!(token["explains"], json!(["/@etag"]), "{token:#}");
    assert_eq!(
        token["rule"]["fields"]["/@etag"],
        json!({"alphabet": "hex", "length": 32, "quoted": true}),
        "{token:#}"
    );
}
