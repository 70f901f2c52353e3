//! Path templating: which recorded path segments are parameters, and by which rule.
//!
//! The built-in format rules always apply, segment by segment, to the percent-decoded segment:
//! `numeric` (digits only), `uuid` (8-4-4-4-12 hex), `ulid` (26 Crockford base-32 characters
//! with letters and digits) and `hex` (at least 8 hex digits of one case, with a digit and a
//! letter). The opt-in rules then apply in this fixed order when the view names them, each to
//! the segments still literal:
//!
//! 1. `after-uid-literal`: the segment after a literal `uid` segment (`/dashboards/uid/{…}`).
//! 2. `opaque-token`: a segment shaped like a generated token: 8 to 255 characters of
//!    `[A-Za-z0-9_-]` with letters and at least two separate digit runs (`bdvgx0xr3zmyoc`), or at
//!    least 6 letters of which under a quarter are vowels, mixing cases or holding a digit
//!    (`nErXDvCkzz`). Words and identifiers in code style (`getUserById`, `oauth2callback`) are
//!    not tokens.
//! 3. `sibling-variance`: among paths of the same length that are equal except at one position
//!    (any method), a position holding at least two distinct literal values, each of which some
//!    recorded 2xx JSON response echoes (a scalar member, at the root or one envelope level down,
//!    equal to the decoded segment: `/tiddlers/Welcome` answers `{"title": "Welcome"}`; a `type`
//!    member beside an `id`, a resource identifier's type such as `/data/issue/7` answering
//!    `{"data": {"id": "7", "type": "issue"}}`, names the collection, not the item). Values
//!    that echo, and values none of whose records answered 2xx JSON (a `PUT` answering 204),
//!    become parameters; values whose 2xx JSON answers do not echo them stay literal. Ids of the
//!    same family that a format rule took join that parameter when their answers echo them too
//!    (or answered no JSON): one collection's ids in two shapes (`101` and `728c`) are one
//!    parameter, not a tool per shape; so are ids a format rule and the opaque-token rule took
//!    apart (seeded numbers beside generated tokens: `7` and `gyDs1uK9iu2Ivm3`), whose answers
//!    echo them too. Repeated until nothing changes. Then a route below an item route
//!    (`/people/{…}/tasks` below `/people/{…}`) whose id parameter names an id the item's
//!    parameter took joins that parameter, taking its spellings (`below_items.rs`), and
//!    sibling variance runs again, until nothing changes.
//! 4. `prefix-variance`: a literal segment at a position that another path, equal up to that
//!    position, holds as a parameter, when the literal is one of that parameter's observed values
//!    (`/collections/{…}` observed `tasks`, so `/collections/tasks/records` is templated too).
//!    Repeated until nothing changes.
//!
//! Templating runs per origin. Its output, per record, is one optional [`SegmentRule`] per segment.
//! The pipeline's route-form stages then run on what is still literal (see
//! [`crate::route_forms`]); [`TemplateRules`] carries them with the opt-in rules.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rea_registry::RouteFormHandle;

use rea_plugin_api::route_fields;
use serde::{Deserialize, Serialize};

use crate::below_items::join_ids_below_items;
use crate::responses::{ParsedResponses, echoes_identity};
use crate::segments::{segment_value, split_path};

/// An opt-in templating rule a view can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TemplateRule {
    /// `after-uid-literal`.
    AfterUidLiteral,
    /// `opaque-token`.
    OpaqueToken,
    /// `sibling-variance`.
    SiblingVariance,
    /// `prefix-variance`.
    PrefixVariance,
}

impl TemplateRule {
    /// Every opt-in rule, in the fixed order they apply.
    pub const ALL: [TemplateRule; 4] = [
        TemplateRule::AfterUidLiteral,
        TemplateRule::OpaqueToken,
        TemplateRule::SiblingVariance,
        TemplateRule::PrefixVariance,
    ];

