//! What the cited records show of a tool's inputs beyond the manifest's value-free shapes: the
//! values each query parameter was sent with, and which request body members every call sent.
//! The catalog types query parameters from these values and marks always-sent body members
//! required ([`crate::catalog`]); the manifest itself stays value-free.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::capture::CaptureRecord;

use crate::shape::ShapeBuilder;

/// At most this many distinct values are kept per query parameter.
pub const MAX_VALUES: usize = 64;

/// What one record's request shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordInputs {
    /// The decoded query pairs (sensitive pairs left out).
    pub query: Vec<(String, String)>,
    /// The top-level members of the request body, when it is a JSON object or a form.
    pub body_members: Option<BTreeSet<String>>,
    /// Whether the request carried a body of another kind (an array, text, bytes).
    pub other_body: bool,
}

impl RecordInputs {
    /// What a capture record's request shows.
    pub fn of(record: &CaptureRecord) -> Self {
        let query = record
            .query
            .iter()
            .flat_map(|query| query.pairs.iter().flatten().cloned())
            .collect();
        let mut shape = ShapeBuilder::default();
        shape.add(&record.request.body, record.request.media_type.as_deref());
        let (body_members, other_body) = match shape.finish() {
            None => (None, false),
            Some(shape)
                if shape
                    .kinds
                    .iter()
                    .all(|kind| kind == "json-object" || kind == "form") =>
            {
                (Some(shape.members.into_keys().collect()), false)
            }
            Some(_) => (None, true),
        };
        Self {
            query,
            body_members,
            other_body,
        }
    }
}

/// What a tool's cited records show of its inputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolInputs {
    /// Per query name, its distinct values in first-seen order (at most [`MAX_VALUES`]), and
    /// whether more were seen.
    pub query_values: BTreeMap<String, (Vec<String>, bool)>,
    /// Per query name, how many records sent it.
    pub query_records: BTreeMap<String, u64>,
    /// The members every recorded object body sent (`None`: no record sent an object body, or
    /// some record sent a body of another kind).
    pub always_sent: Option<BTreeSet<String>>,
    /// Whether some record sent a body that is not an object or a form.
    other_bodies: bool,
}

impl ToolInputs {
    /// Adds one cited record.
    pub fn add(&mut self, record: &RecordInputs) {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for (name, value) in &record.query {
            let (values, more) = self.query_values.entry(name.clone()).or_default();
            if !values.contains(value) {
                if values.len() < MAX_VALUES {
                    values.push(value.clone());
                } else {
                    *more = true;
                }
            }
            if seen.insert(name) {
                *self.query_records.entry(name.clone()).or_default() += 1;
            }
        }
        if record.other_body {
            self.add_other_body();
        }
        if let (Some(members), false) = (&record.body_members, self.other_bodies) {
            self.always_sent = Some(match self.always_sent.take() {
                None => members.clone(),
                Some(always) => always.intersection(members).cloned().collect(),
            });
        }
    }

    /// Marks that a record sent a body that is neither a JSON object nor a form: no member is
    /// then required.
    pub fn add_other_body(&mut self) {
        self.other_bodies = true;
        self.always_sent = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(query: &[(&str, &str)], members: Option<&[&str]>) -> RecordInputs {
        RecordInputs {
            query: query
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
            body_members: members.map(|members| members.iter().map(|m| (*m).to_owned()).collect()),
            other_body: false,
        }
    }

    #[test]
    fn values_are_kept_distinct_in_order_and_members_intersected() {
        let mut tool = ToolInputs::default();
        tool.add(&inputs(
            &[("_page", "1"), ("tag", "a"), ("tag", "b")],
            Some(&["title", "views"]),
        ));
        tool.add(&inputs(&[("_page", "2"), ("_page", "1")], Some(&["title"])));
        assert_eq!(tool.query_values["_page"].0, ["1", "2"]);
        assert_eq!(tool.query_records["_page"], 2);
        assert_eq!(tool.query_records["tag"], 1);
        let always: Vec<&str> = tool
            .always_sent
            .as_ref()
            .unwrap()
            .iter()
            .map(String::as_str)
            .collect();
        assert_eq!(always, ["title"]);
        tool.add_other_body();
        tool.add(&inputs(&[], Some(&["title"])));
        assert_eq!(tool.always_sent, None);
    }
}
