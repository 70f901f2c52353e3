//! A tool call's arguments, resolved against its tool's input schema: the path segments, query
//! values and body it names (read and write answers both start from it).

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::BTreeMap;

use rea_manifest::ToolDefinition;
use rea_manifest::catalog::ArgumentTarget;
use rea_manifest::segments::{fused_segment, split_path};
use rea_plugin_api::query_lists::{fold_indexed, folded_list};
use serde_json::{Map, Value};

/// A tool call's arguments, resolved.
#[derive(Debug, Default)]
pub(crate) struct Call {
    /// Segment index → the segment the value makes (a fused parameter's value between its
    /// prefix and suffix, as recorded paths spell it).
    pub(crate) path: BTreeMap<usize, String>,
    /// Captured query name → values.
    pub(crate) query: Vec<(String, Vec<String>)>,
    /// The body argument, when given.
    pub(crate) body: Option<Value>,
    /// The query pairs as sent, when an answer reshaping the call left some out (a field
    /// selection): what links to pages repeat.
    pub(crate) sent: Option<Vec<(String, String)>>,
    /// Whether the call is what a reshaping answer left of a call whose pages link every pair
    /// as sent (a sparse fieldset, [`crate::sparse`]): a plain line's recorded links do not
    /// answer it.
    pub(crate) relink: bool,
    /// The query names in the order the caller sent its arguments, when it is known (see
    /// [`crate::query_order::in_sent_order`]).
    pub(crate) order: Option<Vec<String>>,
}

impl Call {
    /// The call with another query, answered for a reshaping answer: the pairs as sent are
    /// kept (what links to pages repeat), and `relink` says whether plain lines' recorded links
    /// may answer it.
    pub(crate) fn reshaped(&self, query: Vec<(String, Vec<String>)>, relink: bool) -> Call {
        Call {
            path: self.path.clone(),
            query,
            body: self.body.clone(),
            sent: Some(self.sent.clone().unwrap_or_else(|| self.pairs())),
            relink,
            order: self.order.clone(),
        }
    }

    pub(crate) fn resolve(definition: &ToolDefinition, arguments: &Map<String, Value>) -> Self {
        let mut call = Call::default();
        for (name, value) in arguments {
            let Some(argument) = definition.input_schema.argument(name) else {
                continue;
            };
            match &argument.target {
                ArgumentTarget::Path {
                    segment_index,
                    prefix,
                    suffix,
                    ..
                } => {
                    if let Some(text) = rea_manifest::replay::path_text(value) {
                        call.path
                            .insert(*segment_index, fused_segment(prefix, &text, suffix));
                    }
                }
                ArgumentTarget::Query { name } => {
                    let values = rea_manifest::replay::query_texts(value).unwrap_or_default();
                    // A list name's values, as the recorded lines read them (one comma list).
                    call.query.push(
                        folded_list(name, &values)
                            .map(|(base, list)| (base, vec![list]))
                            .unwrap_or_else(|| (name.clone(), values)),
                    );
                }
                ArgumentTarget::Body => call.body = Some(value.clone()),
            }
        }
        // An indexed name's run, as the recorded lines read it (one comma list).
        call.query = fold_indexed(std::mem::take(&mut call.query));
        // A field selection spelled as flags, as the recorded lines read it.
        call.query = rea_plugin_api::query_lists::fold_flags(
            std::mem::take(&mut call.query),
            crate::query::is_projection,
        );
        call
    }

    /// The query names the arguments named in `sent` (in the order the caller sent them) stand
    /// for: a query argument's parameter, an argument the schema does not name as itself; path
    /// and body arguments name none.
    pub(crate) fn sent_names(definition: &ToolDefinition, sent: &[String]) -> Vec<String> {
        sent.iter()
            .filter_map(|name| match definition.input_schema.argument(name) {
                None => Some(name.clone()),
                Some(argument) => match &argument.target {
                    ArgumentTarget::Query { name } => Some(name.clone()),
                    _ => None,
                },
            })
            .collect()
    }

    /// The path the call names: the template with its parameters replaced.
    pub(crate) fn segments(&self, template: &str) -> Vec<CompactString> {
        split_path(template)
            .into_iter()
            .enumerate()
            .map(|(index, segment)| {
                self.path
                    .get(&index)
                    .map_or_else(|| segment.into(), |value| value.as_str().into())
            })
            .collect()
    }

    pub(crate) fn repeated(&self) -> bool {
        self.query.iter().any(|(_, values)| values.len() != 1)
    }

    /// The query pairs, a repeated name's values each a pair in the order given
    /// (`order_by=-genre&order_by=title`).
    pub(crate) fn pairs(&self) -> Vec<(String, String)> {
        (self.query.iter())
            .flat_map(|(name, values)| values.iter().map(|value| (name.clone(), value.clone())))
            .collect()
    }

    /// Whether every name the call repeats is one the list's query model lets repeat (see
    /// [`crate::model::QueryModel::repeated_sort`]).
    pub(crate) fn repeats_only(&self, model: &crate::model::QueryModel) -> bool {
        (self.query.iter())
            .filter(|(_, values)| values.len() != 1)
            .all(|(name, values)| {
                !values.is_empty() && model.role(name).is_some_and(|role| model.repeats(role))
            })
    }

    /// The reason of the first `projected_query_keys` key the call matches: a parameter it
    /// names (`name`), a value it gives (`name=value`), or a parameter it leaves out (`!name`).
    pub(crate) fn projected<'a>(&self, keys: &'a BTreeMap<String, String>) -> Option<&'a str> {
        if keys.is_empty() {
            return None;
        }
        self.query
            .iter()
            .find_map(|(name, values)| {
                keys.get(name).or_else(|| {
                    values
                        .iter()
                        .find_map(|value| keys.get(&format!("{name}={value}")))
                })
            })
            .or_else(|| {
                keys.iter().find_map(|(key, reason)| {
                    let left_out = key.strip_prefix('!')?;
                    (!self.query.iter().any(|(name, _)| name == left_out)).then_some(reason)
                })
            })
            .map(String::as_str)
    }
}
