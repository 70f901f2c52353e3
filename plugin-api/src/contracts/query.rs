//! The query-grammar contract: which query parameters an application's lists accept beyond the
//! ones their recordings named.
//!
//! The state engine learns each list view's parameter roles from its recorded query lines (the
//! roles that reproduce what the application listed). Each query grammar the pipeline names then
//! runs in order: it sees every list's established roles, the fields the state holds for the
//! list's entity type and the names its recorded lines used, and proposes further parameters with
//! their roles (the application's query language, extended to what no recording named). The host
//! keeps the first proposal for a name and never one a list's recording decides.
//!
//! ```json
//! {"options": {}, "schema_version": 1, "lists": [
//!   {"established": {"status": {"role": "filter", "field": "status", "op": "eq"},
//!                    "priority_gte": {"role": "filter", "field": "priority", "op": "gte"}},
//!    "fields": ["priority", "status", "title"], "recorded_names": ["priority_gte", "status"]}]}
//! → {"schema_version": 1, "lists": [
//!     {"title": {"role": "filter", "field": "title", "op": "eq"},
//!      "title_gte": {"role": "filter", "field": "title", "op": "gte"}, …}]}
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{current_schema_version, schema_versioned};

/// A query parameter's role.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "kebab-case")]
pub enum QueryRole {
    /// Keeps members whose field compares with the value.
    Filter {
        /// The field (dotted for nested members).
        field: String,
        /// One of [`crate::query_fields::OPERATORS`]: `eq`, `ne`, `gt`, `gte`, `lt`, `lte`, `in`,
        /// `nin`, `like`, `starts`, `ends`, `null`, `nnull`, `between`, `pattern`, `glob` (over
        /// a field holding an array of scalars, those of
        /// [`crate::query_fields::ARRAY_ITEM_OPERATORS`] hold when one item does); or
        /// `token`: the field is a space-separated word list (`[[…]]` groups words) holding the
        /// value as one item; `iglob`: the field matches the glob (the value) in any case, a
        /// `like` word's reading whose wildcard is `*`; `regex`: the field is text a regular expression (the value) matches
        /// anywhere; `all`: the field is an array holding each of the value's comma-separated
        /// items (`regex` and `all` added after `token`: an older host matches no member with
        /// either).
        op: String,
    },
    /// Keeps members with the value in some text, case-insensitively.
    Search,
    /// Sorts by comma-separated fields (`-field` descending).
    Sort,
    /// The sort direction(s) (`asc`/`desc`, comma-separated).
    Order,
    /// A page number.
    Page {
        /// The first page's number (0 or 1).
        base: u64,
    },
    /// The page size.
    PageSize,
    /// The index of the first member.
    Offset,
    /// The index after the last member.
    End,
    /// A keyset cursor: keeps the members after the one it names in the list's order. Its value
    /// holds the sort keys' values, then the `key` field's value, comma-separated (each with
    /// `+` for a space); without a sort, the members whose `key` is greater.
    After {
        /// The field naming a member (unique in the list).
        key: String,
    },
    /// Changes nothing the list shows (a cache buster, a format flag): accepted with the values
    /// the recordings gave it; a call giving another value replays its recording.
    Inert {
        /// The values the recorded lines gave it.
        values: Vec<String>,
    },
}

impl QueryRole {
    /// A filter of a field by an operator.
    pub fn filter(field: &str, op: &str) -> Self {
        QueryRole::Filter {
            field: field.to_owned(),
            op: op.to_owned(),
        }
    }

    /// Whether the role only pages (page, page size, offset, end).
    pub fn is_paging(&self) -> bool {
        matches!(
            self,
            QueryRole::Page { .. } | QueryRole::PageSize | QueryRole::Offset | QueryRole::End
        )
    }
}

/// What a query grammar is asked: every list view of one state, in the state's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryGrammarRequest {
    /// The stage's options from the pipeline (the built-in grammar defines none).
    #[serde(default)]
    pub options: Map<String, Value>,
    /// The list views.
    pub lists: Vec<ListQueries>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// One list view's query evidence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListQueries {
    /// The roles its recorded query lines established (name → role); empty when none did.
    pub established: BTreeMap<String, QueryRole>,
    /// The fields the state holds for its entity type: scalar fields, and the scalar members of
    /// object fields one level down (dotted), sorted.
    pub fields: Vec<String>,
    /// Every parameter name some recorded line of the list named (its recording decides those).
    pub recorded_names: Vec<String>,
    /// The top-level fields the state holds for its entity type whose values are arrays of
    /// scalars (`tags: ["query", "search"]`), sorted: a filter of such a field by one of
    /// [`crate::query_fields::ARRAY_ITEM_OPERATORS`] holds when one of its items does. Added
    /// after `recorded_names`: an older host sends none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub array_fields: Vec<String>,
    /// The fields of related entities the state reaches through a member of its entities naming
    /// one by its id (`project.status` where `project` holds a project's id), dotted, sorted: a
    /// filter names them in the bracket spelling of a path (`filter[project][status][_eq]`).
    /// Added after `array_fields`: an older host sends none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joined_fields: Vec<String>,
    /// The fields of related entities the state reaches through a member naming many of them
    /// (`tasks.assignee` where the tasks holding a project's id are its `tasks`), dotted, sorted:
    /// a filter quantifies over them, holding when some related entity holds it; the bracket
    /// spelling puts the quantifier word after the member (`filter[tasks][_some][assignee][_eq]`,
    /// see [`crate::query_fields::QUANTIFIER_WORDS`]). Given only where the application's
    /// recorded filters reach through a relation. Added after `joined_fields`: an older host
    /// sends none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub many_joined_fields: Vec<String>,
    /// The parameter names the list's tool was recorded with only in calls the application
    /// refused (a `4xx` answer: `title[$regex]`, `400 Invalid query parameter $regex`), sorted.
    /// Added after `many_joined_fields`: an older host sends none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_names: Vec<String>,
}

