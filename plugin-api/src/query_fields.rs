//! The query vocabulary the state engine and query-grammar stages share: the parameter names that
//! propose a role by themselves (page sizes such as `limit`, `per_page`, `maxSize`,
//! `max_results`; pages, offsets, ends, sorts and their direction, search), the operator words
//! (`_gte`, `$contains`, `neq` …) and the affixes and bracket forms that spell a filter by field
//! with an operator (`views_gte`, `in_status`, `filter[state][_eq]`).
//!
//! A name only *proposes* roles: the state engine keeps a role only when evaluating the recorded
//! query lines over the state reproduces them, and a query grammar extends only what was kept.

use crate::contracts::query::QueryRole;

/// Page-size parameter names.
pub const PAGE_SIZE_NAMES: [&str; 16] = [
    "limit",
    "_limit",
    "_per_page",
    "_size",
    "per_page",
    "perPage",
    "page_size",
    "pageSize",
    "size",
    "maxSize",
    "max_results",
    "maxResults",
    "count",
    "top",
    "$top",
    "first",
];

/// Keyset-cursor parameter names (the members after the one the value names).
pub const CURSOR_NAMES: [&str; 5] = ["_next", "since", "after", "starting_after", "cursor"];

/// Page-number parameter names.
pub const PAGE_NAMES: [&str; 7] = [
    "page",
    "_page",
    "p",
    "pageNumber",
    "page_number",
    "page_index",
    "pageIndex",
];

/// Page-number names read only inside a page name's brackets (`page[number]`): alone, such a
/// name is a field's.
pub const PAGE_MEMBER_NAMES: [&str; 1] = ["number"];

/// Offset parameter names.
pub const OFFSET_NAMES: [&str; 6] = ["offset", "start", "_start", "skip", "$skip", "from"];

/// The position parameters that establish whole-collection membership only at zero.
pub const WHOLE_POSITION_NAMES: [&str; 4] = ["offset", "start", "_start", "page"];

/// End-index parameter names.
pub const END_NAMES: [&str; 2] = ["_end", "end"];
/// Sort parameter names.
pub const SORT_NAMES: [&str; 10] = [
    "sort",
    "_sort",
    "sort_by",
    "sortBy",
    "order_by",
    "orderBy",
    "ordering",
    "$orderby",
    "sortField",
    "order_column",
];
/// Sort-direction parameter names.
pub const ORDER_NAMES: [&str; 8] = [
    "order",
    "_order",
    "direction",
    "dir",
    "sort_order",
    "sortOrder",
    "sortDir",
    "order_direction",
];
/// Search parameter names.
pub const SEARCH_NAMES: [&str; 7] = ["q", "search", "query", "term", "keyword", "keywords", "_q"];

/// A name less one leading sigil: an ASCII punctuation character other than `_` and `-` (an
/// application may mark its control parameters apart from its fields, `@sort`, `$top`, `:limit`),
/// or a leading double underscore before a letter (the dunder marking, `__order`, `__page_size`:
/// one `_` is a spelling of its own, `_sort`, `_page`). The name itself when it has none.
pub fn unsigiled(name: &str) -> &str {
    if let Some(rest) = name
        .strip_prefix("__")
        .filter(|rest| rest.starts_with(|character: char| character.is_ascii_alphabetic()))
    {
        return rest;
    }
    name.strip_prefix(|character: char| {
        character.is_ascii_punctuation() && !matches!(character, '_' | '-')
    })
    .filter(|rest| !rest.is_empty())
    .unwrap_or(name)
}

/// Whether a name is one of a vocabulary's names, as it is or less a sigil ([`unsigiled`]): the
/// sigil is another spelling of the control name, whose role the state keeps only where the
/// recorded lines confirm it.
pub fn spelled_in(names: &[&str], name: &str) -> bool {
    names.contains(&name) || names.contains(&unsigiled(name))
}

/// The roles a parameter might play, most likely first. `has_field` tells whether the entities
/// hold a (dotted) field. A reserved name less a sigil plays the reserved name's roles.
pub fn candidate_roles(name: &str, has_field: &dyn Fn(&str) -> bool) -> Vec<QueryRole> {
    let roles = own_roles(name, has_field);
    if !roles.is_empty() {
        return roles;
    }
    match unnested(name) {
        Some(inner) => own_roles(&inner, has_field),
        None => roles,
    }
}

/// The roles a name plays as it is spelled (see [`candidate_roles`]).
fn own_roles(name: &str, has_field: &dyn Fn(&str) -> bool) -> Vec<QueryRole> {
    named_roles(name)
        .or_else(|| named_roles(unsigiled(name)))
        .or_else(|| paging_member_roles(name))
        .unwrap_or_else(|| filter_roles(name, has_field))
}