    /// The rule's name as views spell it.
    pub fn name(self) -> &'static str {
        match self {
            TemplateRule::AfterUidLiteral => "after-uid-literal",
            TemplateRule::OpaqueToken => "opaque-token",
            TemplateRule::SiblingVariance => "sibling-variance",
            TemplateRule::PrefixVariance => "prefix-variance",
        }
    }

    /// The rule a view names, if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|rule| rule.name() == name)
    }

    fn segment_rule(self) -> SegmentRule {
        match self {
            TemplateRule::AfterUidLiteral => SegmentRule::AfterUidLiteral,
            TemplateRule::OpaqueToken => SegmentRule::OpaqueToken,
            TemplateRule::SiblingVariance => SegmentRule::SiblingVariance,
            TemplateRule::PrefixVariance => SegmentRule::PrefixVariance,
        }
    }
}

/// Why a list of rule names was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleListError {
    /// A name that is no opt-in rule.
    #[error("template rule {name:?} at position {index} is not one of {known}")]
    Unknown {
        /// Position in the list.
        index: usize,
        /// The name as given.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// A rule named twice.
    #[error("template rule {name:?} at position {index} repeats position {first}")]
    Repeated {
        /// Position of the repeat.
        index: usize,
        /// Position of the first mention.
        first: usize,
        /// The rule's name.
        name: String,
    },
}

/// The opt-in rules a view applies: a set, applied in [`TemplateRule::ALL`] order whatever order
/// the view listed them in; and the route-form stages the pipeline names, run after them in
/// order (none unless given with [`TemplateRules::with_route_forms`]).
#[derive(Debug, Clone, Default)]
pub struct TemplateRules {
    rules: BTreeSet<TemplateRule>,
    route_forms: Vec<Arc<RouteFormHandle>>,
    /// Whether write tools are offered on sibling collections (see [`crate::siblings`]).
    sibling_transfer: bool,
}

impl PartialEq for TemplateRules {
    fn eq(&self, other: &Self) -> bool {
        self.rules == other.rules
            && self.route_form_names() == other.route_form_names()
            && self.sibling_transfer == other.sibling_transfer
    }
}

impl Eq for TemplateRules {}

impl TemplateRules {
    /// No opt-in rule: format rules only.
    pub fn none() -> Self {
        Self::default()
    }

    /// Every opt-in rule (the build's default).
    pub fn all() -> Self {
        Self {
            rules: TemplateRule::ALL.into_iter().collect(),
            route_forms: Vec::new(),
            sibling_transfer: false,
        }
    }

    /// The same rules, offering write tools on sibling collections when `on` (the pipeline's
    /// opt-in `[manifest] sibling_transfer`; see [`crate::siblings`]).
    pub fn with_sibling_transfer(mut self, on: bool) -> Self {
        self.sibling_transfer = on;
        self
    }

    /// Whether write tools are offered on sibling collections.
    pub fn sibling_transfer(&self) -> bool {
        self.sibling_transfer
    }

    /// The same rules with these route-form stages, run in this order after the rules.
    pub fn with_route_forms(mut self, forms: Vec<Arc<RouteFormHandle>>) -> Self {
        self.route_forms = forms;
        self
    }

    /// The route-form stages, in order.
    pub fn route_forms(&self) -> &[Arc<RouteFormHandle>] {
        &self.route_forms
    }

    /// The route-form stages' names, in order.
    pub fn route_form_names(&self) -> Vec<String> {
        self.route_forms
            .iter()
            .map(|form| form.stage().to_owned())
            .collect()
    }

