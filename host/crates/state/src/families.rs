//! Families of query parameter names a list accepts beyond its named parameters (see
//! `rea_plugin_api::contracts::query::QueryGrammarOutcome::families`): anchored patterns a query
//! grammar proposes for names that are unbounded (`filter[_or][0][state][_eq]`, a filter term in
//! a branch of a group), which the state catalog offers as `patternProperties` and a call's
//! arguments resolve against. The pattern is the subset JSON Schema's ECMA-262 regular
//! expressions and the `regex` crate read alike.

use std::collections::BTreeMap;

/// Whether the host keeps a proposed pattern: anchored at both ends, no group construct of one
/// dialect only (`(?…)`, lookaround, named groups), no back-reference, and a pattern the `regex`
/// crate compiles.
pub fn readable(pattern: &str) -> bool {
    let anchored = pattern.starts_with('^') && pattern.ends_with('$') && !pattern.ends_with("\\$");
    let one_dialect = pattern.contains("(?")
        || pattern
            .as_bytes()
            .windows(2)
            .any(|pair| pair[0] == b'\\' && (pair[1].is_ascii_digit() || pair[1] == b'k'));
    anchored && !one_dialect && regex::Regex::new(pattern).is_ok()
}

/// The first family (pattern → description) whose pattern matches the whole `name`.
pub fn family_of<'a>(families: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    families
        .keys()
        .find(|pattern| matches(pattern, name))
        .map(String::as_str)
}

/// Whether `pattern` matches `name`. Families are kept only when [`readable`] (checked once,
/// where the grammar's proposal is kept), so the pattern is compiled here once, not checked again.
pub fn matches(pattern: &str, name: &str) -> bool {
    regex::Regex::new(pattern).is_ok_and(|regex| regex.is_match(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_anchored_patterns_of_the_shared_subset_are_kept() {
        assert!(readable(
            r"^filter(\[(_and|_or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$"
        ));
        for pattern in [
            "filter.*", "^filter", "filter$", r"^a\$", "^(?i)a$", "^(?=a)a$", r"^(a)\1$", "^(a$",
        ] {
            assert!(!readable(pattern), "{pattern}");
        }
    }

    #[test]
    fn a_name_finds_the_family_matching_it_whole() {
        let families = BTreeMap::from([(
            r"^filter(\[(_and|_or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$".to_owned(),
            "a term in a group".to_owned(),
        )]);
        assert!(family_of(&families, "filter[_or][0][state][_eq]").is_some());
        assert!(family_of(&families, "filter[_or][1][_and][0][a][_gte]").is_some());
        for name in [
            "filter[state][_eq]",
            "xfilter[_or][0][a][_eq]",
            "filter[_or][x][a][_eq]",
        ] {
            assert!(family_of(&families, name).is_none(), "{name}");
        }
    }
}
