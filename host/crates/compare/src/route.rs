//! A probe request as a tool call: the manifest tool it matches, and its arguments with live ids
//! translated to the environment's.
//!
//! A request matches the manifest tool of the same method whose path template has as many
//! segments and fits with the most literal segments, then with no parameter taking a segment
//! outside its format (manifest order breaks ties); a literal segment must equal the request's, a
//! format-rule parameter (`numeric`, `uuid`, `ulid`, `hex`) must fit its format once
//! percent-decoded unless the manifest marks it `any_segment` (an item's id the application
//! answers in any spelling, `rea_manifest`'s `missing_ids.rs`), any other parameter takes a
//! non-empty segment. A tool the manifest marks `trailing_slash_optional` also fits the path with
//! its trailing slash removed or added (`slash_spellings.rs`), after a tool fitting it as spelled.
//!
//! Arguments: each path parameter is the raw segment (the environment decodes it once); each
//! query name the tool records is its argument (a repeated name an array), a name it does not is
//! passed as it is so the schema check refuses it, as it refuses it from an agent; a JSON body is
//! the body argument. Before the call, a live id is translated: a path parameter by the collection
//! the live path names (the segments before it, each decoded once; literal segments stay), then
//! globally; a query value unless its name pages a list (`limit`, `page`, `offset`, …); and the
//! body's identifier fields and `ids` lists.

use rea_manifest::catalog::{Argument, ArgumentTarget};
use rea_manifest::segments::{fused_value, percent_decode, split_path};
use rea_manifest::template::format_rule;
use rea_manifest::{ManifestTool, ToolDefinition};
use serde_json::{Map, Value};

use crate::ids::{IdFields, IdMap, is_id_list};

/// The format rules a parameter's segment must fit.
const FORMAT_RULES: [&str; 4] = ["numeric", "uuid", "ulid", "hex"];

/// Words of a query name that page a list.
const PAGING_WORDS: [&str; 12] = [
    "limit", "page", "offset", "size", "start", "end", "skip", "take", "count", "max", "per",
    "results",
];

/// A segment decoded once (as written when that is not UTF-8).
pub fn decoded(segment: &str) -> String {
    percent_decode(segment).map_or_else(|| segment.to_owned(), |value| value.into_owned())
}

/// The manifest tool a request matches, if any.
pub fn match_tool<'m>(
    tools: &'m [ManifestTool],
    method: &str,
    path: &str,
) -> Option<&'m ManifestTool> {
    let segments = split_path(path);
    let mut best: Option<(Fit, &ManifestTool)> = None;
    for tool in tools {
        if !tool.method.eq_ignore_ascii_case(method) {
            continue;
        }
        let Some(fits) = spelled_fit(tool, &segments) else {
            continue;
        };
        if best.is_none_or(|(score, _)| fits > score) {
            best = Some((fits, tool));
        }
    }
    best.map(|(_, tool)| tool)
}

/// How a tool's template fits a request as spelled, else (a tool whose trailing slash is
/// optional) with its trailing slash removed or added.
fn spelled_fit(tool: &ManifestTool, segments: &[&str]) -> Option<Fit> {
    let template = split_path(&tool.path_template);
    if template.len() == segments.len() {
        return fit(tool, &template, segments);
    }
    if !tool.trailing_slash_optional {
        return None;
    }
    let other = match template.split_last() {
        Some((&"", bare)) => bare.to_vec(),
        _ => [template.as_slice(), &[""]].concat(),
    };
    let fits = (other.len() == segments.len()).then(|| fit(tool, &other, segments))??;
    Some(Fit {
        as_spelled: false,
        ..fits
    })
}

/// How a template fits a request: how many literal segments it fits with, then whether every
/// format-rule parameter fits its format, then whether the path is spelled as the template
/// (ordered: the better fit is the greater).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Fit {
    literal: usize,
    in_format: bool,
    as_spelled: bool,
}