/// What a query grammar proposes: for each list of the request (same order), the parameters it
/// extends the list to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryGrammarOutcome {
    /// One map per requested list (name → role); the host ignores a name the list established or
    /// recorded.
    pub lists: Vec<BTreeMap<String, QueryRole>>,
    /// Families of parameter names, per requested list (same order; empty: none for any list):
    /// an anchored pattern (the ECMA-262 subset JSON Schema's `patternProperties` and the host
    /// both read: literals, escapes, classes, groups, alternation, `+`, `*`, `?`) → what a name
    /// of it does. A family names parameters a list accepts whose names are unbounded, each of
    /// which the same grammar's `split` reads as its terms (`filter[_or][0][state][_eq]`: a
    /// filter term in a branch of a group): the state catalog accepts them besides its named
    /// arguments, and the state evaluates each through the terms, refusing a call whose terms it
    /// cannot evaluate. Added after `lists`: an older grammar names none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub families: Vec<BTreeMap<String, String>>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// What a query grammar is asked about one query parameter of a list call (`split`): whether its
/// value is an expression of the grammar's language (a filter run such as `[tag[x]sort[y]]`, a
/// JSON filter object) and, if so, the terms it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryExpressionRequest {
    /// The parameter's name as sent.
    pub name: String,
    /// Its value, decoded.
    pub value: String,
    /// The fields the state holds for the list's entity type (as in [`ListQueries::fields`]);
    /// empty when serving, where only the learned roles and the roles a term names alone count.
    #[serde(default)]
    pub fields: Vec<String>,
    /// Every query pair of the call as sent (this parameter's included), for a language whose
    /// terms depend on another parameter of the call (a key range read in the order a direction
    /// flag gives); empty from a host that sends none (added after `fields`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub call: Vec<(String, String)>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// One term of an expression: a parameter of its own to the state engine, which learns its role
/// from the recorded lines like any other parameter's (among `roles`, the candidates in order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryTerm {
    /// The term's parameter name (distinct from every term of the same expression; the spelling
    /// of another form of the same query when the language has one, `filter[f][_gt]`).
    pub name: String,
    /// The value its role reads (`-field` for a descending sort).
    pub value: String,
    /// The roles it may play, in order of preference; empty leaves it to the roles the list
    /// learned or was generalized to for that name. A term whose only candidate is one role
    /// other than `inert` plays it even where no recording named it.
    #[serde(default)]
    pub roles: Vec<QueryRole>,
    /// The disjunctions the term lies in, outermost first: empty for a term every match holds
    /// (the terms of one call are a conjunction), else the branch of each group (`_or`, `$or`)
    /// the term belongs to. A group holds when the terms of one of its branches all hold (each
    /// branch a conjunction, which may hold groups of its own: the terms whose path continues
    /// it). Only a filter (or search) term may lie in a group; the state answers not modelled for
    /// another. Added after `roles`: an older grammar names none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub within: Vec<TermBranch>,
}

/// One step of a term's path through disjunctions ([`QueryTerm::within`]): the group, named
/// distinctly within the call (`filter[_or]`, `selector.$or`), and the branch of it (counted
/// from 0 in the order the expression gives).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TermBranch {
    /// The group's name, distinct within the call (a nested group's name holds its parent's
    /// path).
    pub group: String,
    /// The branch's index within the group.
    pub branch: u32,
}

impl TermBranch {
    /// Branch `branch` of the group `group`.
    pub fn new(group: impl Into<String>, branch: u32) -> Self {
        Self {
            group: group.into(),
            branch,
        }
    }
}

impl QueryTerm {
    /// A term that plays one role.
    pub fn playing(name: impl Into<String>, value: impl Into<String>, role: QueryRole) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            roles: vec![role],
            within: Vec::new(),
        }
    }

    /// The same term, lying in these disjunction branches (outermost first).
    pub fn within(mut self, within: Vec<TermBranch>) -> Self {
        self.within = within;
        self
    }
}

