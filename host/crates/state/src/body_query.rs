//! Body queries: a read whose query is its request body (see [`BodyQueryView`]). The pipeline's
//! query grammars read a body into terms (`split_body`); this module evaluates those terms over
//! the entities of the view's type, both when the view is learned (over the recorded entities)
//! and when a call is served (over the live state). The host never reads a body's language
//! itself: a body no grammar reads is not evaluated.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::query::{BASE64_ENCODING, BODY_COUNT_ONLY_TERM, BODY_FIELDS_TERM};
use rea_plugin_api::json::{Json, Object};

use crate::model::{
    BodyQueryView, DefaultOrder, Entity, EnvelopePresence, PageToken, QueryModel, QueryRole,
};
use crate::query::evaluate_over_bytes;
use crate::render::project_to;
use crate::rules::RuleSet;

/// A body read into the terms the state evaluates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyTerms {
    /// The filter, sort and paging terms (name, value).
    pub pairs: Vec<(String, String)>,
    /// Their roles (each term's one role).
    pub model: QueryModel,
    /// The fields a field selection asks for, in order.
    pub selection: Option<Vec<String>>,
    /// The fields the body filters or sorts by.
    pub named: BTreeSet<String>,
    /// Whether the body sorts.
    pub sorts: bool,
    /// The fields holding bytes in an encoding (field → encoding), compared as the bytes.
    pub encodings: BTreeMap<String, String>,
    /// The body asks for the count of its matches only: nothing is listed.
    pub count_only: bool,
}

/// Reads a request body into terms through the pipeline's query grammars (given the entities
/// the call may list, whose fields the grammars are told); `None` when no grammar reads it or a
/// term has no single role.
pub fn read_body(rules: &RuleSet, body: &Json, entities: &[&Entity]) -> Option<BodyTerms> {
    let value = body.to_serde_value().ok()?;
    let fields: Vec<String> = crate::derive::query_grammar::scalar_fields(entities.iter().copied())
        .into_iter()
        .collect();
    let lists = object_lists(entities);
    let outcome = rules.split_query_body(&value, (&fields, &lists))?;
    let mut read = BodyTerms {
        pairs: Vec::new(),
        model: QueryModel::of_roles(&[]),
        selection: None,
        named: BTreeSet::new(),
        sorts: false,
        encodings: outcome.encodings,
        count_only: false,
    };
    if read
        .encodings
        .values()
        .any(|encoding| encoding != BASE64_ENCODING)
    {
        return None;
    }
    for term in outcome.terms? {
        if term.name == BODY_COUNT_ONLY_TERM && term.roles.is_empty() {
            read.count_only = true;
            continue;
        }
        if term.name == BODY_FIELDS_TERM && term.roles.is_empty() {
            read.selection = Some(term.value.split(',').map(str::to_owned).collect());
            continue;
        }
        let [role] = term.roles.as_slice() else {
            return None;
        };
        match role {
            QueryRole::Filter { field, .. } => {
                read.named.insert(field.clone());
            }
            QueryRole::Sort => {
                read.sorts = true;
                for key in term.value.split(',') {
                    read.named.insert(key.trim_start_matches('-').to_owned());
                }
            }
            QueryRole::Order | QueryRole::Inert { .. } => return None,
            _ => {}
        }
        read.model
            .parameters
            .insert(term.name.clone(), role.clone());
        if !term.within.is_empty() {
            read.model
                .groups
                .get_or_insert_default()
                .insert(term.name.clone(), term.within);
        }
        read.pairs.push((term.name, term.value));
    }
    Some(read)
}

/// The members of the entities holding arrays of objects, at the top level or one object down
/// (dotted), sorted.
pub fn object_lists(entities: &[&Entity]) -> Vec<String> {
    let holds_objects = |value: &Json| {
        value.as_array().is_some_and(|items| {
            !items.is_empty() && items.iter().all(|item| matches!(item, Json::Object(_)))
        })
    };
    let mut lists = BTreeSet::new();
    for entity in entities {
        let Some(object) = entity.fields.as_object() else {
            continue;
        };
        for (name, value) in object.iter() {
            if holds_objects(value) {
                lists.insert(name.to_owned());
            }
            for (inner, nested) in value.as_object().into_iter().flat_map(Object::iter) {
                if holds_objects(nested) {
                    lists.insert(format!("{name}.{inner}"));
                }
            }
        }
    }
    lists.into_iter().collect()
}

