//! A multimap built once and then only read: its pairs held as one list sorted by key, so a key
//! with one value (an item id, read once) costs one pair, where a hash map of lists costs a table
//! slot and a list of its own (issue 17: the `listed-id` stage's indexes of 16k item routes held
//! about 9 MiB as maps of lists, while the stage holds the whole route-form request).

use std::borrow::Borrow;

/// Values by key, in the order they were given for each key (see the module docs).
pub(crate) struct MultiIndex<K, V> {
    pairs: Vec<(K, V)>,
}

impl<K: Ord, V> MultiIndex<K, V> {
    /// The index of these pairs; the values of one key keep their order.
    pub(crate) fn new(mut pairs: Vec<(K, V)>) -> Self {
        // A stable sort: equal keys keep the order they were given in.
        pairs.sort_by(|left, right| left.0.cmp(&right.0));
        pairs.shrink_to_fit();
        Self { pairs }
    }

    /// The values of `key`, in the order they were given (none when the key is absent).
    pub(crate) fn get<'s, Q>(&'s self, key: &'s Q) -> impl Iterator<Item = &'s V> + 's
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let start = self.pairs.partition_point(|(held, _)| held.borrow() < key);
        self.pairs[start..]
            .iter()
            .take_while(move |(held, _)| held.borrow() == key)
            .map(|(_, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_a_key_keep_their_order() {
        let index = MultiIndex::new(vec![("b", 1), ("a", 2), ("b", 3), ("c", 4), ("b", 0)]);
        assert_eq!(index.get("b").copied().collect::<Vec<_>>(), [1, 3, 0]);
        assert_eq!(index.get("a").copied().collect::<Vec<_>>(), [2]);
        assert_eq!(index.get("z").count(), 0);
        assert_eq!(index.get("0").count(), 0);
    }
}
