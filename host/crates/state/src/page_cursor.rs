//! Envelope members naming a page's position by a keyset cursor ([`CursorForm`]): the cursor of
//! the last member a page listed (the sort keys' values, then the cursor's key field value,
//! comma-separated with `+` for a space, as the cursor parameter reads them), as the last
//! position listed, as the next page's cursor while matches remain, or as a link to the next
//! page; or by page number, an object of links beside the list whose relations each repeat the
//! call's query with the page parameter first, set to the previous, the same or the next page
//! ([`CursorForm::PageLinks`]). Learned where every checked line of a list with a cursor (or a
//! page and a page-size) parameter shows the member so, and minted for every call the state
//! evaluates.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use rea_plugin_api::json::{Json, Object};

use crate::model::{CursorForm, PageRelation, QueryModel, QueryRole};
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
    /// How many members matched before paging.
    pub matched: usize,
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

    /// The member's value for this page in a form, `Some(None)` when the page leaves it out;
    /// `None` when it cannot be told.
    pub fn minted(&self, form: &CursorForm) -> Option<Option<Json>> {
        match form {
            CursorForm::PageLinks {
                prefix,
                decoded,
                relations,
            } => self.page_links(prefix, *decoded, relations),
            _ => self.value(form).map(Some),
        }
    }

    /// The member's value for this page in a keyset form; `None` when it cannot be told (or the
    /// form is no keyset form).
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
            CursorForm::PageLinks { .. } => None,
        }
    }

    /// The page parameter's name and base, when the model has one.
    fn page_parameter(&self) -> Option<(&str, u64)> {
        self.model
            .parameters
            .iter()
            .chain(&self.model.generalized)
            .find_map(|(name, role)| match role {
                QueryRole::Page { base } => Some((name.as_str(), *base)),
                _ => None,
            })
    }

    /// The page the call asks for (the base without a page parameter); `None` when its value
    /// is no page number.
    fn page(&self, name: &str, base: u64) -> Option<u64> {
        match self.expanded.iter().find(|(sent, _)| sent == name) {
            Some((_, value)) => value.parse().ok(),
            None => Some(base),
        }
    }

    /// The links object of a [`CursorForm::PageLinks`] form: absent unless the call names a
    /// page size; each relation present where the page it names exists.
    fn page_links(
        &self,
        prefix: &str,
        decoded: bool,
        relations: &[PageRelation],
    ) -> Option<Option<Json>> {
        let sized = self
            .expanded
            .iter()
            .any(|(name, _)| matches!(self.model.role(name), Some(QueryRole::PageSize)));
        if !sized {
            return Some(None);
        }
        let (name, base) = self.page_parameter()?;
        let page = self.page(name, base)?;
        let size: u64 = self
            .expanded
            .iter()
            .find(|(name, _)| matches!(self.model.role(name), Some(QueryRole::PageSize)))
            .and_then(|(_, value)| value.parse().ok())?;
        let listed_through = (page.checked_sub(base)? + 1).checked_mul(size)?;
        let mut links = Object::new();
        for relation in relations {
            let target = match relation.step {
                0 => page,
                -1 if page > base => page - 1,
                1 if listed_through < self.matched as u64 => page + 1,
                -1 | 1 => continue,
                _ => return None,
            };
            let link = format!("{prefix}?{}", self.page_query(name, target, decoded));
            let entry = crate::render::with_value_at(
                relation.template.clone(),
                &relation.link,
                Json::String(link),
            );
            links.insert(relation.key.clone(), entry);
        }
        Some(Some(Json::Object(links)))
    }

    /// A page's query: the page parameter first, then the call's other arguments as sent, each
    /// spelled as decoded or form-encoded.
    fn page_query(&self, name: &str, page: u64, decoded: bool) -> String {
        let spell = |text: &str| {
            if decoded {
                text.to_owned()
            } else {
                form_encode(text)
            }
        };
        let page_pair = (name.to_owned(), page.to_string());
        std::iter::once(&page_pair)
            .chain(self.sent.iter().filter(|(sent, _)| sent != name))
            .map(|(name, value)| format!("{}={}", spell(name), spell(value)))
            .collect::<Vec<_>>()
            .join("&")
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

/// The [`CursorForm::PageLinks`] forms the links objects recorded on pages (each with the page
/// it answered, of the page parameter `name`) may take, form-encoded first: each member of
/// them a relation holding one link text whose query names the page parameter, its step and
/// entry alike on every page showing it, and every link text after one prefix; none otherwise.
pub fn page_link_forms(shown: &[(&Json, u64)], name: &str) -> Vec<CursorForm> {
    let mut prefixes: Vec<String> = Vec::new();
    let mut relations: Vec<PageRelation> = Vec::new();
    for (links, page) in shown {
        let Some(object) = links.as_object().filter(|object| !object.is_empty()) else {
            return Vec::new();
        };
        for (key, entry) in object.iter() {
            let Some((prefix, relation)) = page_relation(key, entry, name, *page) else {
                return Vec::new();
            };
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
            match relations.iter().find(|known| known.key == relation.key) {
                Some(known) if *known != relation => return Vec::new(),
                Some(_) => {}
                None => relations.push(relation),
            }
        }
    }
    let [prefix] = prefixes.as_slice() else {
        return Vec::new();
    };
    // Relations every page showed in key order are minted in key order.
    let sorted = shown.iter().all(|(links, _)| {
        links.as_object().is_some_and(|object| {
            let keys: Vec<&str> = object.iter().map(|(key, _)| key).collect();
            keys.is_sorted()
        })
    });
    if sorted {
        relations.sort_by(|a, b| a.key.cmp(&b.key));
    }
    [false, true]
        .into_iter()
        .map(|decoded| CursorForm::PageLinks {
            prefix: prefix.clone(),
            decoded,
            relations: relations.clone(),
        })
        .collect()
}

/// One relation of a links object recorded on page `page`, with the text before its link's
/// query: its entry must hold one link text, whose query gives the page parameter `name`.
fn page_relation(key: &str, entry: &Json, name: &str, page: u64) -> Option<(String, PageRelation)> {
    let mut texts = Vec::new();
    link_texts(entry, "", &mut texts);
    let [(link, text)] = texts.as_slice() else {
        return None;
    };
    let (prefix, query) = text.split_once('?')?;
    let target = i64::try_from(query_page(query, name)?).ok()?;
    let step = target - i64::try_from(page).ok()?;
    let relation = PageRelation {
        key: key.to_owned(),
        step,
        template: crate::render::with_value_at(entry.clone(), link, Json::Null),
        link: link.clone(),
    };
    Some((prefix.to_owned(), relation))
}

/// The string leaves of a value holding a query (`?`), with their pointers.
fn link_texts(value: &Json, at: &str, found: &mut Vec<(String, String)>) {
    match value {
        Json::String(text) if text.contains('?') => found.push((at.to_owned(), text.clone())),
        Json::Object(object) => {
            for (key, member) in object.iter() {
                let pointer = format!("{at}/{}", rea_plugin_api::json::escape_pointer_segment(key));
                link_texts(member, &pointer, found);
            }
        }
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                link_texts(item, &format!("{at}/{index}"), found);
            }
        }
        _ => {}
    }
}

