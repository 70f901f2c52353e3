//! Pairing the items of two arrays in the answers to one call.
//!
//! Objects pair by a natural key: a string member that is not an identifier field, carried by
//! every object on each side, unique on each side, with at least one value both sides share
//! (`name`, `title`, `slug`, `key`, `code`, `username`, `email` are tried first, then the other
//! members in code-point order). Without one, items pair by position, and scalar arrays holding
//! the same values in another order pair by value.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::ids::IdFields;

/// How two arrays' items pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    /// `(live index, environment index)`, in live order.
    pub pairs: Vec<(usize, usize)>,
    /// Whether every item on both sides paired.
    pub complete: bool,
    /// The natural key used, when items paired by one.
    pub key: Option<String>,
}

impl Paired {
    /// Whether the paired items come in another order on the environment's side.
    pub fn reordered(&self) -> bool {
        self.pairs.windows(2).any(|pair| pair[1].1 < pair[0].1)
    }
}

const PREFERRED: [&str; 7] = ["name", "title", "slug", "key", "code", "username", "email"];

fn key_values<'a>(items: &'a [Value], key: &str) -> Option<Vec<&'a str>> {
    items
        .iter()
        .map(|item| item.as_object()?.get(key)?.as_str())
        .collect()
}

fn unique(values: &[&str]) -> bool {
    values.iter().collect::<BTreeSet<_>>().len() == values.len()
}

/// The natural key two arrays of objects share, if any.
pub fn natural_key(live: &[Value], env: &[Value], fields: &IdFields) -> Option<String> {
    let first = live.first()?.as_object()?;
    env.first()?.as_object()?;
    let mut names: Vec<&String> = first
        .iter()
        .filter(|(name, value)| value.is_string() && !fields.is_identifier(name))
        .map(|(name, _)| name)
        .collect();
    names.sort_by_key(|name| {
        (
            PREFERRED
                .iter()
                .position(|preferred| preferred == name)
                .unwrap_or(PREFERRED.len()),
            (*name).clone(),
        )
    });
    names.into_iter().find_map(|name| {
        let (left, right) = (key_values(live, name)?, key_values(env, name)?);
        let shared: BTreeSet<&str> = left.iter().copied().collect();
        (unique(&left) && unique(&right) && right.iter().any(|value| shared.contains(value)))
            .then(|| name.clone())
    })
}

/// Pairs two arrays' items (see the module docs).
pub fn pair(live: &[Value], env: &[Value], fields: &IdFields) -> Paired {
    if let Some(key) = natural_key(live, env, fields) {
        let positions: BTreeMap<&str, usize> = env
            .iter()
            .enumerate()
            .filter_map(|(index, item)| Some((item.get(&key)?.as_str()?, index)))
            .collect();
        let pairs: Vec<(usize, usize)> = live
            .iter()
            .enumerate()
            .filter_map(|(index, item)| {
                let value = item.get(&key)?.as_str()?;
                positions.get(value).map(|other| (index, *other))
            })
            .collect();
        let complete = pairs.len() == live.len() && pairs.len() == env.len();
        return Paired {
            pairs,
            complete,
            key: Some(key),
        };
    }
    if live.len() == env.len()
        && live
            .iter()
            .all(|item| !item.is_object() && !item.is_array())
        && live != env
        && let Some(pairs) = pair_by_value(live, env)
    {
        return Paired {
            pairs,
            complete: true,
            key: None,
        };
    }
    let count = live.len().min(env.len());
    Paired {
        pairs: (0..count).map(|index| (index, index)).collect(),
        complete: live.len() == env.len(),
        key: None,
    }
}

/// Scalars holding the same values in another order, paired by value.
fn pair_by_value(live: &[Value], env: &[Value]) -> Option<Vec<(usize, usize)>> {
    let mut taken = vec![false; env.len()];
    live.iter()
        .enumerate()
        .map(|(index, item)| {
            let other = (0..env.len()).find(|other| !taken[*other] && env[*other] == *item)?;
            taken[other] = true;
            Some((index, other))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn array(value: Value) -> Vec<Value> {
        value.as_array().unwrap().clone()
    }

    #[test]
    fn objects_pair_by_a_shared_unique_string_key() {
        // contract: COMPARE-013
        let live = array(json!([{"id": 7, "name": "b"}, {"id": 9, "name": "a"}]));
        let env = array(json!([{"id": 2, "name": "a"}, {"id": 1, "name": "b"}]));
        let paired = pair(&live, &env, &IdFields::default());
        assert_eq!(paired.key.as_deref(), Some("name"));
        assert_eq!(paired.pairs, vec![(0, 1), (1, 0)]);
        assert!(paired.complete && paired.reordered());
        // Not unique on one side: no natural key, position pairing.
        let live = array(json!([{"name": "a"}, {"name": "a"}]));
        let env = array(json!([{"name": "a"}, {"name": "b"}]));
        let paired = pair(&live, &env, &IdFields::default());
        assert_eq!(paired.key, None);
        assert_eq!(paired.pairs, vec![(0, 0), (1, 1)]);
    }

    #[test]
    fn unpaired_items_make_the_pairing_incomplete() {
        let live = array(json!([{"name": "a"}, {"name": "b"}, {"name": "c"}]));
        let env = array(json!([{"name": "c"}, {"name": "a"}]));
        let paired = pair(&live, &env, &IdFields::default());
        assert_eq!(paired.pairs, vec![(0, 1), (2, 0)]);
        assert!(!paired.complete);
    }

    #[test]
    fn scalars_in_another_order_pair_by_value() {
        let paired = pair(
            &array(json!(["x", "y", "z"])),
            &array(json!(["z", "x", "y"])),
            &IdFields::default(),
        );
        assert_eq!(paired.pairs, vec![(0, 1), (1, 2), (2, 0)]);
        assert!(paired.reordered());
    }
}
