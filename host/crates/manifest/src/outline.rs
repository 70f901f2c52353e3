//! The outline of a JSON text in document order: objects as ordered member lists, arrays as item
//! lists, scalars as their type. The returns summary reads member names from it in the order the
//! application wrote them, whatever map ordering serde_json is built with.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON value's structure, in document order, without scalar values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outline {
    /// An object's members in document order.
    Object(Vec<(String, Outline)>),
    /// An array's items.
    Array(Vec<Outline>),
    /// A scalar: `string`, `number`, `boolean` or `null`.
    Scalar(&'static str),
}

/// Where a body's list is, by the environment state's list rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListAt<'a> {
    /// The body is the list: a root array of objects.
    Root(&'a [Outline]),
    /// The one member of an envelope object whose value is an array of objects.
    Member(&'a str, &'a [Outline]),
}

impl Outline {
    /// The outline of a JSON text, `None` when it does not parse.
    pub fn of(json: &str) -> Option<Outline> {
        serde_json::from_str(json).ok()
    }

    /// The list a body carries, by the environment state's list rule (`rea-state`'s
    /// `list_pointer`): the root array when every item is an object, else the one member of an
    /// object whose value is an array of objects. An empty array counts as an array of objects,
    /// so an envelope with two such members (one of them empty) carries no list. The returns
    /// summary of the card names this list, so it describes the list the state serves.
    pub fn list(&self) -> Option<ListAt<'_>> {
        fn of_objects(items: &[Outline]) -> bool {
            items.iter().all(|item| matches!(item, Outline::Object(_)))
        }
        match self {
            Outline::Array(items) if of_objects(items) => Some(ListAt::Root(items)),
            Outline::Object(members) => {
                let mut lists = members.iter().filter_map(|(name, value)| match value {
                    Outline::Array(items) if of_objects(items) => Some((name.as_str(), items)),
                    _ => None,
                });
                match (lists.next(), lists.next()) {
                    (Some((name, items)), None) => Some(ListAt::Member(name, items)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Outline {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OutlineVisitor)
    }
}

struct OutlineVisitor;

impl<'de> Visitor<'de> for OutlineVisitor {
    type Value = Outline;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Outline, E> {
        Ok(Outline::Scalar("boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Outline, E> {
        Ok(Outline::Scalar("number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Outline, E> {
        Ok(Outline::Scalar("number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Outline, E> {
        Ok(Outline::Scalar("number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Outline, E> {
        Ok(Outline::Scalar("string"))
    }

    fn visit_unit<E>(self) -> Result<Outline, E> {
        Ok(Outline::Scalar("null"))
    }

    fn visit_none<E>(self) -> Result<Outline, E> {
        Ok(Outline::Scalar("null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Outline, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Outline>()? {
            items.push(item);
        }
        Ok(Outline::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outline, A::Error> {
        let mut members = Vec::new();
        while let Some((name, value)) = map.next_entry::<String, Outline>()? {
            members.push((name, value));
        }
        Ok(Outline::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_document_order() {
        let outline = Outline::of(r#"{"z": 1, "a": [{"k": null}], "m": "x"}"#).unwrap();
        let Outline::Object(members) = outline else {
            panic!("object expected")
        };
        let names: Vec<&str> = members.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, vec!["z", "a", "m"]);
        assert_eq!(
            members[1].1,
            Outline::Array(vec![Outline::Object(vec![(
                "k".into(),
                Outline::Scalar("null")
            )])])
        );
        assert!(Outline::of("{").is_none());
    }
}
