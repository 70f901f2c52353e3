//! The built-in query grammar of rea: which query parameters an application's lists accept beyond
//! those their recordings named (a stage of kind `query-grammar`, run in the order the pipeline's
//! `[state] query_grammars` names them, after the state engine learned each list's roles from its
//! recorded query lines).
//!
//! * `field-affixes` ([`affixes`]): equality by a field's own name, operator affixes such as
//!   `_gte` or `__in` and their family (the order comparisons, or every operator word once the
//!   family holds a list operator), dotted nested fields, and the sort, search and paging names
//!   one list established offered on its siblings; a descending sort name (`_sort_desc=f`) split
//!   into the sort term `-f`; a field's parameter compared by the operator word a companion
//!   parameter holds (`priority=2&priority__operator=gte`, [`companion`]) split into one filter
//!   term.
//! * `filter-steps` ([`steps`]): a parameter holding one filter run of operator steps
//!   (`[tag[Task]!sort[modified]limit[2]]`) split into one term per step.
//! * `json-filter` ([`json_filter`]): a parameter holding a filter as a JSON object, split into
//!   its terms in the bracket spelling (`filter[state][_neq]`), those under an `_or` in their
//!   branch; a bracket pair through `_or`/`_and` groups as its one term. In the `$` dialect
//!   (MongoDB-style, Parse Server's `where=`) a bare value is its equality and typed `Pointer`
//!   and `Date` values compare by what they name. A list of conditions, each naming a field, an
//!   operator word and a value (`filter=[{"name": "estimate", "op": "ge", "val": 5}]`,
//!   [`filter_list`]), is its conditions' bracket filters; a whole query spelled as one Rison
//!   object (`q=(filters:!((col:status,opr:eq,value:todo)),page:0)`, [`rison_query`]) the
//!   terms of its bracket spelling; a condition spelled in one value between a repeated
//!   delimiter (`filter=status||$eq||todo`, [`delimited`]) the term of its bracket spelling.
//! * `key-range` ([`key_range`]): the JSON-encoded keys (`key`, `startkey`, `endkey`) and
//!   direction (`descending`, `inclusive_end`) of a read over an index ordered by its rows'
//!   `key`, split into filter and sort terms read in the call's direction.
//! * `mango-selector` ([`mango`]): the request body of a read in the Mango query language
//!   (`_find`: selector with `$and`/`$or` groups, sort, limit, skip, fields) split into terms
//!   (`split_body`).
//! * `kv-range` ([`kv_range`]): the request body of a key-value store's range read (a key, a
//!   range end, a limit, a sort order and target, keys only; keys and values base64, compared
//!   as bytes) split into terms (`split_body`).
//! * `search-filter` ([`search_filter`]): the request body of a search read with a SQL-like
//!   filter string, `order_by`, `max_results` and page tokens split into terms (`split_body`).

pub mod affixes;
pub mod companion;
pub mod delimited;
pub mod filter_list;
pub mod json_filter;
pub mod key_range;
pub mod kv_range;
pub mod mango;
pub mod rison;
pub mod rison_query;
pub mod search_filter;
pub mod steps;

use rea_plugin_api::{Plugin, StageInfo};

pub use affixes::{FIELD_AFFIXES, FieldAffixes};

/// Each term's name, value and roles, borrowed, for comparing with literals in tests.
#[cfg(test)]
pub(crate) fn named_values_roles(
    terms: &[rea_plugin_api::contracts::query::QueryTerm],
) -> Vec<(&str, &str, &[rea_plugin_api::contracts::query::QueryRole])> {
    terms
        .iter()
        .map(|term| {
            (
                term.name.as_str(),
                term.value.as_str(),
                term.roles.as_slice(),
            )
        })
        .collect()
}

/// What a grammar that only splits expressions proposes: no parameter name for any list (its
/// terms are learned where recorded lines split).
pub(crate) fn no_proposals(
    request: &rea_plugin_api::contracts::query::QueryGrammarRequest,
) -> rea_plugin_api::contracts::query::QueryGrammarOutcome {
    rea_plugin_api::contracts::query::QueryGrammarOutcome {
        lists: vec![Default::default(); request.lists.len()],
        families: Vec::new(),
        schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
    }
}
/// A request-body language (`split_body`): the terms of a body, `None` when the body is not of
/// the language or holds a part it does not model.
pub trait BodyLanguage: Send + Sync + 'static {
    /// The body's terms.
    fn terms(
        &self,
        request: &rea_plugin_api::contracts::query::QueryBodyRequest,
    ) -> Option<Vec<rea_plugin_api::contracts::query::QueryTerm>>;

    /// The fields whose values are bytes spelled in an encoding, and the encoding (see
    /// `QueryExpressionOutcome::encodings`); none by default.
    fn encoded_fields(&self) -> (&'static [&'static str], &'static str) {
        (&[], "")
    }
}