    /// Reads a list of rule names; an unknown or repeated name is refused.
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<Self, RuleListError> {
        let mut seen: BTreeMap<TemplateRule, usize> = BTreeMap::new();
        for (index, name) in names.iter().enumerate() {
            let name = name.as_ref();
            let Some(rule) = TemplateRule::from_name(name) else {
                return Err(RuleListError::Unknown {
                    index,
                    name: name.to_owned(),
                    known: TemplateRule::ALL.map(TemplateRule::name).join(", "),
                });
            };
            if let Some(first) = seen.get(&rule) {
                return Err(RuleListError::Repeated {
                    index,
                    first: *first,
                    name: name.to_owned(),
                });
            }
            seen.insert(rule, index);
        }
        Ok(Self {
            rules: seen.into_keys().collect(),
            route_forms: Vec::new(),
            sibling_transfer: false,
        })
    }

    /// Whether the rule applies.
    pub fn contains(&self, rule: TemplateRule) -> bool {
        self.rules.contains(&rule)
    }

    /// The rules in application order.
    pub fn iter(&self) -> impl Iterator<Item = TemplateRule> + '_ {
        self.rules.iter().copied()
    }

    /// The rules' names in application order.
    pub fn names(&self) -> Vec<String> {
        self.iter().map(|rule| rule.name().to_owned()).collect()
    }
}

/// The rule that made a segment a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SegmentRule {
    /// Digits only.
    Numeric,
    /// A UUID.
    Uuid,
    /// A ULID.
    Ulid,
    /// A hex identifier.
    Hex,
    /// After a literal `uid` segment.
    AfterUidLiteral,
    /// An opaque generated token.
    OpaqueToken,
    /// Sibling paths vary here and answers echo the value.
    SiblingVariance,
    /// A shorter path holds this position as a parameter.
    PrefixVariance,
}

impl SegmentRule {
    /// Whether it is a built-in format rule (`numeric`, `uuid`, `ulid`, `hex`).
    pub fn is_format(self) -> bool {
        matches!(
            self,
            SegmentRule::Numeric | SegmentRule::Uuid | SegmentRule::Ulid | SegmentRule::Hex
        )
    }

    /// The rule's name, also the template's placeholder (`{numeric}`).
    pub fn name(self) -> &'static str {
        match self {
            SegmentRule::Numeric => "numeric",
            SegmentRule::Uuid => "uuid",
            SegmentRule::Ulid => "ulid",
            SegmentRule::Hex => "hex",
            SegmentRule::AfterUidLiteral => "after-uid-literal",
            SegmentRule::OpaqueToken => "opaque-token",
            SegmentRule::SiblingVariance => "sibling-variance",
            SegmentRule::PrefixVariance => "prefix-variance",
        }
    }
}

/// The built-in format rule a decoded segment satisfies, if any (the rules route forms share:
/// `rea_plugin_api::route_fields::format_rule`).
pub fn format_rule(value: &str) -> Option<SegmentRule> {
    match route_fields::format_rule(value)? {
        "numeric" => Some(SegmentRule::Numeric),
        "uuid" => Some(SegmentRule::Uuid),
        "ulid" => Some(SegmentRule::Ulid),
        _ => Some(SegmentRule::Hex),
    }
}

/// Whether a decoded segment is shaped like an opaque generated token (see the module docs).
pub fn is_opaque_token(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.len() < 8
        || bytes.len() > 255
        || !bytes
            .iter()
            .all(|byte| byte.is_ascii_alphanumeric() || *byte == b'_' || *byte == b'-')
    {
        return false;
    }
    let letters = bytes
        .iter()
        .filter(|byte| byte.is_ascii_alphabetic())
        .count();
    let has_digit = bytes.iter().any(u8::is_ascii_digit);
    let digit_runs = bytes
        .iter()
        .enumerate()
        .filter(|(index, byte)| {
            byte.is_ascii_digit() && (*index == 0 || !bytes[index - 1].is_ascii_digit())
        })
        .count();
    if letters >= 1 && digit_runs >= 2 {
        return true;
    }
    let vowels = bytes
        .iter()
        .filter(|byte| b"aeiouAEIOU".contains(byte))
        .count();
    let mixed_case =
        bytes.iter().any(u8::is_ascii_lowercase) && bytes.iter().any(u8::is_ascii_uppercase);
    letters >= 6 && vowels * 4 < letters && (mixed_case || has_digit)
}