/// A name nesting a query parameter in a wrapper's brackets (`filter[where][status]`,
/// `filter[limit]`, `filter[order]`: the whole query under one object, as qs spells a nested
/// filter) less its wrapper: the first bracketed name opens the name (`where[status]`, `limit`,
/// `order`). `None` for a name with no brackets, an empty part, or a first bracketed part that is
/// a number, a logical group's sigil (`_or`, `$and`) or an operator word (`views[gte]`).
pub fn unnested(name: &str) -> Option<String> {
    let (base, rest) = name.split_once('[')?;
    let (inner, after) = rest.split_once(']')?;
    let plain = |part: &str| {
        part.chars()
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic())
            && part
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || character == '_')
    };
    (plain(base) && plain(inner) && operator_word(inner).is_none())
        .then(|| format!("{inner}{after}"))
}

/// `name` nested in a `wrapper`'s brackets, the inverse of [`unnested`]: `where[projectId]` in
/// `filter` is `filter[where][projectId]`, `status` is `filter[status]`.
pub fn nested_in(wrapper: &str, name: &str) -> String {
    match name.split_once('[') {
        Some((first, rest)) => format!("{wrapper}[{first}][{rest}"),
        None => format!("{wrapper}[{name}]"),
    }
}

/// A name nested in `wrapper`'s brackets less that wrapper (see [`unnested`]): `where[status]`
/// for `filter[where][status]` in `filter`; `None` for a name another wrapper (or none) nests.
pub fn unnested_from(wrapper: &str, name: &str) -> Option<String> {
    name.strip_prefix(wrapper)
        .filter(|rest| rest.starts_with('['))
        .and_then(|_| unnested(name))
}

/// The roles of a paging name nested in a page name's brackets (`page[limit]`, `page[offset]`,
/// `page[size]`, `page[number]`): the inner name's, when it is a page size, offset or end name,
/// or a page number's when it is one of [`PAGE_MEMBER_NAMES`].
fn paging_member_roles(name: &str) -> Option<Vec<QueryRole>> {
    let (base, rest) = name.split_once('[')?;
    let inner = rest.strip_suffix(']')?;
    if !PAGE_NAMES.contains(&base) || inner.contains(['[', ']']) {
        return None;
    }
    if PAGE_MEMBER_NAMES.contains(&inner) {
        return Some(vec![
            QueryRole::Page { base: 1 },
            QueryRole::Page { base: 0 },
        ]);
    }
    let roles = named_roles(inner)?;
    roles
        .iter()
        .all(|role| {
            matches!(
                role,
                QueryRole::PageSize | QueryRole::Offset | QueryRole::End
            )
        })
        .then_some(roles)
}

/// The roles a reserved parameter name plays (page size, page, offset, end, cursor, sort,
/// order, search), whatever the entities hold.
fn named_roles(name: &str) -> Option<Vec<QueryRole>> {
    if PAGE_SIZE_NAMES.contains(&name) {
        return Some(vec![QueryRole::PageSize]);
    }
    if PAGE_NAMES.contains(&name) {
        return Some(vec![
            QueryRole::Page { base: 1 },
            QueryRole::Page { base: 0 },
        ]);
    }
    if OFFSET_NAMES.contains(&name) {
        return Some(vec![QueryRole::Offset]);
    }
    if END_NAMES.contains(&name) {
        return Some(vec![QueryRole::End]);
    }
    if CURSOR_NAMES.contains(&name) {
        // The key field is the list's to learn (each unique field a candidate).
        return Some(vec![QueryRole::After { key: String::new() }]);
    }
    if SORT_NAMES.contains(&name) {
        return Some(vec![QueryRole::Sort]);
    }
    if ORDER_NAMES.contains(&name) {
        // A direction, or (tried after it) the sort itself (`order=title DESC`).
        return Some(vec![QueryRole::Order, QueryRole::Sort]);
    }
    if SEARCH_NAMES.contains(&name) {
        return Some(vec![QueryRole::Search]);
    }
    None
}

