//! Ids of another spelling at an item route (issue 12): an item route whose recorded ids all fit
//! a format rule (`/users/{numeric}`) takes any one segment at its id where the recording shows
//! what the application answers for an id it does not hold and no literal route could be
//! shadowed.
//!
//! json-server answers `GET /users/abc` with the `404 {}` it answered for the deleted
//! `/posts/6`: to the application a word where an integer id goes is an id it does not hold. The
//! parameter is marked `any_segment` (its template, rule and input schema unchanged: a numeric
//! id's schema takes a string already), so the comparer routes such a request to the item tool,
//! and the state answers the call as it answers any id it does not hold (its recorded missing
//! answer, its own or its sibling items', `rea_state`'s `missing.rs`). A parameter is marked when
//!
//! 1. it is the id of an item route of a recorded tool: a whole segment holding a format rule's
//!    value (`numeric`, `uuid`, `ulid`, `hex`), the route's last segment or the one before a
//!    trailing empty segment (`/api/tasks/{numeric}/`), below a literal collection segment;
//! 2. the tool answered a `404` or `410`, or, with sibling transfer on (`[manifest]
//!    sibling_transfer`, under which the state lends an item view its sibling item views' missing
//!    answer), a recorded item route of the same method on a sibling collection (the templates
//!    equal but for the collection segment) did;
//! 3. no route of the recording on the primary origin (a tool or an excluded group, any method)
//!    holds a literal word at the id's position below that collection or a sibling collection:
//!    such words name routes of their own (PiccoloCRUD's `/api/tasks/count/` beside
//!    `/api/tasks/{numeric}/`), and one not recorded (`/api/people/count/`) would be shadowed.

use std::collections::{BTreeMap, BTreeSet};

use crate::manifest::{ExcludedGroup, ManifestTool};
use crate::projection::FORMAT_RULES;
use crate::segments::split_path;

/// The statuses that show an id the application does not hold.
const MISSING_STATUSES: [u16; 2] = [404, 410];

/// A template segment: its literal text, or `None` for a parameter.
type Token<'a> = Option<&'a str>;

/// A template's segments as tokens.
fn tokens(template: &str) -> Vec<Token<'_>> {
    split_path(template)
        .into_iter()
        .map(|segment| (!segment.contains('{')).then_some(segment))
        .collect()
}

/// Whether a token is a literal word (not a parameter, not the empty segment of a trailing
/// slash).
fn is_word(token: Token<'_>) -> bool {
    token.is_some_and(|text| !text.is_empty())
}

/// Where an item template's id sits: its last segment, or the one before a trailing empty
/// segment, when that is a parameter below a literal collection segment.
fn id_position(tokens: &[Token<'_>]) -> Option<usize> {
    let last = tokens.len().checked_sub(1)?;
    let position = if tokens[last] == Some("") {
        last.checked_sub(1)?
    } else {
        last
    };
    let below_collection = position >= 1 && is_word(tokens[position - 1]);
    (tokens[position].is_none() && below_collection).then_some(position)
}

/// An item route of a recorded tool whose id holds a format rule's whole segment: the tool's
/// index, the id's segment index and the template's tokens.
struct ItemRoute<'a> {
    tool: usize,
    position: usize,
    tokens: Vec<Token<'a>>,
}

impl ItemRoute<'_> {
    /// The key its sibling collections' item routes share: the method and the tokens, the
    /// collection segment left out.
    fn sibling_key(&self, method: &str) -> (String, usize, Vec<Token<'_>>) {
        let mut others = self.tokens.clone();
        others[self.position - 1] = None;
        (method.to_ascii_uppercase(), self.position, others)
    }

    /// The tokens above its collection and the id's position: the key a literal word at that
    /// position below any collection there blocks.
    fn family_key(&self) -> (Vec<Token<'_>>, usize) {
        (self.tokens[..self.position - 1].to_vec(), self.position)
    }
}

/// The item routes of recorded tools whose id is a format rule's whole segment.
fn item_routes(tools: &[ManifestTool]) -> Vec<ItemRoute<'_>> {
    tools
        .iter()
        .enumerate()
        .filter(|(_, tool)| tool.inferred_from.is_none())
        .filter_map(|(index, tool)| {
            let tokens = tokens(&tool.path_template);
            let position = id_position(&tokens)?;
            let parameter = tool.path_parameter(position)?;
            let formatted = FORMAT_RULES.contains(&parameter.rule.as_str());
            (formatted && !parameter.is_fused()).then_some(ItemRoute {
                tool: index,
                position,
                tokens,
            })
        })
        .collect()
}

/// The families (tokens above a collection, position below it) in which some route of the
/// recording holds a literal word below a literal collection segment.
fn families_with_words<'a>(
    tools: &'a [ManifestTool],
    excluded: &'a [ExcludedGroup],
) -> BTreeSet<(Vec<Token<'a>>, usize)> {
    let primary_excluded = excluded
        .iter()
        .filter(|group| group.reason != "other-origin")
        .filter_map(|group| group.path_template.as_deref());
    let templates = tools
        .iter()
        .map(|tool| tool.path_template.as_str())
        .chain(primary_excluded);
    let mut families = BTreeSet::new();
    for template in templates {
        let tokens = tokens(template);
        for position in 1..tokens.len() {
            if is_word(tokens[position - 1]) && is_word(tokens[position]) {
                families.insert((tokens[..position - 1].to_vec(), position));
            }
        }
    }
    families
}