/// The per-record templating of one origin's records: `rules[r][i]` is the rule that made segment
/// `i` of record `r` a parameter, `None` for a literal segment.
///
/// `paths[r]` is record `r`'s path; `responses` reads the same records' responses.
pub(crate) fn template_records(
    paths: &[&str],
    responses: &ParsedResponses<'_>,
    rules: &TemplateRules,
) -> Vec<Vec<Option<SegmentRule>>> {
    let segments: Vec<Vec<&str>> = paths.iter().map(|path| split_path(path)).collect();
    let mut state: Vec<Vec<Option<SegmentRule>>> = segments
        .iter()
        .map(|path| {
            path.iter()
                .map(|segment| format_rule(&segment_value(segment)))
                .collect()
        })
        .collect();
    for rule in rules.iter() {
        match rule {
            TemplateRule::AfterUidLiteral => {
                for (path, path_state) in segments.iter().zip(state.iter_mut()) {
                    for index in 1..path.len() {
                        if path_state[index - 1].is_none()
                            && path[index - 1].eq_ignore_ascii_case("uid")
                            && path_state[index].is_none()
                            && !path[index].is_empty()
                        {
                            path_state[index] = Some(rule.segment_rule());
                        }
                    }
                }
            }
            TemplateRule::OpaqueToken => {
                for (path, path_state) in segments.iter().zip(state.iter_mut()) {
                    for (segment, slot) in path.iter().zip(path_state.iter_mut()) {
                        if slot.is_none() && is_opaque_token(&segment_value(segment)) {
                            *slot = Some(rule.segment_rule());
                        }
                    }
                }
            }
            TemplateRule::SiblingVariance => {
                join_token_ids(&segments, &mut state, responses);
                loop {
                    while apply_sibling_variance(&segments, &mut state, responses) {}
                    if !join_ids_below_items(&segments, &mut state) {
                        break;
                    }
                }
            }
            TemplateRule::PrefixVariance => while apply_prefix_variance(&segments, &mut state) {},
        }
    }
    state
}

/// One template token of a record's path for comparisons: the literal segment or the rule.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Token<'a> {
    Literal(&'a str),
    Parameter(SegmentRule),
}

pub(crate) fn token<'a>(segment: &'a str, rule: Option<SegmentRule>) -> Token<'a> {
    match rule {
        Some(rule) => Token::Parameter(rule),
        None => Token::Literal(segment),
    }
}

/// The tokens of a record's path before `position`.
pub(crate) fn tokens_before<'a>(
    path: &[&'a str],
    rules: &[Option<SegmentRule>],
    position: usize,
) -> Vec<Token<'a>> {
    path[..position]
        .iter()
        .zip(&rules[..position])
        .map(|(segment, rule)| token(segment, *rule))
        .collect()
}

/// The tokens of a record's path but at `position`.
pub(crate) fn tokens_but<'a>(
    path: &[&'a str],
    rules: &[Option<SegmentRule>],
    position: usize,
) -> Vec<Token<'a>> {
    path.iter()
        .zip(rules)
        .enumerate()
        .filter(|(index, _)| *index != position)
        .map(|(_, (segment, rule))| token(segment, *rule))
        .collect()
}

/// Whether a segment rule is an id rule: a format rule or an opaque token.
pub(crate) fn is_id_rule(rule: SegmentRule) -> bool {
    rule.is_format() || rule == SegmentRule::OpaqueToken
}