/// Filter operator suffixes and the operators they spell (`year_gte`, `name__icontains`).
const FILTER_SUFFIXES: [(&str, &str); 21] = [
    ("_gte", "gte"),
    ("_lte", "lte"),
    ("_gt", "gt"),
    ("_lt", "lt"),
    ("_ne", "ne"),
    ("_like", "like"),
    ("__gte", "gte"),
    ("__lte", "lte"),
    ("__gt", "gt"),
    ("__lt", "lt"),
    ("__in", "in"),
    ("__icontains", "like"),
    ("__contains", "like"),
    ("__not", "ne"),
    ("__notin", "nin"),
    ("__isnull", "null"),
    ("__notnull", "nnull"),
    ("__startswith", "starts"),
    ("__endswith", "ends"),
    ("__like", "pattern"),
    ("__glob", "glob"),
];
/// Filter operator prefixes and the operators they spell (`min_year`, `in_tag`).
const FILTER_PREFIXES: [(&str, &str); 8] = [
    ("in_", "in"),
    ("not_", "ne"),
    ("gt_", "gt"),
    ("lt_", "lt"),
    ("min_", "gte"),
    ("max_", "lte"),
    ("like_", "like"),
    ("eq_", "eq"),
];

/// The filter roles a name may play over a field the entities hold: the field's own name
/// (equality), an operator suffix or prefix, or a bracketed filter.
fn filter_roles(name: &str, has_field: &dyn Fn(&str) -> bool) -> Vec<QueryRole> {
    let mut roles = Vec::new();
    if has_field(name) {
        // A field's own name compares by equality, or (tried after it) holds the value as a
        // case-insensitive substring (`title=page` listing "Login page times out").
        for op in ["eq", "like"] {
            roles.push(QueryRole::Filter {
                field: name.to_owned(),
                op: op.to_owned(),
            });
        }
    }
    let worded = roles.len();
    for (suffix, op) in FILTER_SUFFIXES {
        if let Some(field) = name.strip_suffix(suffix)
            && !field.is_empty()
            && has_field(field)
        {
            roles.push(QueryRole::Filter {
                field: field.to_owned(),
                op: op.to_owned(),
            });
        }
    }
    for (prefix, op) in FILTER_PREFIXES {
        if let Some(field) = name.strip_prefix(prefix)
            && !field.is_empty()
            && has_field(field)
        {
            roles.push(QueryRole::Filter {
                field: field.to_owned(),
                op: op.to_owned(),
            });
        }
    }
    for (field, op) in worded_suffixes(name) {
        // Any operator word after a held field and an underscore (Ransack's `status_eq`,
        // `status_not_eq`, `priority_gteq`, `title_cont`, `due_null`), after the fixed suffixes.
        let role = QueryRole::filter(field, op);
        if has_field(field) && !roles.contains(&role) {
            roles.push(role);
        }
    }
    if let Some((field, op)) = bracket_filter(name)
        && has_field(&field)
    {
        roles.push(QueryRole::Filter { field, op });
    }
    if let Some((field, op)) = bracketed_field(name).and_then(dotted_operator)
        && has_field(field)
    {
        // An operator word after a dot or a colon inside the brackets (`filter[rating.gte]`,
        // `filter[title.icontains]`, `filter[status:eq]`).
        roles.push(QueryRole::filter(field, op));
    }
    if let Some(field) = bracketed_field(name)
        && has_field(field)
    {
        // A held field in brackets with no operator word (`filter[status]`): one of a
        // comma-separated list (`filter[status]=done,doing`; one value is equality), else
        // equality (a value holding a comma).
        for op in ["in", "eq"] {
            roles.push(QueryRole::filter(field, op));
        }
    }
    if let Some(field) = bracketed_field(name).and_then(|inner| inner.strip_prefix('-'))
        && has_field(field)
    {
        // A held field after a `-` in the brackets excludes (dynamic-rest's
        // `filter{-status}=done`): none of a comma-separated list, else inequality.
        for op in ["nin", "ne"] {
            roles.push(QueryRole::filter(field, op));
        }
    }
    if name.to_ascii_lowercase().contains("like") {
        with_star_wildcards(&mut roles, worded);
    }
    roles
}

/// Adds, after the roles, the case-insensitive glob reading (`iglob`) of each text-pattern filter
/// among `worded` (a name spelling the word `like`: `filter[title:like]`, `title__like`; not a
/// field's own name): an application may spell the pattern's wildcard as `*` (pyramid-jsonapi's
/// `*page*`, turned into SQL's `%`), which the recordings then establish.
fn with_star_wildcards(roles: &mut Vec<QueryRole>, worded: usize) {
    let starred: Vec<QueryRole> = (roles[worded..].iter())
        .filter_map(|role| match role {
            QueryRole::Filter { field, op } if matches!(op.as_str(), "like" | "pattern") => {
                Some(QueryRole::filter(field, "iglob"))
            }
            _ => None,
        })
        .collect();
    for role in starred {
        if !roles.contains(&role) {
            roles.push(role);
        }
    }
}

