//! A rule's options, read into its own `Options` type: the check `rea pipeline check` runs before
//! anything learns, and the option names a stage declares, read off the type.
//!
//! A rule names its options as a serde type (`#[derive(Deserialize)] struct Options { fields:
//! Vec<String> }`, or [`NoOptions`](crate::contracts::rule::NoOptions) for none). The pipeline's
//! table is read into it exactly as `learn` will read it; a value that does not fit is one
//! [`OptionProblem`] with the JSON pointer of the value (`/fields/1`), which the host turns into
//! the pipeline file's line and column.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::{Map, Value};

use crate::PluginError;
use crate::contracts::rule::{OptionProblem, RawOptions};

/// Reads the pipeline's options into a rule's options type.
pub fn read_options<O: DeserializeOwned>(options: &RawOptions) -> Result<O, OptionProblem> {
    let table: Map<String, Value> = options
        .iter()
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    serde_path_to_error::deserialize(Value::Object(table)).map_err(|error| {
        let pointer = pointer_of(error.path());
        OptionProblem {
            message: error.into_inner().to_string(),
            pointer,
        }
    })
}

/// Every problem reading the options into `O` (serde stops at the first, so at most one).
pub fn check_options<O: DeserializeOwned>(options: &RawOptions) -> Vec<OptionProblem> {
    read_options::<O>(options).err().into_iter().collect()
}

/// The error `learn` answers for options that do not fit (a pipeline `rea pipeline check`
/// accepted never gives one, unless the plugin predates the check).
pub fn invalid_option(problem: &OptionProblem) -> PluginError {
    let at = if problem.pointer.is_empty() {
        "the options".to_owned()
    } else {
        format!("option `{}`", problem.pointer)
    };
    PluginError::new("invalid_option", format!("{at}: {}", problem.message))
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        let token = match segment {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } => key.replace('~', "~0").replace('/', "~1"),
            Segment::Enum { variant } => variant.replace('~', "~0").replace('/', "~1"),
            Segment::Unknown => break,
        };
        pointer.push('/');
        pointer.push_str(&token);
    }
    pointer
}

/// The member names of an options type that is a plain struct (what serde's derive names its
/// fields); `None` for any other shape (a map, a flattened struct), whose names cannot be listed.
pub fn option_names<O: DeserializeOwned>() -> Option<&'static [&'static str]> {
    let mut recorder = FieldRecorder(None);
    let _ = O::deserialize(&mut recorder);
    recorder.0
}

/// A deserializer that only records the field names a struct asks for, then stops.
struct FieldRecorder(Option<&'static [&'static str]>);

#[derive(Debug)]
struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field names recorded")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl<'de> Deserializer<'de> for &mut FieldRecorder {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Stop> {
        self.0 = Some(fields);
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::rule::NoOptions;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Options {
        #[serde(default)]
        fields: Vec<String>,
        #[serde(default)]
        limit: Option<u32>,
    }

    fn raw(value: Value) -> RawOptions {
        serde_json::from_value(value).expect("a table")
    }

    #[test]
    fn values_that_fit_read_and_others_are_located() {
        let read: Options =
            read_options(&raw(json!({"fields": ["version"], "limit": 3}))).expect("fits");
        assert_eq!(read.fields, ["version"]);
        let problem = read_options::<Options>(&raw(json!({"fields": ["version", 7]})))
            .expect_err("a number is no field name");
        assert_eq!(problem.pointer, "/fields/1");
        assert!(problem.message.contains("expected a string"), "{problem:?}");
        let problem = read_options::<Options>(&raw(json!({"limit": -1}))).expect_err("negative");
        assert_eq!(problem.pointer, "/limit");
        let problems = check_options::<NoOptions>(&raw(json!({"x": 1})));
        assert_eq!(problems.len(), 1);
        assert!(check_options::<NoOptions>(&RawOptions::new()).is_empty());
        assert_eq!(invalid_option(&problem).code.as_str(), "invalid_option");
    }

    #[test]
    fn a_struct_names_its_options() {
        assert_eq!(option_names::<Options>(), Some(&["fields", "limit"][..]));
        assert_eq!(option_names::<NoOptions>(), Some(&[][..]));
        assert_eq!(option_names::<RawOptions>(), None);
    }
}