/// The page number a link's query gives the page parameter `name` (its name compared decoded).
fn query_page(query: &str, name: &str) -> Option<u64> {
    query.split('&').find_map(|pair| {
        let (spelled, value) = pair.split_once('=')?;
        let decoded = rea_manifest::segments::percent_decode(spelled)?;
        (decoded == name).then(|| value.parse().ok()).flatten()
    })
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
            matched: 9,
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

    fn links_form(decoded: bool) -> CursorForm {
        let relation = |key: &str, step: i64| PageRelation {
            key: key.to_owned(),
            step,
            template: rea_plugin_api::json::parse(
                format!(r#"[{{"rel": "{key}", "uri": null}}]"#).as_bytes(),
            )
            .expect("json"),
            link: "/0/uri".to_owned(),
        };
        CursorForm::PageLinks {
            prefix: "http://h/issue".into(),
            decoded,
            relations: vec![
                relation("next", 1),
                relation("prev", -1),
                relation("self", 0),
            ],
        }
    }

    fn links_of(minted: Option<Option<Json>>) -> Vec<(String, String)> {
        let Some(Some(Json::Object(links))) = minted else {
            panic!("links: {minted:?}");
        };
        links
            .iter()
            .map(|(key, entry)| {
                let link = entry
                    .pointer("/0/uri")
                    .and_then(Json::as_str)
                    .expect("a link");
                (key.to_owned(), link.to_owned())
            })
            .collect()
    }

    #[test]
    fn page_links_repeat_the_query_with_the_page_first_where_the_page_exists() {
        let model = QueryModel::of_roles(&[
            ("@page_index", QueryRole::Page { base: 1 }),
            ("@page_size", QueryRole::PageSize),
            ("@sort", QueryRole::Sort),
        ]);
        let sent = pairs(&[("@sort", "-id"), ("@page_size", "3"), ("@fields", "a,b")]);
        let mut end = PageEnd {
            model: &model,
            expanded: &sent,
            sent: &sent,
            last: None,
            remaining: true,
            matched: 6,
        };
        // The first page (no page named): self and next, the page parameter first, decoded.
        assert_eq!(
            links_of(end.minted(&links_form(true))),
            vec![
                (
                    "next".to_owned(),
                    "http://h/issue?@page_index=2&@sort=-id&@page_size=3&@fields=a,b".to_owned()
                ),
                (
                    "self".to_owned(),
                    "http://h/issue?@page_index=1&@sort=-id&@page_size=3&@fields=a,b".to_owned()
                ),
            ]
        );
        // The last page: prev and self; form-encoded when so learned.
        let last = pairs(&[("@page_index", "2"), ("@page_size", "3")]);
        end.expanded = &last;
        end.sent = &last;
        let keys: Vec<String> = links_of(end.minted(&links_form(false)))
            .into_iter()
            .map(|(key, link)| format!("{key} {link}"))
            .collect();
        assert_eq!(
            keys,
            vec![
                "prev http://h/issue?%40page_index=1&%40page_size=3",
                "self http://h/issue?%40page_index=2&%40page_size=3"
            ]
        );
        // A page past the end still names the one before it.
        let past = pairs(&[("@page_size", "2"), ("@page_index", "5")]);
        end.expanded = &past;
        end.sent = &past;
        let keys: Vec<String> = links_of(end.minted(&links_form(true)))
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        assert_eq!(keys, vec!["prev", "self"]);
        // No page size named: no links object; a page that is no number: not told.
        let unsized_call = pairs(&[("@sort", "id")]);
        end.expanded = &unsized_call;
        assert_eq!(end.minted(&links_form(true)), Some(None));
        let wrong = pairs(&[("@page_size", "2"), ("@page_index", "x")]);
        end.expanded = &wrong;
        assert_eq!(end.minted(&links_form(true)), None);
    }

    #[test]
    fn page_link_forms_merge_the_relations_every_page_showed() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let first = parse(
            r#"{"next": [{"rel": "next", "uri": "http://h/i?@page_index=2&@page_size=2"}],
                "self": [{"rel": "self", "uri": "http://h/i?@page_index=1&@page_size=2"}]}"#,
        );
        let last = parse(
            r#"{"prev": [{"rel": "prev", "uri": "http://h/i?@page_index=2&@page_size=2"}],
                "self": [{"rel": "self", "uri": "http://h/i?@page_index=3&@page_size=2"}]}"#,
        );
        let forms = page_link_forms(&[(&first, 1), (&last, 3)], "@page_index");
        assert_eq!(forms.len(), 2);
        let CursorForm::PageLinks {
            prefix,
            decoded,
            relations,
        } = &forms[0]
        else {
            panic!("{forms:?}");
        };
        assert_eq!((prefix.as_str(), *decoded), ("http://h/i", false));
        let steps: Vec<(&str, i64)> = relations
            .iter()
            .map(|relation| (relation.key.as_str(), relation.step))
            .collect();
        assert_eq!(steps, vec![("next", 1), ("prev", -1), ("self", 0)]);
        assert_eq!(relations[0].link, "/0/uri");
        // A relation whose step differs between pages, or a link without the page: no form.
        let shifted =
            parse(r#"{"self": [{"rel": "self", "uri": "http://h/i?@page_index=2&@page_size=2"}]}"#);
        assert!(page_link_forms(&[(&first, 1), (&shifted, 3)], "@page_index").is_empty());
        let pageless = parse(r#"{"self": "http://h/i?@page_size=2"}"#);
        assert!(page_link_forms(&[(&pageless, 1)], "@page_index").is_empty());
    }
}