/// Each split of a name at an underscore into a field and an operator word after it
/// (`status_not_eq`: `status` and `ne`; `assignee_id_null`: `assignee_id` and `null`), the
/// longest field first; a name holding a bracket or a brace splits none.
pub fn worded_suffixes(name: &str) -> Vec<(&str, &'static str)> {
    if name.contains(['[', ']', '{', '}']) {
        return Vec::new();
    }
    name.match_indices('_')
        .rev()
        .filter(|(at, _)| *at > 0 && *at + 1 < name.len())
        .filter(|(at, _)| !name[..*at].ends_with('_') && !name[at + 1..].starts_with('_'))
        .filter_map(|(at, _)| Some((&name[..at], operator_word(&name[at + 1..])?)))
        .collect()
}

/// The field a name holds in one pair of brackets or braces after a non-empty base, when it is
/// no operator word (`filter[status]`, dynamic-rest's `filter{status}`; not `views[gte]`, nor
/// `filter[a][b]`).
fn bracketed_field(name: &str) -> Option<&str> {
    let open = name.find(['[', '{'])?;
    let close = if name[open..].starts_with('[') {
        ']'
    } else {
        '}'
    };
    let (base, rest) = (&name[..open], &name[open + 1..]);
    let field = rest.strip_suffix(close)?;
    (!base.is_empty()
        && !field.is_empty()
        && !field.contains(['[', ']', '{', '}'])
        && operator_word(field).is_none())
    .then_some(field)
}

/// A field and the operator an operator word after a dot or a colon spells (`rating.gte`,
/// `status.in`, `status:eq`, `project.code:eq`); `None` when the last part is no operator word.
fn dotted_operator(inner: &str) -> Option<(&str, &'static str)> {
    let (field, word) = inner.rsplit_once(['.', ':'])?;
    (!field.is_empty() && !word.starts_with(['_', '$']))
        .then(|| operator_word(word))
        .flatten()
        .map(|op| (field, op))
}

/// An operator word's meaning (`_eq`, `$gte`, `neq`, `icontains`, `starts_with`, `isnull` …):
/// the operator it spells (see [`OPERATORS`]).
pub fn operator_word(word: &str) -> Option<&'static str> {
    let word = word.trim_start_matches(['_', '$']).to_ascii_lowercase();
    if word == "like" {
        return Some("like");
    }
    OPERATORS
        .iter()
        .find(|(_, words)| words.contains(&word.as_str()))
        .map(|(op, _)| *op)
        .or_else(|| {
            OPERATOR_ALIASES
                .iter()
                .find(|(alias, _)| *alias == word.as_str())
                .map(|(_, op)| *op)
        })
}

/// The word (without its `_` or `$` sigil) that quantifies a filter over the entities a member
/// names many of, spelled after the member in a bracket path (`filter[tasks][_some][assignee]
/// [_eq]`): the filter holds when some of them holds it. Its complement (`none`) is not modelled.
pub const QUANTIFIER_WORDS: [&str; 1] = ["some"];

/// Words read as an operator where a recording spells one so, but never offered where a family
/// of spellings is completed (see [`OPERATORS`]): a range's bounds `min` and `max` (`gte`,
/// `lte`), `fuzzy-match` (`like`) and `exists` (`nnull`: `true` holds a value, `false` is absent
/// or null), as fortune-json-api's `filter[f][min]`, `[fuzzy-match]` and `[exists]` spell them,
/// and `inq` (`in`), as LoopBack's `filter[where][f][inq]` spells it, and the presence tests
/// `is_null`, `not_null` and the text matches `starts`, `ends`, `exact` (equality) as an operator
/// companion's value spells them (`title__match=starts`, PiccoloCRUD), and SQLAlchemy's operator
/// names `ge`, `le` (`gte`, `lte`), `ilike` (`pattern`) and `not_in` (`nin`) as a list of
/// conditions spells them (`filter=[{"name": "estimate", "op": "ge", "val": 5}]`; `not_in` one
/// app: Flask-Restless-NG), and Flask-AppBuilder's `ct`
/// (`like`), `sw` (`starts`) and `ew` (`ends`) in a Rison query's conditions, and Ransack's
/// predicates after a field and an underscore (`status_not_eq`, `priority_gteq`, `title_cont`,
/// `title_start`, `title_end`: Rails' search forms).
pub const OPERATOR_ALIASES: [(&str, &str); 25] = [
    ("min", "gte"),
    ("max", "lte"),
    ("fuzzy-match", "like"),
    ("exists", "nnull"),
    ("inq", "in"),
    ("is_null", "null"),
    ("not_null", "nnull"),
    ("starts", "starts"),
    ("ends", "ends"),
    ("exact", "eq"),
    ("ge", "gte"),
    ("le", "lte"),
    ("ilike", "pattern"),
    ("not_in", "nin"),
    ("ct", "like"),
    ("sw", "starts"),
    ("ew", "ends"),
    ("not_eq", "ne"),
    ("gteq", "gte"),
    ("lteq", "lte"),
    ("cont", "like"),
    ("i_cont", "like"),
    ("start", "starts"),
    ("end", "ends"),
    ("present", "nnull"),
];

