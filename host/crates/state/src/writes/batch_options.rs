//! Options a create tool's batch calls sent beside their array, accepted beside the one-object
//! envelope too. A create tool whose calls send one object (`{"row": {…}}`) or a batch
//! (`{"rows": [{…}, {…}], "return": true}`) is learned from its one-object calls
//! ([`super::learn`]); the scalar members the batch calls sent beside their array are options of
//! the tool's body, not of one of its two forms, so a one-object call may send them too. Such an
//! option stores nothing (no held entity's field is named so) and, as no one-object call sent it,
//! the one-object call is answered as the recorded one-object calls were.

use std::collections::BTreeMap;

use rea_plugin_api::json::Json;

use super::model::{BodyModel, MemberModel};

/// Adds to `body`'s options the scalar members the `batches` (the request bodies of the tool's
/// batch calls) sent beside their array, each with the JSON types sent, none required. Only a
/// body whose envelope is one top-level member takes them (the options sit beside it), and only
/// names that are neither a member the envelope sends nor the envelope itself.
pub(super) fn adopt(body: &mut BodyModel, batches: &[&Json]) {
    let Some(envelope) = body
        .envelope
        .strip_prefix('/')
        .filter(|rest| !rest.is_empty() && !rest.contains('/'))
        .map(rea_plugin_api::json::unescape_pointer_segment)
    else {
        return;
    };
    for (name, kinds) in beside_arrays(batches) {
        if name == envelope || body.members.contains_key(&name) {
            continue;
        }
        let option = body.options.entry(name).or_insert(MemberModel {
            types: Vec::new(),
            required: false,
            fixed: None,
        });
        for kind in kinds {
            if !option.types.contains(&kind) {
                option.types.push(kind);
            }
        }
        option.types.sort();
    }
}

/// The scalar members the object bodies sent beside their one array member, by name: the JSON
/// types sent.
fn beside_arrays(batches: &[&Json]) -> BTreeMap<String, Vec<String>> {
    let mut options: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for object in batches.iter().filter_map(|body| body.as_object()) {
        if object
            .iter()
            .filter(|(_, value)| matches!(value, Json::Array(_)))
            .count()
            != 1
        {
            continue;
        }
        for (name, value) in object.iter() {
            if matches!(value, Json::Array(_) | Json::Object(_)) {
                continue;
            }
            let kinds = options.entry(name.to_owned()).or_default();
            let kind = value.type_name().to_owned();
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json;

    fn row_body() -> BodyModel {
        let member = MemberModel {
            types: vec!["string".to_owned()],
            required: true,
            fixed: None,
        };
        BodyModel {
            envelope: "/row".to_owned(),
            members: [("title".to_owned(), member)].into_iter().collect(),
            ..BodyModel::default()
        }
    }

    #[test]
    fn a_batch_option_is_accepted_beside_the_one_object_envelope() {
        let mut body = row_body();
        let batch = parsed_json(r#"{"rows": [{"title": "a"}, {"title": "b"}], "return": true}"#);
        adopt(&mut body, &[&batch]);
        let names: Vec<&String> = body.options.keys().collect();
        assert_eq!(names, vec!["return"]);
        assert_eq!(body.options["return"].types, vec!["boolean".to_owned()]);
        assert!(!body.options["return"].required);
        // The serving check takes it off the body as an option sent as recorded.
        let sent = body.sent_options(Some(&parsed_json(
            r#"{"row": {"title": "c"}, "return": true}"#,
        )));
        assert_eq!(sent.get("return"), Some(&Json::Bool(true)));
    }

    #[test]
    fn members_the_envelope_sends_and_nested_values_are_no_options() {
        let mut body = row_body();
        let batch = parsed_json(r#"{"rows": [{"title": "a"}], "title": "x", "meta": {"a": 1}}"#);
        adopt(&mut body, &[&batch]);
        assert!(body.options.is_empty());
        // A body holding two arrays is no batch beside options.
        let two = parsed_json(r#"{"rows": [{"title": "a"}], "more": [], "return": true}"#);
        adopt(&mut body, &[&two]);
        assert!(body.options.is_empty());
    }

    #[test]
    fn a_body_sent_whole_or_nested_deeper_takes_no_options() {
        let batch = parsed_json(r#"{"rows": [{"title": "a"}], "return": true}"#);
        for envelope in ["", "/data/attributes"] {
            let mut body = BodyModel {
                envelope: envelope.to_owned(),
                ..row_body()
            };
            adopt(&mut body, &[&batch]);
            assert!(body.options.is_empty(), "{envelope}");
        }
    }
}