/// The candidates in the order a body sorting nothing lists them (`members` in state order).
pub fn default_ordered<'a>(
    order: DefaultOrder,
    identity: &str,
    members: &[&'a Entity],
) -> Vec<&'a Entity> {
    let mut ordered = members.to_vec();
    let id = |entity: &Entity| crate::render::identity_text(&entity.fields, identity);
    match order {
        DefaultOrder::State => {}
        DefaultOrder::Reversed => ordered.reverse(),
        DefaultOrder::Identity => ordered.sort_by(|a, b| compare_ids(id(a), id(b))),
        DefaultOrder::IdentityDescending => {
            ordered.sort_by(|a, b| compare_ids(id(b), id(a)));
        }
    }
    ordered
}

fn compare_ids(left: Option<String>, right: Option<String>) -> Ordering {
    match (&left, &right) {
        (Some(a), Some(b)) => match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            _ => a.cmp(b),
        },
        _ => left.cmp(&right),
    }
}

/// What evaluating a body over candidates gives: the members listed (in order) and whether the
/// page left matches out.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// The rendered members, a field selection applied.
    pub members: Vec<Json>,
    /// Whether matches lie beyond the page.
    pub left_out: bool,
    /// The offset of the page after this one (the page's offset plus the members it listed).
    pub next_offset: usize,
    /// How many candidates matched before paging.
    pub matched: usize,
}