/// The operators a filter may apply, each with the words that spell it (lower case, without a
/// leading `_` or `$`): what a family of operator spellings is completed with.
/// - `eq`, `ne`: equal, not equal (as text); `gt`, `gte`, `lt`, `lte`: order (numbers as numbers);
/// - `in`, `nin`: one of / none of a comma-separated list;
/// - `like`: contains, case-insensitively; `starts`, `ends`: begins / ends with;
/// - `null`, `nnull`: the field is absent or null (value `true`/`1`) or not (`false`/`0`);
/// - `between`: within two comma-separated bounds, inclusive;
/// - `pattern`: an SQL `LIKE` pattern (`%` any run of characters, `_` one), case-insensitively;
///   its word `like` reads as the substring operator `like` wherever a recording established
///   that (see [`operator_word`]), and spells `pattern` only where a family of spellings that
///   never established it is completed;
/// - `glob`: a glob pattern (`*` any run, `?` one character, `[…]` one of a set), case-sensitively.
pub const OPERATORS: [(&str, &[&str]); 16] = [
    ("eq", &["eq"]),
    ("ne", &["ne", "neq", "not"]),
    ("gt", &["gt"]),
    ("gte", &["gte"]),
    ("lt", &["lt"]),
    ("lte", &["lte"]),
    ("in", &["in"]),
    ("nin", &["nin", "notin"]),
    ("like", &["contains", "icontains"]),
    ("starts", &["startswith", "starts_with"]),
    ("ends", &["endswith", "ends_with"]),
    ("null", &["isnull", "null"]),
    ("nnull", &["notnull", "nnull"]),
    ("between", &["between"]),
    ("pattern", &["like"]),
    ("glob", &["glob"]),
];

/// The operators that read a field holding an array of scalars item by item: the filter holds
/// when one item holds it (a substring of one item's text, as the text of the whole array, its
/// items joined, would hold it for a value spanning no item boundary).
pub const ARRAY_ITEM_OPERATORS: [&str; 1] = ["like"];

/// The order comparisons.
pub const ORDER_COMPARISONS: [&str; 4] = ["gt", "gte", "lt", "lte"];

/// The operators that read a list of values: a family of spellings holding one of them besides
/// an order comparison is an operator slot that takes any operator word (as in Django-style
/// `__in`/`__lte` or `filter[f][_in]`/`filter[f][_lte]`); comparisons and a `like` alone (as in
/// `_gte`/`_like`) are a fixed set.
pub const SET_OPERATORS: [&str; 2] = ["in", "nin"];

/// A filter in bracket form through a path of two or more names (`filter[project][code][_eq]`:
/// the field `code` of what `project` names), as the names and the operator; `None` for another
/// name, or a path through a logical group or branch (`filter[_or][0][state][_eq]`).
pub fn bracket_path(name: &str) -> Option<(Vec<String>, String)> {
    let (base, rest) = name.split_once('[')?;
    let groups: Vec<&str> = rest.strip_suffix(']')?.split("][").collect();
    let (word, path) = groups.split_last()?;
    let plain = |part: &&str| {
        !part.is_empty()
            && !part.starts_with(['_', '$'])
            && part
                .chars()
                .all(|character| character.is_alphanumeric() || matches!(character, '_' | '-'))
    };
    (!base.is_empty() && path.len() >= 2 && path.iter().all(plain))
        .then(|| operator_word(word))
        .flatten()
        .map(|op| {
            (
                path.iter().map(|part| (*part).to_owned()).collect(),
                op.to_owned(),
            )
        })
}

/// The member a filter in one pair of brackets or braces reaches through, its field dotted
/// after it (dynamic-rest's `filter{project.code}`, `filter{project.active.in}`: `project`);
/// `None` for an undotted field or one whose dot spells an operator (`filter{priority.gte}`).
/// A leading `-` (dynamic-rest's exclusion, `filter{-project.code}`) is no part of the member.
pub fn bracketed_relation(name: &str) -> Option<&str> {
    let inner = bracketed_field(name)?;
    let inner = inner.strip_prefix('-').unwrap_or(inner);
    let field = dotted_operator(inner).map_or(inner, |(field, _)| field);
    let (member, rest) = field.split_once('.')?;
    (!member.is_empty() && !rest.is_empty()).then_some(member)
}