/// Whether a tool recorded an answer showing an id the application does not hold.
fn answered_missing(tool: &ManifestTool) -> bool {
    tool.statuses
        .iter()
        .any(|status| MISSING_STATUSES.contains(status))
}

/// Marks `any_segment` on the id parameters of the item routes that take an id of another
/// spelling (see the module docs); `siblings_lend`: whether a sibling collection's item route's
/// missing answer counts (sibling transfer on).
pub(crate) fn mark_any_segment_ids(
    tools: &mut [ManifestTool],
    excluded: &[ExcludedGroup],
    siblings_lend: bool,
) {
    let marked: Vec<(usize, usize)> = {
        let routes = item_routes(tools);
        let mut family_missing: BTreeMap<(String, usize, Vec<Token<'_>>), bool> = BTreeMap::new();
        for route in &routes {
            let tool = &tools[route.tool];
            *family_missing
                .entry(route.sibling_key(&tool.method))
                .or_default() |= answered_missing(tool);
        }
        let shows_missing = |route: &ItemRoute<'_>| {
            let tool = &tools[route.tool];
            answered_missing(tool)
                || (siblings_lend && family_missing[&route.sibling_key(&tool.method)])
        };
        let worded = families_with_words(tools, excluded);
        routes
            .iter()
            .filter(|route| shows_missing(route))
            .filter(|route| !worded.contains(&route.family_key()))
            .map(|route| (route.tool, route.position))
            .collect()
    };
    for (tool, position) in &marked {
        let parameters = &mut tools[*tool].path_parameters;
        if let Some(parameter) = parameters
            .iter_mut()
            .find(|parameter| parameter.segment_index == *position)
        {
            parameter.any_segment = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::templated_tool;

    fn tool(method: &str, template: &str, statuses: &[u16]) -> ManifestTool {
        let mut tool = templated_tool(method, template, template, "q", &[0]);
        tool.statuses = statuses.to_vec();
        tool
    }

    fn marked(tools: &mut [ManifestTool], excluded: &[ExcludedGroup]) -> Vec<String> {
        mark_any_segment_ids(tools, excluded, true);
        tools
            .iter()
            .filter(|tool| {
                tool.path_parameters
                    .iter()
                    .any(|parameter| parameter.any_segment)
            })
            .map(|tool| format!("{} {}", tool.method, tool.path_template))
            .collect()
    }

    #[test]
    fn an_item_route_whose_family_answered_a_missing_id_takes_any_segment() {
        let mut tools = vec![
            tool("GET", "/posts/{numeric}", &[200, 404]),
            tool("GET", "/users/{numeric}", &[200]),
            tool("GET", "/posts/{numeric}/comments", &[200]),
            tool("PATCH", "/posts/{numeric}", &[200]),
            tool("GET", "/profile", &[200]),
        ];
        assert_eq!(
            marked(&mut tools, &[]),
            ["GET /posts/{numeric}", "GET /users/{numeric}"]
        );
        // The route below the item keeps its format.
        assert!(!tools[2].path_parameters[0].any_segment);
    }

    #[test]
    fn without_sibling_transfer_only_the_tools_own_missing_answer_counts() {
        let mut tools = vec![
            tool("GET", "/posts/{numeric}", &[200, 404]),
            tool("GET", "/users/{numeric}", &[200]),
        ];
        mark_any_segment_ids(&mut tools, &[], false);
        assert!(tools[0].path_parameters[0].any_segment);
        assert!(!tools[1].path_parameters[0].any_segment);
    }

    #[test]
    fn a_trailing_slash_item_counts_and_a_literal_word_beside_it_blocks_its_family() {
        let mut tools = vec![
            tool("GET", "/api/tasks/{numeric}/", &[200, 404]),
            tool("GET", "/api/people/{numeric}/", &[404]),
            tool("GET", "/api/v2/books/{uuid}/", &[404]),
        ];
        let excluded = [ExcludedGroup {
            method: Some("GET".into()),
            origin: None,
            path_template: Some("/api/people/count/".into()),
            reason: "page-or-asset".into(),
            record_ordinals: vec![3],
        }];
        assert_eq!(marked(&mut tools, &excluded), ["GET /api/v2/books/{uuid}/"]);
    }

    #[test]
    fn other_rules_inferred_tools_and_unanswered_families_are_left_alone() {
        let mut inferred = tool("GET", "/teams/{numeric}", &[404]);
        inferred.inferred_from = Some("get_posts".into());
        let mut tools = vec![
            tool("GET", "/posts/{opaque-token}", &[404]),
            tool("GET", "/comments/{numeric}", &[200, 400]),
            inferred,
            tool("GET", "/{numeric}", &[404]),
        ];
        assert!(marked(&mut tools, &[]).is_empty());
    }
}