/// Evaluates the terms over the candidates (already in default order); `None` when the model
/// cannot read a value, or a listed member lacks one of `whole` (the members a seeded type's
/// entities held where listed whole, see [`BodyQueryView::whole_members`]) the call's selection
/// keeps.
pub fn list(terms: &BodyTerms, candidates: &[&Entity], whole: &[String]) -> Option<Listed> {
    let evaluated = evaluate(terms, candidates)?;
    let offset = terms
        .pairs
        .iter()
        .find(|(name, _)| matches!(terms.model.role(name), Some(QueryRole::Offset)))
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    if terms.count_only {
        return Some(Listed {
            members: Vec::new(),
            left_out: false,
            next_offset: offset,
            matched: evaluated.matched,
        });
    }
    let kept = |field: &String| {
        terms
            .selection
            .as_ref()
            .is_none_or(|selection| selection.contains(field))
    };
    let members = evaluated
        .members
        .iter()
        .map(|index| {
            let fields = &candidates[*index].fields;
            if whole
                .iter()
                .any(|field| kept(field) && fields.get(field).is_none())
            {
                return None;
            }
            Some(match &terms.selection {
                Some(selection) => project_to(fields, selection),
                None => fields.clone(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let next_offset = offset + members.len();
    Some(Listed {
        members,
        left_out: next_offset < evaluated.matched,
        next_offset,
        matched: evaluated.matched,
    })
}

/// The terms evaluated over the candidates (already in default order): the matches, sorted
/// and paged; `None` when the model cannot read a value.
fn evaluate(terms: &BodyTerms, candidates: &[&Entity]) -> Option<crate::query::Evaluated> {
    let objects: Vec<Object> = candidates
        .iter()
        .map(|entity| {
            decoded_object(
                terms,
                entity.fields.as_object().cloned().unwrap_or_default(),
            )
        })
        .collect::<Option<_>>()?;
    let borrowed: Vec<&Object> = objects.iter().collect();
    let pairs = decoded_pairs(terms)?;
    let byte_fields: BTreeSet<String> = terms.encodings.keys().cloned().collect();
    evaluate_over_bytes(&terms.model, &pairs, &borrowed, &byte_fields)
}

/// The candidates (already in default order) a body's terms select, in the order they list
/// them: what a write selecting by a read's body grammar writes (see
/// `writes::ranged`); `None` when the model cannot read a value.
pub fn selected<'a>(terms: &BodyTerms, candidates: &[&'a Entity]) -> Option<Vec<&'a Entity>> {
    let evaluated = evaluate(terms, candidates)?;
    Some(
        evaluated
            .members
            .iter()
            .map(|index| candidates[*index])
            .collect(),
    )
}

/// The bytes a base64 text spells, each byte one character (so text order is byte order).
fn decoded_text(text: &str) -> Option<String> {
    let bytes = rea_plugin_api::contracts::capture::base64::decode(text).ok()?;
    Some(bytes.into_iter().map(char::from).collect())
}

/// An entity's object as the terms compare it: each encoded field's text decoded (see
/// [`decoded_text`]); `None` when one does not decode.
fn decoded_object(terms: &BodyTerms, mut object: Object) -> Option<Object> {
    for field in terms.encodings.keys() {
        if let Some(Json::String(text)) = object.get(field) {
            let decoded = decoded_text(text)?;
            object.insert(field.clone(), Json::String(decoded.into()));
        }
    }
    Some(object)
}

/// The terms' values as they compare: a filter's value over an encoded field decoded.
fn decoded_pairs(terms: &BodyTerms) -> Option<Vec<(String, String)>> {
    terms
        .pairs
        .iter()
        .map(|(name, value)| match terms.model.role(name) {
            Some(QueryRole::Filter { field, .. }) if terms.encodings.contains_key(field) => {
                Some((name.clone(), decoded_text(value)?))
            }
            _ => Some((name.clone(), value.clone())),
        })
        .collect()
}

/// The answer body of a listing in the view's envelope; `None` when the envelope holds a member
/// the state cannot compute for it (a page token of a page that left matches out, unless the
/// view learned how its token is minted), or no recording showed the envelope of a page that
/// left matches out and this one does.
pub fn answer_body(view: &BodyQueryView, terms: &BodyTerms, listed: Listed) -> Option<Json> {
    if listed.left_out && !view.partial_pages {
        return None;
    }
    let mut object = Object::new();
    let mut list = (!(view.omit_empty_list && listed.members.is_empty()))
        .then_some(Json::Array(listed.members));
    for (position, member) in view.envelope.iter().enumerate() {
        if position == view.list_position
            && let Some(list) = list.take()
        {
            object.insert(view.list_member.clone(), list);
        }
        let holds = match &member.presence {
            EnvelopePresence::Always => true,
            EnvelopePresence::UnlessNamed { fields } => {
                !fields.iter().any(|field| terms.named.contains(field))
            }
            EnvelopePresence::Paged => {
                if listed.left_out {
                    let token = view
                        .page_token
                        .as_ref()
                        .filter(|token| token.member == member.member)?;
                    object.insert(
                        member.member.clone(),
                        Json::String(mint_token(token, listed.next_offset).into()),
                    );
                }
                false
            }
            EnvelopePresence::LeftOut => listed.left_out,
            EnvelopePresence::Matched { text, omit_zero } => {
                if !(*omit_zero && listed.matched == 0) {
                    let count = listed.matched.to_string();
                    let value = if *text {
                        Json::String(count.into())
                    } else {
                        rea_plugin_api::json::parse(count.as_bytes()).ok()?
                    };
                    object.insert(member.member.clone(), value);
                }
                false
            }
        };
        if holds {
            object.insert(member.member.clone(), member.value.clone());
        }
    }
    if let Some(list) = list {
        object.insert(view.list_member.clone(), list);
    }
    Some(Json::Object(object))
}

/// A page token naming the page at `offset` (see [`PageToken`]).
pub fn mint_token(token: &PageToken, offset: usize) -> String {
    let text = format!("{}{offset}{}", token.prefix, token.suffix);
    rea_plugin_api::contracts::capture::base64::encode(text.as_bytes())
}

impl crate::service::StateService {
    /// Answers a body query's call from the live state: its body read by the query grammars and
    /// evaluated over the entities of the view's type held in the collection the call's path
    /// lies under. `Err` (the reason) when the body is not read, or its page needs an envelope
    /// member the state cannot compute: the caller answers the recording of that very body or
    /// refuses.
    pub(crate) fn answer_body_query(
        &self,
        template: &str,
        view: &BodyQueryView,
        call: &crate::call::Call,
        exact: bool,
    ) -> Result<crate::answer::StateAnswer, &'static str> {
        self.answer_body_query_with(self.rules(), template, view, call, exact)
    }

    /// [`StateService::answer_body_query`] with the query grammars of `rules` (the confirming
    /// replay's service holds no stages of its own).
    pub(crate) fn answer_body_query_with(
        &self,
        rules: &RuleSet,
        template: &str,
        view: &BodyQueryView,
        call: &crate::call::Call,
        exact: bool,
    ) -> Result<crate::answer::StateAnswer, &'static str> {
        let body = Json::from_serde_value(call.body.as_ref().ok_or("query-body")?);
        let path = format!("/{}", call.segments(template).join("/"));
        let live = self.read();
        let collection = crate::derive::body_queries::enclosing_collection(
            live.collections_of(&view.entity_type),
            &path,
        )
        .ok_or("query-body")?;
        let members = live.collection(&view.entity_type, collection);
        let terms = read_body(rules, &body, &members).ok_or("query-body")?;
        let identity = &self
            .derived()
            .types
            .iter()
            .find(|entity_type| entity_type.collection_template == view.entity_type)
            .ok_or("query-body")?
            .identity_field;
        let candidates = default_ordered(view.default_order, identity, &members);
        let listed = list(&terms, &candidates, &view.whole_members).ok_or("query-body")?;
        let answer = answer_body(view, &terms, listed).ok_or("body-page")?;
        // The envelope's store counters stand where the live state's do.
        let answer = crate::counters::stamp(answer, live.counter_values());
        let base = self.kept(view.record_ordinal).ok_or("query-body")?;
        Ok(crate::answer::state_answer(
            base,
            answer,
            self.replay().evidence_id(),
            exact,
            crate::answer::StateSource::state(path, Some("body-query")),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BodyEnvelopeMember;

    use crate::test_support::parsed_json as json;

    fn entity(id: u64, title: &str) -> Entity {
        Entity {
            entity_type: "/posts".to_owned(),
            collection: "/posts".to_owned(),
            id: id.to_string(),
            fields: json(&format!(r#"{{"id": {id}, "title": "{title}"}}"#)),
            view_fields: Default::default(),
            record_ordinals: vec![0],
        }
    }

    fn terms(pairs: &[(&str, &str, QueryRole)], named: &[&str]) -> BodyTerms {
        let roles: Vec<(&str, QueryRole)> = pairs
            .iter()
            .map(|(name, _, role)| (*name, role.clone()))
            .collect();
        BodyTerms {
            pairs: pairs
                .iter()
                .map(|(name, value, _)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
            model: QueryModel::of_roles(&roles),
            selection: None,
            named: named.iter().map(|field| (*field).to_owned()).collect(),
            sorts: false,
            encodings: BTreeMap::new(),
            count_only: false,
        }
    }

    fn view(envelope: Vec<BodyEnvelopeMember>, partial_pages: bool) -> BodyQueryView {
        BodyQueryView {
            entity_type: "/posts".to_owned(),
            list_member: "items".to_owned(),
            list_position: 0,
            default_order: DefaultOrder::State,
            envelope,
            partial_pages,
            page_token: None,
            record_ordinal: 0,
            record_ordinals: vec![0],
            omit_empty_list: false,
            whole_members: Vec::new(),
            encoded_fields: Default::default(),
        }
    }

    fn member(name: &str, presence: EnvelopePresence) -> BodyEnvelopeMember {
        BodyEnvelopeMember {
            member: name.to_owned(),
            value: Json::String("x".into()),
            presence,
        }
    }

    fn pair(key: &[u8], value: &[u8]) -> Entity {
        let encode = rea_plugin_api::contracts::capture::base64::encode;
        let key = encode(key);
        Entity {
            entity_type: "/kv".to_owned(),
            collection: "/kv".to_owned(),
            id: key.clone(),
            fields: json(&format!(
                r#"{{"key": "{key}", "value": "{}"}}"#,
                encode(value)
            )),
            view_fields: Default::default(),
            record_ordinals: vec![0],
        }
    }

    #[test]
    fn encoded_fields_compare_and_sort_as_the_decoded_bytes() {
        // Decimal texts compare as bytes ("10" < "3" < "9"), and base64 text order is not byte
        // order (0xfb spells "+w==", before "QQ==" of "A" in ASCII).
        let entities = [
            pair(b"9", b"x"),
            pair(b"10", b"y"),
            pair(&[0xfb], b"w"),
            pair(b"A", b"z"),
            pair(b"3", b"v"),
        ];
        let members: Vec<&Entity> = entities.iter().collect();
        let encode = |text: &[u8]| rea_plugin_api::contracts::capture::base64::encode(text);
        let mut range = terms(
            &[
                ("key", &encode(b"1"), QueryRole::filter("key", "gte")),
                ("range_end", &encode(b"4"), QueryRole::filter("key", "lt")),
                ("sort", "key", QueryRole::Sort),
            ],
            &[],
        );
        range.encodings = ["key", "value"]
            .into_iter()
            .map(|field| (field.to_owned(), BASE64_ENCODING.to_owned()))
            .collect();
        let keys = |listed: Listed| -> Vec<Json> {
            listed
                .members
                .iter()
                .map(|member| member.get("key").cloned().unwrap())
                .collect()
        };
        let listed = list(&range, &members, &[]).expect("evaluated");
        assert_eq!(
            keys(listed),
            [Json::from(encode(b"10")), Json::from(encode(b"3"))]
        );
        let mut all = terms(&[("sort", "key", QueryRole::Sort)], &[]);
        all.encodings = range.encodings.clone();
        let listed = list(&all, &members, &[]).expect("evaluated");
        assert_eq!(
            keys(listed),
            [b"10".as_slice(), b"3", b"9", b"A", &[0xfb]].map(|key| Json::from(encode(key)))
        );
        // A value that is not base64 is not evaluated.
        let bad = [pair(b"a", b"b")];
        let mut broken = bad[0].clone();
        broken.fields = json(r#"{"key": "not base64!", "value": "eA=="}"#);
        assert!(list(&all, &[&broken], &[]).is_none());
    }

    #[test]
    fn a_range_selects_the_held_pairs_in_the_order_it_lists_them() {
        let entities = [pair(b"a/2", b"x"), pair(b"b", b"y"), pair(b"a/1", b"z")];
        let members: Vec<&Entity> = entities.iter().collect();
        let encode = |text: &[u8]| rea_plugin_api::contracts::capture::base64::encode(text);
        let mut prefix = terms(
            &[
                ("key", &encode(b"a/"), QueryRole::filter("key", "gte")),
                ("range_end", &encode(b"a0"), QueryRole::filter("key", "lt")),
                ("sort", "key", QueryRole::Sort),
            ],
            &[],
        );
        prefix.encodings = [("key".to_owned(), BASE64_ENCODING.to_owned())].into();
        let chosen = selected(&prefix, &members).expect("evaluated");
        let ids: Vec<&str> = chosen.iter().map(|entity| entity.id.as_str()).collect();
        assert_eq!(ids, [encode(b"a/1"), encode(b"a/2")]);
    }

    #[test]
    fn a_count_only_body_lists_nothing_and_counts_the_matches() {
        let entities = [entity(1, "a"), entity(2, "b"), entity(3, "c")];
        let members: Vec<&Entity> = entities.iter().collect();
        let mut count = terms(&[("limit", "1", QueryRole::PageSize)], &[]);
        count.count_only = true;
        let listed = list(&count, &members, &[]).expect("evaluated");
        assert!(listed.members.is_empty());
        assert!(!listed.left_out);
        assert_eq!(listed.matched, 3);
    }

    #[test]
    fn a_member_only_seen_projected_is_not_listed_whole() {
        let whole = [pair(b"a", b"1")];
        let mut projected = pair(b"b", b"2");
        projected.fields = json(r#"{"key": "Yg=="}"#);
        let members = [&whole[0], &projected];
        let mut plain = terms(&[("sort", "key", QueryRole::Sort)], &[]);
        let fields = ["key".to_owned(), "value".to_owned()];
        assert!(list(&plain, &members, &fields).is_none());
        plain.selection = Some(vec!["key".to_owned()]);
        let listed = list(&plain, &members, &fields).expect("keys only");
        assert_eq!(listed.members.len(), 2);
    }

    #[test]
    fn counts_flags_and_an_empty_list_follow_their_learned_presence() {
        let mut counted = view(
            vec![
                member("header", EnvelopePresence::Always),
                member(
                    "count",
                    EnvelopePresence::Matched {
                        text: true,
                        omit_zero: true,
                    },
                ),
                BodyEnvelopeMember {
                    member: "more".to_owned(),
                    value: Json::Bool(true),
                    presence: EnvelopePresence::LeftOut,
                },
            ],
            true,
        );
        counted.list_position = 1;
        counted.omit_empty_list = true;
        let listed = |members: usize, matched: usize| Listed {
            members: vec![json(r#"{"key": "a"}"#); members],
            left_out: members < matched,
            next_offset: members,
            matched,
        };
        let plain = terms(&[], &[]);
        let body = answer_body(&counted, &plain, listed(1, 4)).unwrap();
        assert_eq!(
            body,
            json(r#"{"header": "x", "items": [{"key": "a"}], "count": "4", "more": true}"#)
        );
        let body = answer_body(&counted, &plain, listed(2, 2)).unwrap();
        assert_eq!(body.get("more"), None);
        assert_eq!(body.get("count"), Some(&Json::from("2")));
        // Nothing matched: neither the list nor the count.
        let body = answer_body(&counted, &plain, listed(0, 0)).unwrap();
        assert_eq!(body, json(r#"{"header": "x"}"#));
        // A count spelled as a number, kept at zero.
        counted.envelope[1].presence = EnvelopePresence::Matched {
            text: false,
            omit_zero: false,
        };
        counted.omit_empty_list = false;
        let body = answer_body(&counted, &plain, listed(0, 0)).unwrap();
        assert_eq!(body, json(r#"{"header": "x", "items": [], "count": 0}"#));
    }

    #[test]
    fn the_default_order_reorders_by_state_or_identity() {
        let entities = [entity(2, "b"), entity(10, "a"), entity(1, "c")];
        let members: Vec<&Entity> = entities.iter().collect();
        let ids = |order| -> Vec<String> {
            default_ordered(order, "id", &members)
                .iter()
                .map(|entity| entity.id.clone())
                .collect()
        };
        assert_eq!(ids(DefaultOrder::State), ["2", "10", "1"]);
        assert_eq!(ids(DefaultOrder::Reversed), ["1", "10", "2"]);
        assert_eq!(ids(DefaultOrder::Identity), ["1", "2", "10"]);
        assert_eq!(ids(DefaultOrder::IdentityDescending), ["10", "2", "1"]);
    }

    #[test]
    fn a_listing_pages_projects_and_tells_matches_left_out() {
        let entities = [entity(1, "a"), entity(2, "b"), entity(3, "c")];
        let members: Vec<&Entity> = entities.iter().collect();
        let mut paged = terms(
            &[
                ("limit", "1", QueryRole::PageSize),
                ("skip", "1", QueryRole::Offset),
            ],
            &[],
        );
        paged.selection = Some(vec!["title".to_owned()]);
        let listed = list(&paged, &members, &[]).expect("evaluated");
        assert_eq!(listed.members, vec![json(r#"{"title": "b"}"#)]);
        assert!(listed.left_out);
        assert_eq!(listed.next_offset, 2);
        let last = terms(&[("skip", "2", QueryRole::Offset)], &[]);
        assert!(!list(&last, &members, &[]).expect("evaluated").left_out);
    }

    #[test]
    fn envelope_members_appear_by_their_learned_presence() {
        let envelope = vec![
            member("always", EnvelopePresence::Always),
            member(
                "warning",
                EnvelopePresence::UnlessNamed {
                    fields: vec!["year".to_owned()],
                },
            ),
            member("token", EnvelopePresence::Paged),
        ];
        let listed = |left_out| Listed {
            members: Vec::new(),
            left_out,
            next_offset: 3,
            matched: 5,
        };
        let plain = terms(&[], &["status"]);
        let body = answer_body(&view(envelope.clone(), true), &plain, listed(false)).unwrap();
        assert_eq!(
            body,
            json(r#"{"items": [], "always": "x", "warning": "x"}"#)
        );
        let indexed = terms(&[], &["year"]);
        let body = answer_body(&view(envelope.clone(), true), &indexed, listed(false)).unwrap();
        assert_eq!(body, json(r#"{"items": [], "always": "x"}"#));
        // A page token is minted per answer: a page leaving matches out is not modelled, unless
        // the view learned how its token is minted.
        assert!(answer_body(&view(envelope.clone(), true), &plain, listed(true)).is_none());
        let mut minting = view(envelope, true);
        minting.page_token = Some(PageToken {
            member: "token".to_owned(),
            prefix: "{\"offset\": ".to_owned(),
            suffix: "}".to_owned(),
        });
        let body = answer_body(&minting, &plain, listed(true)).unwrap();
        assert_eq!(body.get("token"), Some(&Json::from("eyJvZmZzZXQiOiAzfQ==")));
        // Nor is such a page where no recording showed one.
        let bare = view(vec![member("always", EnvelopePresence::Always)], false);
        assert!(answer_body(&bare, &plain, listed(true)).is_none());
        assert!(answer_body(&bare, &plain, listed(false)).is_some());
    }
}