/// A filter in bracket form: `field[op]` or `name[field][op]` (`views[gte]`,
/// `filter[state][_eq]`, `filters[title][$contains]`), as the field and the operator.
pub fn bracket_filter(name: &str) -> Option<(String, String)> {
    let (base, rest) = name.split_once('[')?;
    let inner = rest.strip_suffix(']')?;
    let groups: Vec<&str> = inner.split("][").collect();
    let (field, word) = match groups.as_slice() {
        [word] => (base, *word),
        [field, word] if !base.is_empty() => (*field, *word),
        _ => return None,
    };
    if field.is_empty() || field.contains(['[', ']']) {
        return None;
    }
    Some((field.to_owned(), operator_word(word)?.to_owned()))
}

/// Whether a name proposes a role by itself (a page, size, offset, end, sort, direction or
/// search name), so a grammar never makes it a filter.
pub fn is_role_name(name: &str) -> bool {
    !candidate_roles(name, &|_| false).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operator_word_after_a_field_and_an_underscore_filters_it() {
        let held = |field: &str| ["status", "priority", "assignee_id", "title"].contains(&field);
        for (name, field, op) in [
            ("status_eq", "status", "eq"),
            ("status_not_eq", "status", "ne"),
            ("priority_gteq", "priority", "gte"),
            ("priority_lteq", "priority", "lte"),
            ("title_cont", "title", "like"),
            ("title_start", "title", "starts"),
            ("status_in", "status", "in"),
            ("assignee_id_null", "assignee_id", "null"),
            ("assignee_id_not_null", "assignee_id", "nnull"),
        ] {
            assert!(
                candidate_roles(name, &held).contains(&QueryRole::filter(field, op)),
                "{name}"
            );
        }
        // Nested in a wrapper's brackets, as Ransack's `q[…]` spells them.
        assert_eq!(
            candidate_roles("q[status_eq]", &held),
            vec![QueryRole::filter("status", "eq")]
        );
        // A word no operator spells, a field the entities lack, a double underscore's own
        // suffixes only.
        for name in ["status_at", "colour_eq", "priority__gteq"] {
            assert!(candidate_roles(name, &held).is_empty(), "{name}");
        }
    }

    #[test]
    fn a_dotted_field_in_braces_or_brackets_reaches_through_its_first_member() {
        assert_eq!(bracketed_relation("filter{project.code}"), Some("project"));
        assert_eq!(
            bracketed_relation("filter{project.active.in}"),
            Some("project")
        );
        assert_eq!(bracketed_relation("filter[project.code]"), Some("project"));
        assert_eq!(bracketed_relation("filter{-project.code}"), Some("project"));
        for name in [
            "filter{priority.gte}",
            "filter{status}",
            "filter{.code}",
            "project.code",
            "filter[project][code][_eq]",
        ] {
            assert_eq!(bracketed_relation(name), None, "{name}");
        }
    }

    #[test]
    fn a_name_nested_in_a_wrapper_is_unnested_from_that_wrapper_alone() {
        assert_eq!(
            nested_in("filter", "where[projectId]"),
            "filter[where][projectId]"
        );
        assert_eq!(nested_in("filter", "limit"), "filter[limit]");
        for name in ["where[projectId]", "where[estimate][gte]", "limit"] {
            let nested = nested_in("filter", name);
            assert_eq!(unnested_from("filter", &nested).as_deref(), Some(name));
            assert_eq!(unnested_from("query", &nested), None);
        }
        assert_eq!(unnested_from("filter", "filters[where][a]"), None);
    }

    #[test]
    fn a_name_nested_in_a_wrappers_brackets_plays_the_roles_of_its_inner_name() {
        let held = |field: &str| ["status", "priority"].contains(&field);
        assert_eq!(
            candidate_roles("filter[where][status]", &held),
            vec![
                QueryRole::filter("status", "in"),
                QueryRole::filter("status", "eq")
            ]
        );
        assert_eq!(
            candidate_roles("filter[where][priority][gt]", &held),
            vec![QueryRole::filter("priority", "gt")]
        );
        assert_eq!(
            candidate_roles("filter[where][status][inq]", &held),
            vec![QueryRole::filter("status", "in")]
        );
        assert_eq!(
            candidate_roles("filter[limit]", &held),
            vec![QueryRole::PageSize]
        );
        assert_eq!(
            candidate_roles("filter[order]", &held),
            vec![QueryRole::Order, QueryRole::Sort]
        );
        // A name with roles of its own keeps them; groups, indexes and operators never unnest.
        assert_eq!(unnested("filter[status]"), Some("status".to_owned()));
        assert!(
            candidate_roles("filter[status]", &held).contains(&QueryRole::filter("status", "in"))
        );
        for name in [
            "$or[0][status]",
            "filter[_or][0][status]",
            "views[gte]",
            "a[0]",
            "[x]",
        ] {
            assert_eq!(unnested(name), None, "{name}");
        }
        assert!(candidate_roles("filter[where][colour]", &held).is_empty());
    }

    #[test]
    fn a_fields_own_name_is_equality_then_a_substring() {
        assert_eq!(
            candidate_roles("title", &|field| field == "title"),
            vec![
                QueryRole::filter("title", "eq"),
                QueryRole::filter("title", "like")
            ]
        );
        assert!(candidate_roles("colour", &|field| field == "title").is_empty());
    }

    #[test]
    fn an_operator_word_after_a_dot_in_brackets_filters_the_field_before_it() {
        let held = |field: &str| ["rating", "title", "author.name"].contains(&field);
        assert_eq!(
            candidate_roles("filter[rating.gte]", &held),
            vec![QueryRole::filter("rating", "gte")]
        );
        assert_eq!(
            candidate_roles("filter[title.icontains]", &held),
            vec![QueryRole::filter("title", "like")]
        );
        // A dotted field whose last part is no operator word is the field itself.
        assert_eq!(
            candidate_roles("filter[author.name]", &held),
            vec![
                QueryRole::filter("author.name", "in"),
                QueryRole::filter("author.name", "eq")
            ]
        );
        assert!(candidate_roles("filter[pages.gte]", &held).is_empty());
        // After a colon (pyramid-jsonapi), a dotted field's too.
        assert_eq!(
            candidate_roles("filter[rating:ge]", &held),
            vec![QueryRole::filter("rating", "gte")]
        );
        assert_eq!(
            candidate_roles("filter[author.name:eq]", &held),
            vec![QueryRole::filter("author.name", "eq")]
        );
    }

    #[test]
    fn a_reserved_name_less_a_sigil_plays_its_roles() {
        assert_eq!(unsigiled("@sort"), "sort");
        assert_eq!(unsigiled("_sort"), "_sort");
        assert_eq!(unsigiled("@"), "@");
        assert_eq!(unsigiled("__order"), "order");
        assert_eq!(unsigiled("___order"), "___order");
        assert_eq!(unsigiled("__"), "__");
        assert!(spelled_in(&PAGE_SIZE_NAMES, "__page_size"));
        assert_eq!(
            candidate_roles("__page", &|_| false),
            vec![QueryRole::Page { base: 1 }, QueryRole::Page { base: 0 }]
        );
        assert!(spelled_in(&SORT_NAMES, "@sort"));
        assert!(!spelled_in(&SORT_NAMES, "@title"));
        assert_eq!(
            candidate_roles("@page_size", &|_| false),
            vec![QueryRole::PageSize]
        );
        assert_eq!(
            candidate_roles("@page_index", &|_| false),
            vec![QueryRole::Page { base: 1 }, QueryRole::Page { base: 0 }]
        );
    }

    #[test]
    fn cursor_names_propose_a_cursor_whose_key_is_learned() {
        for name in ["_next", "since"] {
            assert_eq!(
                candidate_roles(name, &|_| true),
                vec![QueryRole::After { key: String::new() }],
                "{name}"
            );
        }
        assert_eq!(
            candidate_roles("_size", &|_| false),
            vec![QueryRole::PageSize]
        );
    }

    #[test]
    fn bracket_filters_read_field_and_operator() {
        let has = |field: &str| ["state", "views"].contains(&field);
        assert_eq!(
            candidate_roles("filter[state][_eq]", &has),
            vec![QueryRole::filter("state", "eq")]
        );
        assert_eq!(
            candidate_roles("views[gte]", &has),
            vec![QueryRole::filter("views", "gte")]
        );
        assert_eq!(
            candidate_roles("filters[views][$contains]", &has),
            vec![QueryRole::filter("views", "like")]
        );
        // An unknown operator word, an unheld field, or a deeper path proposes nothing.
        assert!(candidate_roles("filter[state][_regex]", &has).is_empty());
        assert!(candidate_roles("filter[colour][_eq]", &has).is_empty());
        assert!(candidate_roles("filter[project][code][_eq]", &has).is_empty());
    }

    #[test]
    fn a_braced_field_filters_as_a_bracketed_one_and_a_dash_excludes() {
        // dynamic-rest: `filter{status}`, `filter{priority.gte}`, `filter{-status}`.
        let has = |field: &str| ["status", "priority"].contains(&field);
        assert_eq!(
            candidate_roles("filter{status}", &has),
            candidate_roles("filter[status]", &has)
        );
        assert_eq!(
            candidate_roles("filter{priority.gte}", &has),
            vec![QueryRole::filter("priority", "gte")]
        );
        assert_eq!(
            candidate_roles("filter{-status}", &has),
            vec![
                QueryRole::filter("status", "nin"),
                QueryRole::filter("status", "ne")
            ]
        );
        // A brace closed by a bracket, an unheld field or a nested pair is no braced field.
        assert!(candidate_roles("filter{status]", &has).is_empty());
        assert!(candidate_roles("filter{-colour}", &has).is_empty());
        assert_eq!(bracketed_field("filter{a}{b}"), None);
    }

    #[test]
    fn a_bracketed_field_is_one_of_a_list_and_a_nested_paging_name_pages() {
        let has = |field: &str| ["status", "limit"].contains(&field);
        assert_eq!(
            candidate_roles("filter[status]", &has),
            vec![
                QueryRole::filter("status", "in"),
                QueryRole::filter("status", "eq")
            ]
        );
        // An unheld field, an operator word or a deeper path is no bracketed field.
        assert!(candidate_roles("filter[colour]", &has).is_empty());
        assert_eq!(bracketed_field("views[gte]"), None);
        assert_eq!(bracketed_field("filter[a][b]"), None);
        assert_eq!(bracketed_field("[status]"), None);
        assert_eq!(
            candidate_roles("page[limit]", &has),
            vec![QueryRole::PageSize]
        );
        assert_eq!(
            candidate_roles("page[offset]", &has),
            vec![QueryRole::Offset]
        );
        assert_eq!(
            candidate_roles("page[number]", &has),
            vec![QueryRole::Page { base: 1 }, QueryRole::Page { base: 0 }]
        );
        // Only paging names nest in a page name; another base is a filter's.
        assert_eq!(paging_member_roles("page[sort]"), None);
        assert_eq!(paging_member_roles("filter[number]"), None);
        assert_eq!(paging_member_roles("filter[limit]"), None);
        assert_eq!(
            candidate_roles("filter[limit]", &has),
            vec![
                QueryRole::filter("limit", "in"),
                QueryRole::filter("limit", "eq")
            ]
        );
    }

    #[test]
    fn role_names_propose_their_role_alone() {
        for name in ["limit", "per_page", "maxSize", "max_results", "maxResults"] {
            assert_eq!(
                candidate_roles(name, &|_| true),
                vec![QueryRole::PageSize],
                "{name}"
            );
            assert!(is_role_name(name));
        }
        assert_eq!(
            candidate_roles("page", &|_| false),
            vec![QueryRole::Page { base: 1 }, QueryRole::Page { base: 0 }]
        );
        assert!(!is_role_name("status"));
        assert_eq!(operator_word("$NEQ"), Some("ne"));
        assert_eq!(operator_word("_starts_with"), Some("starts"));
        assert_eq!(operator_word("isnull"), Some("null"));
        assert_eq!(operator_word("_nnull"), Some("nnull"));
        assert_eq!(operator_word("between"), Some("between"));
        assert_eq!(operator_word("glob"), Some("glob"));
        // fortune-json-api's bracket words.
        assert_eq!(operator_word("min"), Some("gte"));
        assert_eq!(operator_word("max"), Some("lte"));
        assert_eq!(operator_word("fuzzy-match"), Some("like"));
        assert_eq!(operator_word("exists"), Some("nnull"));
        // `like` names the substring operator a recording establishes; `regex` is no word.
        assert_eq!(operator_word("_like"), Some("like"));
        assert_eq!(operator_word("regex"), None);
        let has = |field: &str| field == "title";
        // A `like` word's pattern may spell its wildcard `*` (`iglob`, tried last).
        assert_eq!(
            candidate_roles("title__like", &has),
            vec![
                QueryRole::filter("title", "pattern"),
                QueryRole::filter("title", "iglob")
            ]
        );
        assert_eq!(
            candidate_roles("filter[title:like]", &has),
            vec![
                QueryRole::filter("title", "like"),
                QueryRole::filter("title", "iglob")
            ]
        );
        assert_eq!(
            candidate_roles("filter[title:ilike]", &has),
            vec![
                QueryRole::filter("title", "pattern"),
                QueryRole::filter("title", "iglob")
            ]
        );
        assert_eq!(
            candidate_roles("title__glob", &has),
            vec![QueryRole::filter("title", "glob")]
        );
        let has = |field: &str| field == "due";
        assert_eq!(
            candidate_roles("due__notnull", &has),
            vec![QueryRole::filter("due", "nnull")]
        );
        assert_eq!(
            candidate_roles("filter[due][_null]", &has),
            vec![QueryRole::filter("due", "null")]
        );
    }
}