fn apply_sibling_variance(
    segments: &[Vec<&str>],
    state: &mut [Vec<Option<SegmentRule>>],
    responses: &ParsedResponses<'_>,
) -> bool {
    // (length, position, the other tokens) → value → records holding it.
    type SiblingKey<'a> = (usize, usize, Vec<Token<'a>>);
    let mut sets: BTreeMap<SiblingKey<'_>, BTreeMap<&str, Vec<usize>>> = BTreeMap::new();
    for (record, path) in segments.iter().enumerate() {
        for position in 0..path.len() {
            if state[record][position].is_some() || path[position].is_empty() {
                continue;
            }
            let others = tokens_but(path, &state[record], position);
            sets.entry((path.len(), position, others))
                .or_default()
                .entry(path[position])
                .or_default()
                .push(record);
        }
    }
    let mut changed = false;
    for ((_, position, _), values) in sets {
        if values.len() < 2 {
            continue;
        }
        let mut echoing = Vec::new();
        let mut silent = Vec::new();
        for (value, holders) in &values {
            let decoded = segment_value(value);
            let answered: Vec<_> = holders
                .iter()
                .filter_map(|record| responses.success_json(*record))
                .collect();
            if answered.is_empty() {
                silent.push(*value);
            } else if answered.iter().any(|body| {
                echoes_identity(body, &decoded)
                    || (decoded.as_ref() != *value && echoes_identity(body, value))
            }) {
                echoing.push(*value);
            }
        }
        if echoing.len() < 2 {
            continue;
        }
        let family = values.values().flatten().copied().next();
        for value in echoing.into_iter().chain(silent) {
            for record in &values[value] {
                if state[*record][position].is_none() {
                    state[*record][position] = Some(SegmentRule::SiblingVariance);
                    changed = true;
                }
            }
        }
        if let Some(family) = family {
            changed |= join_formatted_ids(segments, state, responses, family, position);
        }
    }
    changed
}

/// The records of `member`'s family (same length, same tokens but at `position`) whose segment
/// there has a format rule and whose 2xx JSON answers echo it, or that answered none: ids of one
/// collection in two shapes (`101` beside `728c`) are one sibling-variance parameter.
fn join_formatted_ids(
    segments: &[Vec<&str>],
    state: &mut [Vec<Option<SegmentRule>>],
    responses: &ParsedResponses<'_>,
    member: usize,
    position: usize,
) -> bool {
    let others = |record: usize| tokens_but(&segments[record], &state[record], position);
    let family = others(member);
    let joining: Vec<usize> = (0..segments.len())
        .filter(|record| {
            segments[*record].len() == segments[member].len()
                && state[*record][position].is_some_and(SegmentRule::is_format)
                && others(*record) == family
        })
        .filter(|record| {
            let value = segment_value(segments[*record][position]);
            let answered = responses.success_json(*record);
            answered.is_none_or(|body| echoes_identity(body, &value))
        })
        .collect();
    for record in &joining {
        state[*record][position] = Some(SegmentRule::SiblingVariance);
    }
    !joining.is_empty()
}