/// How a template fits a request; `None` when it does not fit.
fn fit(tool: &ManifestTool, template: &[&str], segments: &[&str]) -> Option<Fit> {
    let mut fits = Fit {
        literal: 0,
        in_format: true,
        as_spelled: true,
    };
    for (index, (pattern, segment)) in template.iter().zip(segments).enumerate() {
        match tool
            .path_parameters
            .iter()
            .find(|parameter| parameter.segment_index == index)
        {
            Some(parameter) => {
                // A fused parameter fits only a segment with its prefix and suffix.
                let value = parameter.value_in(segment)?;
                if value.is_empty() {
                    return None;
                }
                if FORMAT_RULES.contains(&parameter.rule.as_str())
                    && format_rule(&decoded(value)).map(|rule| rule.name())
                        != Some(parameter.rule.as_str())
                {
                    if !parameter.any_segment {
                        return None;
                    }
                    fits.in_format = false;
                }
            }
            None if pattern == segment => fits.literal += 1,
            None => return None,
        }
    }
    Some(fits)
}

/// Whether a query name pages a list.
pub fn pages(name: &str) -> bool {
    name.split(|character: char| !character.is_ascii_alphanumeric())
        .flat_map(split_camel)
        .any(|word| PAGING_WORDS.contains(&word.as_str()))
}

fn split_camel(word: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    for character in word.chars() {
        if character.is_ascii_uppercase() && words.last().is_some_and(|last| !last.is_empty()) {
            words.push(String::new());
        }
        if let Some(last) = words.last_mut() {
            last.push(character.to_ascii_lowercase());
        }
    }
    words
}

/// The collection a path names up to a segment: `/` and the segments before it, each decoded
/// once.
pub fn collection_before(segments: &[&str], index: usize) -> String {
    let mut collection = String::new();
    for segment in &segments[..index] {
        collection.push('/');
        collection.push_str(&decoded(segment));
    }
    collection
}

/// The collection a call names: the path before its last parameter when the template ends in
/// one (an item), else the whole path (a list, a create), decoded once.
pub fn call_collection(tool: &ManifestTool, path: &str) -> String {
    let segments = split_path(path);
    let last = segments.len().saturating_sub(1);
    let item = tool
        .path_parameters
        .iter()
        .any(|parameter| parameter.segment_index == last);
    collection_before(&segments, if item { last } else { segments.len() })
}

/// Percent-encodes what a path segment cannot carry as it is.
fn encode_segment(value: &str) -> String {
    const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~')
        .remove(b':')
        .remove(b'@')
        .remove(b'$');
    percent_encoding::utf8_percent_encode(value, SEGMENT).to_string()
}

/// What a probe request sends: path, query pairs (decoded) and JSON body.
#[derive(Debug, Clone, Default)]
pub struct Request<'r> {
    /// The path as recorded.
    pub path: &'r str,
    /// The decoded query pairs, in order.
    pub pairs: Vec<(String, String)>,
    /// The body: JSON, or text that is not JSON.
    pub body: Option<Value>,
}

/// The tool argument a query parameter is sent as, when the schema declares one.
fn query_argument<'d>(definition: &'d ToolDefinition, name: &str) -> Option<&'d Argument> {
    definition.input_schema.arguments.iter().find(
        |argument| matches!(&argument.target, ArgumentTarget::Query { name: captured } if captured == name),
    )
}

/// The names of a call's `arguments` in the order an agent writing the request's query as it was
/// sent would write them: the path's and the body's first, then the query's in the order of its
/// pairs (a repeated parameter where it was first sent).
pub fn sent_order(
    definition: &ToolDefinition,
    request: &Request<'_>,
    arguments: &Map<String, Value>,
) -> Vec<String> {
    let mut query: Vec<String> = Vec::new();
    for (name, _) in &request.pairs {
        let argument = query_argument(definition, name)
            .map_or_else(|| name.clone(), |argument| argument.name.clone());
        if !query.contains(&argument) {
            query.push(argument);
        }
    }
    let mut order: Vec<String> = (arguments.keys())
        .filter(|name| !query.contains(name))
        .cloned()
        .collect();
    order.extend(query);
    order
}

