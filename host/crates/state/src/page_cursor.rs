//! Envelope members naming a page's position by a keyset cursor ([`CursorForm`]): the cursor of
//! the last member a page listed (the sort keys' values, then the cursor's key field value,
//! comma-separated with `+` for a space, as the cursor parameter reads them), as the last
//! position listed, as the next page's cursor while matches remain, or as a link to the next
//! page. Learned where every checked line of a list with a cursor parameter shows the member so,
//! and minted for every call the state evaluates.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use rea_plugin_api::json::{Json, Object};

use crate::model::{CursorForm, QueryModel, QueryRole};
use crate::render::scalar_text;

/// What form-encoding leaves as it is: letters, digits and `*-._`.
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'*')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_');

/// One evaluated call as cursor members see it.
pub struct PageEnd<'a> {
    /// The list's query model.
    pub model: &'a QueryModel,
    /// The call's arguments with its expressions split (as evaluated).
    pub expanded: &'a [(String, String)],
    /// The call's arguments as sent.
    pub sent: &'a [(String, String)],
    /// The last member the page listed.
    pub last: Option<&'a Object>,
    /// Whether matches remain after the page.
    pub remaining: bool,
}

impl PageEnd<'_> {
    /// The cursor parameter's name and key field.
    fn cursor(&self) -> Option<(&str, &str)> {
        self.model
            .parameters
            .iter()
            .find_map(|(name, role)| match role {
                QueryRole::After { key } => Some((name.as_str(), key.as_str())),
                _ => None,
            })
    }

    /// The fields the call sorts by.
    fn sort_fields(&self) -> Vec<&str> {
        self.expanded
            .iter()
            .filter(|(name, _)| matches!(self.model.role(name), Some(QueryRole::Sort)))
            .flat_map(|(_, value)| value.split(','))
            .filter(|field| !field.is_empty())
            .map(|field| field.trim_start_matches('-'))
            .collect()
    }

    /// The cursor naming the last member listed, as text; `None` when a value is missing.
    fn last_text(&self, last: &Object, key: &str) -> Option<String> {
        let mut parts = Vec::new();
        for field in self.sort_fields().into_iter().chain([key]) {
            let value = crate::query::field_value(last, field).and_then(scalar_text)?;
            parts.push(value.replace(' ', "+"));
        }
        Some(parts.join(","))
    }

    /// The member's value for this page in a form; `None` when it cannot be told.
    pub fn value(&self, form: &CursorForm) -> Option<Json> {
        let (name, key) = self.cursor()?;
        let Some(last) = self.last else {
            return Some(Json::Null);
        };
        let text = self.last_text(last, key)?;
        match form {
            CursorForm::Last if self.sort_fields().is_empty() => {
                crate::query::field_value(last, key).cloned()
            }
            CursorForm::Last => Some(Json::String(text)),
            _ if !self.remaining => Some(Json::Null),
            CursorForm::Next => Some(Json::String(text)),
            CursorForm::NextLink { prefix } => Some(Json::String(format!(
                "{prefix}?{}",
                self.query(name, &text)
            ))),
        }
    }

    /// The next page's query: the call's other arguments, the cursor, then its sorts.
    fn query(&self, cursor: &str, text: &str) -> String {
        let sorts = |name: &str| {
            self.expanded.iter().any(|(expanded, _)| expanded == name)
                && matches!(self.model.role(name), Some(QueryRole::Sort))
        };
        let others = self
            .sent
            .iter()
            .filter(|(name, _)| name != cursor && !sorts(name));
        let sorted = self.sent.iter().filter(|(name, _)| sorts(name));
        let cursor_pair = (cursor.to_owned(), text.to_owned());
        others
            .chain(std::iter::once(&cursor_pair))
            .chain(sorted)
            .map(|(name, value)| format!("{}={}", form_encode(name), form_encode(value)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// Form-encodes a query name or value (`+` for a space).
fn form_encode(text: &str) -> String {
    utf8_percent_encode(text, FORM)
        .to_string()
        .replace("%20", "+")
}

/// The forms a member holding `value` in one line may take, most specific first.
pub fn candidate_forms(value: &Json) -> Vec<CursorForm> {
    let mut forms = vec![CursorForm::Next, CursorForm::Last];
    if let Some((prefix, _)) = value.as_str().and_then(|text| text.split_once('?')) {
        forms.insert(
            0,
            CursorForm::NextLink {
                prefix: prefix.to_owned(),
            },
        );
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Object {
        match rea_plugin_api::json::parse(text.as_bytes()).expect("json") {
            Json::Object(object) => object,
            _ => unreachable!(),
        }
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn a_page_end_names_the_last_member_by_the_cursor() {
        let model = QueryModel::of_roles(&[
            ("_size", QueryRole::PageSize),
            ("_sort_desc", QueryRole::Sort),
            ("_next", QueryRole::After { key: "id".into() }),
        ]);
        let last = object(r#"{"id": 4, "title": "Renew TLS", "priority": 3}"#);
        let sent = pairs(&[("_sort_desc", "priority"), ("_size", "5")]);
        let expanded = pairs(&[("_sort_desc", "-priority"), ("_size", "5")]);
        let mut end = PageEnd {
            model: &model,
            expanded: &expanded,
            sent: &sent,
            last: Some(&last),
            remaining: true,
        };
        assert_eq!(end.value(&CursorForm::Next), Some(Json::from("3,4")));
        let link = CursorForm::NextLink {
            prefix: "http://h/t.json".into(),
        };
        assert_eq!(
            end.value(&link),
            Some(Json::from(
                "http://h/t.json?_size=5&_next=3%2C4&_sort_desc=priority"
            ))
        );
        end.remaining = false;
        assert_eq!(end.value(&CursorForm::Next), Some(Json::Null));
        assert_eq!(end.value(&link), Some(Json::Null));
        assert_eq!(end.value(&CursorForm::Last), Some(Json::from("3,4")));
        // Without a sort the last position is the key's own value; a text keeps its spaces as `+`.
        let unsorted: Vec<(String, String)> = Vec::new();
        end.expanded = &unsorted;
        end.sent = &unsorted;
        assert_eq!(end.value(&CursorForm::Last), Some(Json::from(4i64)));
        let titled = QueryModel::of_roles(&[(
            "_next",
            QueryRole::After {
                key: "title".into(),
            },
        )]);
        end.model = &titled;
        end.remaining = true;
        assert_eq!(end.value(&CursorForm::Next), Some(Json::from("Renew+TLS")));
        // Without a cursor parameter nothing is minted.
        let none = QueryModel::of_roles(&[]);
        end.model = &none;
        assert_eq!(end.value(&CursorForm::Next), None);
    }
}