/// Ids of one collection that two rules took apart, a format rule's (`7`) and the opaque-token
/// rule's (`gyDs1uK9iu2Ivm3`: seeded numbers beside generated tokens), at one position of paths
/// otherwise equal: one sibling-variance parameter when every such record's 2xx JSON answer
/// echoes its segment or it answered none, not a tool per shape.
fn join_token_ids(
    segments: &[Vec<&str>],
    state: &mut [Vec<Option<SegmentRule>>],
    responses: &ParsedResponses<'_>,
) {
    // (length, position, the other tokens) → the records holding an id rule there.
    let mut families: BTreeMap<(usize, usize, Vec<Token<'_>>), Vec<usize>> = BTreeMap::new();
    for (record, path) in segments.iter().enumerate() {
        for position in 0..path.len() {
            let Some(rule) = state[record][position] else {
                continue;
            };
            if !is_id_rule(rule) {
                continue;
            }
            let others = tokens_but(path, &state[record], position);
            families
                .entry((path.len(), position, others))
                .or_default()
                .push(record);
        }
    }
    for ((_, position, _), records) in families {
        let shapes: BTreeSet<SegmentRule> = records
            .iter()
            .filter_map(|record| state[*record][position])
            .collect();
        if !shapes.contains(&SegmentRule::OpaqueToken)
            || !shapes.iter().any(|rule| rule.is_format())
        {
            continue;
        }
        let echoing = records.iter().all(|record| {
            let value = segment_value(segments[*record][position]);
            responses
                .success_json(*record)
                .is_none_or(|body| echoes_identity(body, &value))
        });
        if echoing {
            for record in records {
                state[record][position] = Some(SegmentRule::SiblingVariance);
            }
        }
    }
}

fn apply_prefix_variance(segments: &[Vec<&str>], state: &mut [Vec<Option<SegmentRule>>]) -> bool {
    // (tokens before the position, position) → observed values of the parameter there.
    let mut observed: BTreeMap<(Vec<Token<'_>>, usize), BTreeSet<&str>> = BTreeMap::new();
    for (record, path) in segments.iter().enumerate() {
        for position in 0..path.len() {
            if state[record][position].is_some() {
                let before = tokens_before(path, &state[record], position);
                observed
                    .entry((before, position))
                    .or_default()
                    .insert(path[position]);
            }
        }
    }
    let mut changes = Vec::new();
    for (record, path) in segments.iter().enumerate() {
        for position in 0..path.len() {
            if state[record][position].is_some() || path[position].is_empty() {
                continue;
            }
            let before = tokens_before(path, &state[record], position);
            if observed
                .get(&(before, position))
                .is_some_and(|values| values.contains(path[position]))
            {
                changes.push((record, position));
            }
        }
    }
    for (record, position) in &changes {
        state[*record][*position] = Some(SegmentRule::PrefixVariance);
    }
    !changes.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_lists_apply_in_fixed_order_and_refuse_repeats_and_unknowns() {
        // contract: MANIFEST-004, BUILD-015, BUILD-017
        let rules =
            TemplateRules::parse(&["sibling-variance", "after-uid-literal", "opaque-token"])
                .unwrap();
        assert_eq!(
            rules.names(),
            vec!["after-uid-literal", "opaque-token", "sibling-variance"]
        );
        assert_eq!(
            TemplateRules::parse(&["opaque-token", "opaque-token"]),
            Err(RuleListError::Repeated {
                index: 1,
                first: 0,
                name: "opaque-token".into()
            })
        );
        assert!(matches!(
            TemplateRules::parse(&["numeric"]),
            Err(RuleListError::Unknown { index: 0, .. })
        ));
        assert!(
            TemplateRules::parse::<&str>(&[])
                .unwrap()
                .names()
                .is_empty()
        );
    }

    #[test]
    fn format_rules_map_to_segment_rules() {
        assert_eq!(format_rule("42"), Some(SegmentRule::Numeric));
        assert_eq!(
            format_rule("5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11"),
            Some(SegmentRule::Uuid)
        );
        assert_eq!(
            format_rule("3801476c4a394a5d9d21e4887b201428"),
            Some(SegmentRule::Hex)
        );
        assert_eq!(
            format_rule("01ARZ3NDEKTSV4RRFFQ69G5FAV"),
            Some(SegmentRule::Ulid)
        );
        // Which segments are literal is route_fields' test; here only that a literal maps to none.
        assert_eq!(format_rule("users"), None);
    }

    #[test]
    fn opaque_tokens_are_told_from_words() {
        for token in ["nErXDvCkzz", "bdvgx0xr3zmyoc", "ae2fjkl3l7l6ob", "a1b2c3d4"] {
            assert!(is_opaque_token(token), "{token}");
        }
        for word in [
            "getUserById",
            "oauth2callback",
            "dashboards",
            "get-by-name",
            "strengths",
            "Welcome",
            "version2024",
        ] {
            assert!(!is_opaque_token(word), "{word}");
        }
    }
}