/// A call's arguments with live ids translated (see the module docs).
pub fn arguments(
    definition: &ToolDefinition,
    request: &Request<'_>,
    ids: &IdMap,
    fields: &IdFields,
) -> Map<String, Value> {
    let segments = split_path(request.path);
    let mut arguments = Map::new();
    for argument in &definition.input_schema.arguments {
        if let ArgumentTarget::Path {
            segment_index,
            prefix,
            suffix,
            ..
        } = &argument.target
            && let Some(segment) = segments.get(*segment_index)
        {
            // A fused parameter's argument is the value between its prefix and suffix.
            let segment = fused_value(prefix, suffix, segment).unwrap_or(segment);
            let collection = collection_before(&segments, *segment_index);
            let live = decoded(segment);
            let value = match ids.lookup(Some(&collection), &live) {
                Some(env) if env != live => encode_segment(env),
                _ => segment.to_owned(),
            };
            arguments.insert(argument.name.clone(), Value::String(value));
        }
    }
    let mut query: Vec<(String, Vec<Value>)> = Vec::new();
    for (name, value) in &request.pairs {
        let declared = query_argument(definition, name);
        let argument = declared.map_or_else(|| name.clone(), |argument| argument.name.clone());
        let value = if pages(name) {
            value.clone()
        } else {
            ids.lookup(None, value).unwrap_or(value).to_owned()
        };
        // Sent as the tool's schema types it (`_page=2` as the integer 2), as an agent would.
        let value = declared.map_or(Value::String(value.clone()), |argument| {
            argument.schema.kind.recorded_value(&value)
        });
        match query.iter_mut().find(|(known, _)| *known == argument) {
            Some((_, values)) => values.push(value),
            None => query.push((argument, vec![value])),
        }
    }
    for (name, mut values) in query {
        let value = if values.len() == 1 {
            values.remove(0)
        } else {
            Value::Array(values)
        };
        arguments.insert(name, value);
    }
    if let Some(body) = &request.body {
        let name = definition
            .input_schema
            .arguments
            .iter()
            .find(|argument| argument.target == ArgumentTarget::Body)
            .map_or_else(|| "body".to_owned(), |argument| argument.name.clone());
        arguments.insert(name, translate_body(body, "", ids, fields));
    }
    arguments
}

