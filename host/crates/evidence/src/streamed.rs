//! The id [`Evidence::seal_value`](crate::Evidence::seal_value) gives a value, hashed member by
//! member and array item by item: the JSON tree (and the `serde_json` text) of the whole value is
//! never held, only one top-level member that is no array, or one item of one that is, at a time.
//!
//! The canonical form is an object's members in byte order of their names, so the value is
//! walked once for its member names and once more per member, in that order (a walk serializes
//! only the member it is after). An array member is written `[`, its items' canonical forms
//! joined by `,`, `]`: exactly what the canonical form of the whole array is.

use rea_json::{Json, write_canonical_string};
use serde::Serialize;
use serde::ser::{self, Impossible, SerializeMap, SerializeSeq, SerializeStruct};
use sha2::{Digest, Sha256};

use crate::envelope::{EVIDENCE_ID_MEMBER, OPERATION_MEMBER, id_of_digest};
use crate::refusal::Refusal;

/// The id `Evidence::seal_value(operation, value)` gives, without the value's tree.
pub fn sealed_id_of<T: Serialize + ?Sized>(operation: &str, value: &T) -> Result<String, Refusal> {
    let refused = |error: Error| {
        Refusal::internal(format!(
            "the {operation} Evidence did not serialize: {}",
            error.0
        ))
    };
    let mut names = Vec::new();
    value
        .serialize(Members {
            walk: Walk::Names(&mut names),
        })
        .map_err(refused)?;
    names.retain(|name| name != EVIDENCE_ID_MEMBER && name != OPERATION_MEMBER);
    names.push(OPERATION_MEMBER.to_owned());
    names.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    names.dedup();
    let mut hasher = Hashed {
        hasher: Sha256::new(),
        buffer: Vec::new(),
    };
    hasher.write(b"{");
    for (index, name) in names.iter().enumerate() {
        if index > 0 {
            hasher.write(b",");
        }
        write_canonical_string(name, &mut hasher.buffer);
        hasher.write(b":");
        if name == OPERATION_MEMBER {
            write_canonical_string(operation, &mut hasher.buffer);
            continue;
        }
        value
            .serialize(Members {
                walk: Walk::Member(name, &mut hasher),
            })
            .map_err(refused)?;
    }
    hasher.write(b"}");
    hasher.flush();
    Ok(id_of_digest(&hasher.hasher.finalize()))
}

/// A SHA-256 fed through a buffer.
struct Hashed {
    hasher: Sha256,
    buffer: Vec<u8>,
}

impl Hashed {
    const FLUSH_AT: usize = 64 * 1024;

    fn write(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= Self::FLUSH_AT {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.hasher.update(&self.buffer);
        self.buffer.clear();
    }

    /// Writes a value's canonical form (typed as `Json::from_serialize` types it).
    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let json = Json::from_serialize(value).map_err(|error| Error(error.to_string()))?;
        json.write_canonical(&mut self.buffer);
        if self.buffer.len() >= Self::FLUSH_AT {
            self.flush();
        }
        Ok(())
    }
}

/// A serialization error, or (`NOT_AN_ARRAY`) a member that is no array.
#[derive(Debug)]
struct Error(String);

const NOT_AN_ARRAY: &str = "not an array";

impl std::fmt::Display for Error {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<M: std::fmt::Display>(message: M) -> Self {
        Error(message.to_string())
    }
}

/// What a walk of the top-level object does.
enum Walk<'a> {
    /// Collects the member names.
    Names(&'a mut Vec<String>),
    /// Writes the named member's value.
    Member(&'a str, &'a mut Hashed),
}

/// The top-level object, walked.
struct Members<'a> {
    walk: Walk<'a>,
}

impl Members<'_> {
    fn member<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<(), Error> {
        match &mut self.walk {
            Walk::Names(names) => names.push(name.to_owned()),
            Walk::Member(wanted, hashed) if *wanted == name => {
                // Nothing is written before a value shows it is an array.
                let items = Items {
                    hashed,
                    first: true,
                };
                match value.serialize(items) {
                    Err(Error(message)) if message == NOT_AN_ARRAY => hashed.value(value)?,
                    other => other?,
                }
            }
            Walk::Member(..) => {}
        }
        Ok(())
    }
}