/// A query grammar that reads request bodies only (it proposes no query parameter).
#[derive(Debug, Clone, Copy, Default)]
pub struct BodyGrammar<L>(pub L);

impl<L: BodyLanguage> rea_plugin_api::QueryGrammar for BodyGrammar<L> {
    fn apply(
        &self,
        request: &rea_plugin_api::contracts::query::QueryGrammarRequest,
    ) -> Result<rea_plugin_api::contracts::query::QueryGrammarOutcome, rea_plugin_api::PluginError>
    {
        Ok(no_proposals(request))
    }

    fn split_body(
        &self,
        request: &rea_plugin_api::contracts::query::QueryBodyRequest,
    ) -> Result<rea_plugin_api::contracts::query::QueryExpressionOutcome, rea_plugin_api::PluginError>
    {
        let (fields, encoding) = self.0.encoded_fields();
        Ok(
            rea_plugin_api::contracts::query::QueryExpressionOutcome::of(self.0.terms(request))
                .encoded(fields, encoding),
        )
    }
}

pub use json_filter::{JSON_FILTER, JsonFilter};
pub use key_range::{KEY_RANGE, KeyRange};
pub use kv_range::{KV_RANGE, KvRange};
pub use mango::{MANGO_SELECTOR, MangoSelector};
pub use search_filter::{SEARCH_FILTER, SearchFilter};
pub use steps::{FILTER_STEPS, FilterSteps};

rea_plugin_api::plugin_root_module! {
    /// The root module of the built-in query grammar.
    pub fn root_module() = Plugin::new("rea-query-grammar", env!("CARGO_PKG_VERSION"))
        .query_grammar(
            StageInfo::new(FIELD_AFFIXES, "The spellings the recorded queries established (a field's own name, operator affixes such as _gte or __in and their comparison family, dotted fields, sort, search and paging names) extended to every field and list; a descending sort name (_sort_desc=f) split into the sort term -f"),
            FieldAffixes,
        )
        .query_grammar(
            StageInfo::new(FILTER_STEPS, "A parameter holding one filter run of operator steps ([tag[x]field:f[v]!sort[f]limit[n]]) split into one term per step, whose roles the recorded lines teach"),
            FilterSteps,
        )
        .query_grammar(
            StageInfo::new(JSON_FILTER, "A parameter holding a filter as a JSON object ({\"f\": {\"_gt\": 5}}, _and and _or groups; in the $ dialect a bare value as its equality, typed Pointer and Date values by their objectId and iso, $regex with $options i, $exists, $all) split into its terms in the bracket spelling (filter[f][_gt]), and a bracket pair through _or/_and groups (filter[_or][0][f][_eq]) as its one term in its branch"),
            JsonFilter,
        )
        .query_grammar(
            StageInfo::new(KEY_RANGE, "The JSON-encoded keys (key, startkey, endkey) and direction (descending, inclusive_end) of a read over an index ordered by its rows' key split into filter and sort terms, read in the call's direction"),
            KeyRange,
        )
        .query_grammar(
            StageInfo::new(KV_RANGE, "The request body of a key-value store's range read (key, range_end, limit, sort_order and sort_target, keys_only; keys and values base64, compared as the decoded bytes) split into terms the state evaluates"),
            BodyGrammar(KvRange),
        )
        .query_grammar(
            StageInfo::new(MANGO_SELECTOR, "The request body of a read in the Mango query language (selector with equality, $gt/$gte/$lt/$lte/$ne/$in/$nin/$all/$regex, $and and $or, sort, limit, skip, fields) split into terms the state evaluates"),
            BodyGrammar(MangoSelector),
        )
        .query_grammar(
            StageInfo::new(SEARCH_FILTER, "The request body of a search read with a SQL-like filter string (comparisons joined by AND, LIKE prefixes), order_by, max_results, page tokens, <name>_ids and view types split into terms the state evaluates"),
            BodyGrammar(SearchFilter),
        );
}

rea_plugin_api::submit_builtin!(root_module);