/// A request body with the live ids at its identifier fields and id lists translated.
pub fn translate_body(value: &Value, member: &str, ids: &IdMap, fields: &IdFields) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, item)| (key.clone(), translate_body(item, key, ids, fields)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| translate_body(item, member, ids, fields))
                .collect(),
        ),
        scalar if fields.is_identifier(member) || is_id_list(member) => ids.translate(None, scalar),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paging_names_are_recognised_by_their_words() {
        for name in [
            "limit",
            "_limit",
            "page",
            "_page",
            "per_page",
            "pageSize",
            "offset",
            "max_results",
            "_start",
            "_end",
        ] {
            assert!(pages(name), "{name}");
        }
        for name in ["author", "postId", "q", "status", "_sort", "id"] {
            assert!(!pages(name), "{name}");
        }
    }

    #[test]
    fn collections_are_named_by_the_decoded_segments_before_the_id() {
        let segments = split_path("/bags/my%20bag/tiddlers/Buy%20milk");
        assert_eq!(collection_before(&segments, 3), "/bags/my bag/tiddlers");
        assert_eq!(encode_segment("Buy milk/2"), "Buy%20milk%2F2");
        assert_eq!(encode_segment("a3b9e2f0-7c1d"), "a3b9e2f0-7c1d");
    }

    use crate::fixtures::{environment, record};

    fn catalog() -> Vec<rea_plugin_api::contracts::capture::CaptureRecord> {
        vec![
            record(0, "GET", "/posts/1", 200, r#"{"id": 1}"#),
            record(1, "GET", "/posts/2", 200, r#"{"id": 2}"#),
            record(2, "GET", "/posts/latest", 200, r#"{"id": 2}"#),
            record(3, "GET", "/posts/1/comments?_limit=2&author=a", 200, "[]"),
            record(4, "GET", "/posts/2/comments", 200, "[]"),
            record(
                5,
                "GET",
                "/runs/5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11",
                200,
                "{}",
            ),
            record(
                6,
                "GET",
                "/runs/a3b9e2f0-7c1d-4e85-b6a2-0f9c3d4e5a22",
                200,
                "{}",
            ),
            record(7, "POST", "/posts", 201, r#"{"id": 3}"#),
        ]
    }

    #[test]
    fn requests_match_the_tool_with_the_most_literal_segments() {
        let (manifest, _) = environment(&catalog());
        let name = |method: &str, path: &str| {
            match_tool(&manifest.tools, method, path).map(|tool| tool.name.clone())
        };
        // contract: COMPARE-009
        assert_eq!(
            name("GET", "/posts/latest").as_deref(),
            Some("get_posts_latest")
        );
        assert_eq!(name("GET", "/posts/77").as_deref(), Some("get_posts_by_id"));
        assert_eq!(name("POST", "/posts/77"), None);
        assert_eq!(name("DELETE", "/posts"), None);
        assert_eq!(name("GET", "/posts/77/comments/3"), None);
        // contract: COMPARE-010
        assert_eq!(name("GET", "/posts/seven"), None);
        assert_eq!(
            name("GET", "/posts/%37%37").as_deref(),
            Some("get_posts_by_id")
        );
        assert_eq!(
            name("GET", "/runs/c7e1f4a2-9b3d-4f60-8e17-2a5b6c7d8e33").as_deref(),
            Some("get_runs_by_id")
        );
        assert_eq!(name("GET", "/runs/not-a-uuid"), None);
    }

    #[test]
    fn live_ids_are_translated_into_paths_queries_and_bodies() {
        let records = catalog();
        let (manifest, environment) = environment(&records);
        let mut ids = IdMap::default();
        ids.learn(Some("/posts"), &json!(1), &json!(7));
        ids.learn(None, &json!("a"), &json!("z"));
        ids.learn(None, &json!("2"), &json!("9"));
        let call = |path: &str, pairs: &[(&str, &str)], body: Option<Value>| {
            let tool = match_tool(
                &manifest.tools,
                if body.is_some() { "POST" } else { "GET" },
                path,
            )
            .unwrap();
            let definition = environment.tool(&tool.name).unwrap();
            arguments(
                definition,
                &Request {
                    path,
                    pairs: pairs
                        .iter()
                        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                        .collect(),
                    body,
                },
                &ids,
                &IdFields::default(),
            )
        };
        // contract: COMPARE-023, COMPARE-024
        assert_eq!(
            Value::Object(call("/posts/1", &[], None)),
            json!({"id": "7"})
        );
        // A path value is passed raw: the environment decodes it once.
        // contract: COMPARE-011
        assert_eq!(
            Value::Object(call("/posts/%31%32", &[], None)),
            json!({"id": "%31%32"})
        );
        // The nested collection keeps its parent value; the query translates except paging.
        // contract: COMPARE-025
        let nested = call(
            "/posts/1/comments",
            &[("author", "a"), ("_limit", "2")],
            None,
        );
        // The paging value is sent as the tool's schema types it (integer, as recorded).
        // contract: COMPARE-027
        assert_eq!(
            Value::Object(nested),
            json!({"post_id": "7", "author": "z", "_limit": 2})
        );
        // A literal segment is never translated, even when it spells a mapped id.
        // contract: COMPARE-026
        let mut literal = IdMap::default();
        literal.learn(None, &json!("latest"), &json!("9"));
        let tool = match_tool(&manifest.tools, "GET", "/posts/latest").unwrap();
        let latest = arguments(
            environment.tool(&tool.name).unwrap(),
            &Request {
                path: "/posts/latest",
                pairs: Vec::new(),
                body: None,
            },
            &literal,
            &IdFields::default(),
        );
        assert!(latest.is_empty());
        // contract: COMPARE-023
        assert_eq!(
            Value::Object(call(
                "/posts",
                &[],
                Some(json!({"postId": 2, "title": "2"}))
            )),
            json!({"body": {"postId": 9, "title": "2"}})
        );
    }

    #[test]
    fn bodies_translate_identifier_fields_only() {
        let mut ids = IdMap::default();
        ids.learn(None, &json!(7), &json!(5));
        let translated = translate_body(
            &json!({"postId": 7, "views": 7, "ids": [7, 8], "nested": {"user_id": "7"}}),
            "",
            &ids,
            &IdFields::default(),
        );
        // contract: COMPARE-074
        assert_eq!(
            translated,
            json!({"postId": 5, "views": 7, "ids": [5, 8], "nested": {"user_id": "5"}})
        );
    }
}