/// A map key's text (a flattened struct's members arrive as map entries).
fn key_name<K: Serialize + ?Sized>(key: &K) -> Result<String, Error> {
    match Json::from_serialize(key).map_err(|error| Error(error.to_string()))? {
        Json::String(name) => Ok(String::from(name)),
        other => Err(Error(format!(
            "a member name is {}, not a string",
            other.type_name()
        ))),
    }
}

/// Members of the top-level object arrive one by one; the map's pending key waits for its value.
struct Object<'a> {
    members: Members<'a>,
    key: Option<String>,
}

impl SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.members.member(key, value)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key_name(key)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("a map value without its key".to_owned()))?;
        self.members.member(&key, value)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// An array member's items, each written as its own canonical form.
struct Items<'a> {
    hashed: &'a mut Hashed,
    first: bool,
}

impl SerializeSeq for Items<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if !std::mem::take(&mut self.first) {
            self.hashed.write(b",");
        }
        self.hashed.value(value)
    }

    fn end(self) -> Result<(), Error> {
        self.hashed.write(b"]");
        Ok(())
    }
}

/// The methods of a serializer that takes one kind of value: every other kind is `$error`.
macro_rules! only {
    ($error:expr) => {
        fn serialize_bool(self, _: bool) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_i8(self, _: i8) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_i16(self, _: i16) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_i32(self, _: i32) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_i64(self, _: i64) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_u8(self, _: u8) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_u16(self, _: u16) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_u32(self, _: u32) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_u64(self, _: u64) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_f32(self, _: f32) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_f64(self, _: f64) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_char(self, _: char) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_str(self, _: &str) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_none(self) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_unit(self) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), Error> {
            Err(Error($error.into()))
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
            Err(Error($error.into()))
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, Error> {
            Err(Error($error.into()))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Error> {
            Err(Error($error.into()))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Error> {
            Err(Error($error.into()))
        }
    };
}

const NOT_AN_OBJECT: &str = "the Evidence body is not an object";

impl<'a> ser::Serializer for Members<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Impossible<(), Error>;

    only!(NOT_AN_OBJECT);

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(Error(NOT_AN_OBJECT.into()))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Object<'a>, Error> {
        Ok(Object {
            members: self,
            key: None,
        })
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Object<'a>, Error> {
        Ok(Object {
            members: self,
            key: None,
        })
    }
}

impl<'a> ser::Serializer for Items<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Items<'a>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    only!(NOT_AN_ARRAY);

    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'a>, Error> {
        self.hashed.write(b"[");
        Ok(self)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(Error(NOT_AN_ARRAY.into()))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(Error(NOT_AN_ARRAY.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Evidence;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Inner {
        z: Vec<BTreeMap<String, f64>>,
        a: Option<Vec<u8>>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        empty: Vec<u8>,
        n: u64,
    }

    #[derive(Serialize)]
    struct Outer<'a> {
        #[serde(flatten)]
        inner: &'a Inner,
        evidence_id: &'static str,
        items: Vec<Inner>,
        text: &'static str,
        none: Vec<u8>,
    }

    #[test]
    fn the_streamed_id_is_the_sealed_id() {
        let inner = |n: u64| Inner {
            z: vec![
                BTreeMap::from([("é".to_owned(), 1.5), ("b".to_owned(), 1e21)]),
                BTreeMap::new(),
            ],
            a: n.is_multiple_of(2).then(|| vec![1, 2]),
            empty: Vec::new(),
            n,
        };
        let first = inner(1);
        let value = Outer {
            inner: &first,
            evidence_id: "ev_ignored",
            items: (0..3).map(inner).collect(),
            text: "a \"quoted\"\n line",
            none: Vec::new(),
        };
        let sealed = Evidence::seal_value("inspect_analysis_view", &value).unwrap();
        assert_eq!(
            sealed_id_of("inspect_analysis_view", &value).unwrap(),
            sealed.id()
        );
    }

    #[test]
    fn a_body_that_is_no_object_is_refused() {
        assert!(sealed_id_of("op", &vec![1, 2]).is_err());
    }
}