/// What a query grammar answers to a [`QueryExpressionRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryExpressionOutcome {
    /// The expression's terms; `None` when the value is not an expression of the grammar's
    /// language (or holds a part it does not model, so the call is not evaluated through it).
    #[serde(default)]
    pub terms: Option<Vec<QueryTerm>>,
    /// The fields whose values are bytes spelled in an encoding (field → [`BASE64_ENCODING`]),
    /// for a body language whose keys and values are bytes (a key-value store's range read):
    /// the state compares and sorts those fields, and the terms' values over them, as the
    /// decoded bytes (never as numbers or as the encoded text). Added after `terms`: an older
    /// grammar names none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub encodings: BTreeMap<String, String>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// The encoding name of standard base64 (padding canonical) in
/// [`QueryExpressionOutcome::encodings`].
pub const BASE64_ENCODING: &str = "base64";

impl Default for QueryExpressionOutcome {
    /// Not an expression of the grammar's language.
    fn default() -> Self {
        Self::of(None)
    }
}

impl QueryExpressionOutcome {
    /// An answer with these terms (`None`: not an expression of the language).
    pub fn of(terms: Option<Vec<QueryTerm>>) -> Self {
        Self {
            terms,
            encodings: BTreeMap::new(),
            schema_version: current_schema_version(),
        }
    }

    /// The same answer, the values of these fields spelled in `encoding` (see
    /// [`QueryExpressionOutcome::encodings`]).
    pub fn encoded(mut self, fields: &[&str], encoding: &str) -> Self {
        for field in fields {
            self.encodings
                .insert((*field).to_owned(), encoding.to_owned());
        }
        self
    }
}

/// What a query grammar is asked about the request body of a read (`split_body`): an RPC-style
/// read whose query is its body (a Mango selector, a key range, a search request with a filter
/// string). The grammar answers the body's terms ([`QueryExpressionOutcome`]), each with the
/// role it plays (a filter by field and operator, a sort, a page size, an offset) or, for a
/// field selection, the name `fields` and the selected fields comma-separated; `None` when the
/// body is not of its language or holds a part it does not model (the read is then not
/// answered from the state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryBodyRequest {
    /// The request body as sent.
    pub body: Value,
    /// The fields the state holds for the entity type the read lists (as in
    /// [`ListQueries::fields`]); empty when not known.
    #[serde(default)]
    pub fields: Vec<String>,
    /// The members of the type holding arrays of objects (dotted, at the top level or one object
    /// down), sorted. A term's field may step into one entry of such a list by a member's value:
    /// `data.metrics[key=auc].value` is the `value` of the `metrics` entry whose `key` is `auc`.
    #[serde(default)]
    pub object_lists: Vec<String>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// The term name a body's field selection is given (the selected fields comma-separated).
pub const BODY_FIELDS_TERM: &str = "fields";

/// The term name (without roles) of a body asking for the count of its matches only: the answer
/// lists nothing and carries its envelope (the number matched). Added after
/// [`BODY_FIELDS_TERM`]: an older host finds a term without a role and evaluates nothing.
pub const BODY_COUNT_ONLY_TERM: &str = "count-only";

schema_versioned! {
    QueryBodyRequest => "query body request",
    QueryGrammarRequest => "query grammar request",
    QueryGrammarOutcome => "query grammar outcome",
    QueryExpressionRequest => "query expression request",
    QueryExpressionOutcome => "query expression outcome",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_cross_as_tagged_objects() {
        let text = serde_json::to_string(&QueryRole::filter("sla.hours", "gte")).unwrap();
        assert_eq!(text, r#"{"role":"filter","field":"sla.hours","op":"gte"}"#);
        let page: QueryRole = serde_json::from_str(r#"{"role":"page","base":1}"#).unwrap();
        assert_eq!(page, QueryRole::Page { base: 1 });
        assert!(page.is_paging());
        let size: QueryRole = serde_json::from_str(r#"{"role":"page-size"}"#).unwrap();
        assert!(size.is_paging());
        assert!(!QueryRole::Sort.is_paging());
    }

    #[test]
    fn a_term_outside_any_group_crosses_as_before_and_an_older_term_reads_ungrouped() {
        let plain = QueryTerm::playing("status", "open", QueryRole::filter("status", "eq"));
        let text = serde_json::to_string(&plain).unwrap();
        assert!(!text.contains("within"), "{text}");
        let older: QueryTerm =
            serde_json::from_str(r#"{"name": "a", "value": "1", "roles": []}"#).unwrap();
        assert!(older.within.is_empty());
        let grouped = plain.within(vec![TermBranch::new("filter[_or]", 1)]);
        let back: QueryTerm =
            serde_json::from_str(&serde_json::to_string(&grouped).unwrap()).unwrap();
        assert_eq!(back.within, vec![TermBranch::new("filter[_or]", 1)]);
    }

    #[test]
    fn an_outcome_without_lists_reads_as_empty() {
        let outcome: QueryGrammarOutcome = serde_json::from_str(r#"{"lists": []}"#).unwrap();
        assert!(outcome.lists.is_empty());
        assert_eq!(outcome.schema_version, crate::contracts::SCHEMA_VERSION);
    }
}
