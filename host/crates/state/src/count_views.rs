//! Count views: a read under a list's path (`GET /tasks/count?where[status]=todo`) answering one
//! number member (`{"count": 5}`) that equals, at every checked recording, the number of
//! entities its sibling list (the list tool reading the parent path, `/tasks`) selects with the
//! same query, read through the count's own nesting of the list's names (`where[status]` for the
//! list's `filter[where][status]`, see [`rea_plugin_api::query_fields::nested_in`]). Such a read
//! answers, before and after served writes, the number of held entities the list's learned
//! query model selects for any filter or search it evaluates; a parameter the list reads as
//! anything else (a sort, a page), or one its grammar cannot evaluate, answers `not_modelled`.
//!
//! Learned once the lists' query grammars are (see [`crate::derive`]), from the tool's checked
//! lines (those before a write related to the list's type): every one answers an object one of
//! whose members holds a non-negative integer, the same member on every line, and at least one
//! line was checked. Members beside the count (PiccoloCRUD's `{"count": 14, "page_size": 6}`
//! at `/api/tasks/count/`, a path with a trailing slash under the list's `/api/tasks/`) must be
//! the same on every checked line, and are answered as recorded; of two integer members, the one
//! that counts the list's matches on every line is the count.

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::json::{Json, Object};
use rea_plugin_api::query_lists::fold_list_names;
use serde::{Deserialize, Serialize};

use crate::answer::{StateAnswer, StateSource, state_answer, tool_error};
use crate::call::Call;
use crate::derive::entities::collection_key;
use crate::model::{Entity, QueryModel, ReadView, ViewDetail, WriteScope};
use crate::observation::{Observation, Timeline};
use crate::recorded::{NotModelled, RecordingUnusable};
use crate::rules::RuleSet;
use crate::service::StateService;
use crate::writes::selected::{list_spelled, nesting, selecting};

/// The members a count's answer shows beside the number, in the answer's order.
pub type Beside = Vec<(String, Json)>;

/// A count view (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountView {
    /// The entity type the sibling list shows.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The sibling list tool.
    pub list_tool: String,
    /// The member holding the number.
    pub member: String,
    /// The members every checked line showed beside the number, the same on each (in the
    /// answer's order, the number's place among them kept by `member_at`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beside: Beside,
    /// The number's place among the answer's members.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub member_at: usize,
    /// The wrapper the list nests the count's query names in (`filter`), when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nesting: Option<String>,
    /// Whether the count's queries are read with the query grammars' expressions split into
    /// terms (a field's operator companion, see [`expanded`]), as its checked lines needed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expands: bool,
    /// The sibling list's query model, evaluated over the held entities.
    pub model: QueryModel,
    /// The record whose status and headers answers are given in (the latest checked line).
    pub envelope_ordinal: u64,
    /// The checked recordings the view reproduced.
    pub record_ordinals: Vec<u64>,
}

impl CountView {
    /// What a call on `segments` shows: the entities of its type in the collection it counts.
    pub fn scope(&self, segments: &[CompactString]) -> WriteScope {
        parent_collection_scope(&self.entity_type, segments)
    }
}

/// What a view read below a list's path shows (a count, an id map): the entities of
/// `entity_type` in the collection the call's parent path names.
pub(crate) fn parent_collection_scope(entity_type: &str, segments: &[CompactString]) -> WriteScope {
    WriteScope::Type {
        entity_type: entity_type.to_owned(),
        collection: parent_path(segments).map(|path| collection_key(&path).to_owned()),
        entity: None,
    }
}

/// Makes a count view of every read tool answering from its recordings or as a document whose
/// checked lines count what its sibling list selects (see the module docs).
pub(crate) fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[Entity],
    views: &mut [ReadView],
    rules: &RuleSet,
) {
    for (index, lines) in crate::derive::recorded_reads(manifest, timeline, views) {
        let template = views[index].path_template.clone();
        // The queries read as sent, else with the grammars' expressions split into terms.
        let learned = learn(views, &template, &lines, (entities, None))
            .or_else(|| learn(views, &template, &lines, (entities, Some(rules))));
        if let Some(count) = learned {
            views[index].detail = ViewDetail::Count(Box::new(count));
        }
    }
}

/// The count view of a tool read under `template` whose checked `lines` each count what the
/// sibling list selects; `None` when one does not.
fn learn(
    views: &[ReadView],
    template: &str,
    lines: &[&Observation],
    (entities, rules): (&[Entity], Option<&RuleSet>),
) -> Option<CountView> {
    let (parent, last) = collection_key(template).rsplit_once('/')?;
    if last.is_empty() || last.contains('{') || parent.is_empty() {
        return None;
    }
    let (list_tool, entity_type, model) = views.iter().find_map(|view| match &view.detail {
        ViewDetail::List(list)
            if collection_key(&view.path_template) == parent && list.parent.is_none() =>
        {
            Some((&view.tool, &list.entity_type, list.query.as_ref()?))
        }
        _ => None,
    })?;
    let fields = crate::derive::query_grammar::type_scalar_fields(entities, entity_type);
    // The one wrapper the lines' names need (a line naming none needs none).
    let mut nesting: Option<String> = None;
    for line in lines {
        let sent = line.query.as_deref().unwrap_or(&[]);
        let (model, pairs) = expanded(rules, model, sent, &fields);
        if let Some(base) = self::nesting(&model, pairs.iter().map(|(name, _)| name.as_str()))? {
            if nesting.as_ref().is_some_and(|known| *known != base) {
                return None;
            }
            nesting = Some(base);
        }
    }
    let counted = |line: &Observation| -> Option<u64> {
        let sent = line.query.as_deref().unwrap_or(&[]);
        let (model, pairs) = expanded(rules, model, sent, &fields);
        let pairs = list_spelled(&model, nesting.as_deref(), pairs);
        let collection = parent_path(&line.segments)?;
        let held: Vec<&Object> = entities
            .iter()
            .filter(|entity| {
                entity.entity_type == *entity_type
                    && collection_key(&entity.collection) == collection
            })
            .filter_map(|entity| entity.fields.as_object())
            .collect();
        matched(&model, &pairs, &held).ok()
    };
    let (member, beside, member_at) = counting_member(lines, counted)?;
    let last = lines.last()?;
    Some(CountView {
        entity_type: entity_type.clone(),
        list_tool: list_tool.clone(),
        member,
        beside,
        member_at,
        nesting,
        expands: rules.is_some(),
        model: model.clone(),
        envelope_ordinal: last.ordinal,
        record_ordinals: lines.iter().map(|line| line.ordinal).collect(),
    })
}

/// The one member of the lines' answers holding, on every line, the number `counted` gives
/// for it, with the members beside it (the same on every line) and its place among them;
/// `None` when no member or more than one does, or the members beside it vary.
fn counting_member(
    lines: &[&Observation],
    counted: impl Fn(&Observation) -> Option<u64>,
) -> Option<(String, Beside, usize)> {
    let answers: Vec<(&Object, u64)> = lines
        .iter()
        .map(|line| Some((line.body.as_ref()?.as_object()?, counted(line)?)))
        .collect::<Option<_>>()?;
    let (first, _) = answers.first()?;
    let counting: Vec<(usize, &str)> = first
        .keys()
        .enumerate()
        .filter(|(_, name)| {
            answers.iter().all(|(answer, count)| {
                matches!(answer.get(name), Some(Json::Number(number)) if number.as_u64() == Some(*count))
            })
        })
        .collect();
    let [(member_at, member)] = counting.as_slice() else {
        return None;
    };
    let beside: Beside = first
        .iter()
        .filter(|(name, _)| name != member)
        .map(|(name, value)| (name.to_owned(), value.clone()))
        .collect();
    let same = answers.iter().all(|(answer, _)| {
        answer.len() == first.len()
            && beside
                .iter()
                .all(|(name, value)| answer.get(name) == Some(value))
    });
    same.then(|| ((*member).to_owned(), beside, *member_at))
}

/// A call's query as the sibling list reads it: each expression the query grammars split (a
/// field's value and its operator companion, `priority=2&priority__operator=gte`) as its terms,
/// and the list's model given the roles the grammars offer those terms.
fn expanded(
    rules: Option<&RuleSet>,
    model: &QueryModel,
    pairs: &[(String, String)],
    fields: &[String],
) -> (QueryModel, Vec<(String, String)>) {
    let Some(rules) = rules else {
        return (model.clone(), pairs.to_vec());
    };
    let expanded = crate::query_terms::expand(rules, pairs, fields);
    let model = expanded
        .extend(model, &|_| true)
        .unwrap_or_else(|| model.clone());
    (model, expanded.pairs)
}

/// Whether a place is the first (`serde`'s skip test).
fn is_zero(place: &usize) -> bool {
    *place == 0
}

/// The collection a count path counts: its path less the last segment (`/tasks` of
/// `/tasks/count`).
pub(crate) fn parent_path(segments: &[CompactString]) -> Option<String> {
    let segments = crate::derive::entities::item_segments(segments);
    let (_, parent) = segments.split_last()?;
    Some(format!("/{}", parent.join("/")))
}

/// How many of `held` the (list-spelled) query selects; the refusal's reason when the list's
/// model does not evaluate it.
fn matched(
    model: &QueryModel,
    pairs: &[(String, String)],
    held: &[&Object],
) -> Result<u64, String> {
    selecting(model, pairs).map_err(|refused| refused.message)?;
    let (matched, _) = crate::query::order_matches(model, pairs, held)
        .ok_or("the list's learned query grammar cannot evaluate this query")?;
    Ok(matched.len() as u64)
}

impl StateService {
    /// A count view's call: the number of held entities of the call's collection the sibling
    /// list's model selects with the call's query, in the latest checked line's envelope;
    /// `not_modelled` for a query the model does not evaluate.
    pub(crate) fn answer_count(
        &self,
        template: &str,
        count: &CountView,
        call: &Call,
        exact: bool,
    ) -> StateAnswer {
        let segments = call.segments(template);
        let Some(collection) = parent_path(&segments) else {
            return tool_error("internal_error", "a count view's path has no parent");
        };
        let live = self.read();
        let held = live.collection(&count.entity_type, &collection);
        let objects: Vec<&Object> = held
            .iter()
            .filter_map(|entity| entity.fields.as_object())
            .collect();
        let fields: Vec<String> = crate::derive::query_grammar::scalar_fields(held.iter().copied())
            .into_iter()
            .collect();
        let (model, pairs) = expanded(
            count.expands.then(|| self.rules()),
            &count.model,
            &fold_list_names(&call.pairs()),
            &fields,
        );
        let pairs = list_spelled(&model, count.nesting.as_deref(), pairs);
        let number = match matched(&model, &pairs, &objects) {
            Ok(number) => number,
            Err(reason) => {
                return NotModelled {
                    reason,
                    recording: RecordingUnusable::NotRecorded,
                }
                .into();
            }
        };
        let mut body = Object::with_capacity(count.beside.len() + 1);
        for (place, (name, value)) in count.beside.iter().enumerate() {
            if place == count.member_at {
                body.insert(count.member.clone(), Json::from(number));
            }
            body.insert(name.clone(), value.clone());
        }
        if body.len() == count.beside.len() {
            body.insert(count.member.clone(), Json::from(number));
        }
        let envelope = (count.envelope_ordinal, "count");
        self.answer_in_envelope(envelope, body, exact, collection)
    }

    /// A view below a list's path answering `body` from the state of `collection`, in the status
    /// and headers of its kept envelope record (`(ordinal, the view's kind)`, named in the error
    /// when the record is not retained).
    pub(crate) fn answer_in_envelope(
        &self,
        (ordinal, kind): (u64, &str),
        body: Object,
        exact: bool,
        collection: String,
    ) -> StateAnswer {
        let Some(envelope) = self.kept(ordinal) else {
            return tool_error(
                "internal_error",
                format!("the {kind} view's envelope record is not retained"),
            );
        };
        state_answer(
            envelope,
            Json::Object(body),
            self.replay().evidence_id(),
            exact,
            StateSource::state(collection, None),
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::derive::tests::{derive, posts, record, stand_in};
    use crate::model::ViewDetail;

    /// A build listing the posts (whole, and by one author through `list_query`) and counting
    /// them at `/posts/count` with the queries of `counts` (`""`: none), each answering
    /// `{"count": n}` with the number given.
    fn counted(list_query: &str, counts: &[(&str, u64)]) -> crate::derive::tests::Fixture {
        let mut records = vec![
            record(0, "GET", "/posts", 200, posts()),
            record(
                1,
                "GET",
                &format!("/posts?{list_query}"),
                200,
                json!([posts()[0], posts()[2]]),
            ),
        ];
        for (index, (query, count)) in counts.iter().enumerate() {
            let target = match query {
                &"" => "/posts/count".to_owned(),
                query => format!("/posts/count?{query}"),
            };
            records.push(record(
                2 + index as u64,
                "GET",
                &target,
                200,
                json!({"count": count}),
            ));
        }
        derive(records)
    }

    fn count_of(answer: &Value) -> &Value {
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        &answer["body"]["count"]
    }

    #[test]
    fn a_read_counting_what_the_sibling_list_selects_answers_from_the_state() {
        let fixture = counted("author=alice", &[("", 3), ("author=alice", 2)]);
        let ViewDetail::Count(count) = fixture.view("get_posts_count") else {
            panic!("a count view: {:?}", fixture.view("get_posts_count"))
        };
        assert_eq!(
            (count.list_tool.as_str(), count.member.as_str()),
            ("get_posts", "count")
        );
        assert_eq!(count.nesting, None);
        // Another value, and none, counted over the held posts.
        let bob = fixture.call("get_posts_count", json!({"author": "bob"}));
        assert_eq!(count_of(&bob), &json!(1));
        let all = fixture.call("get_posts_count", json!({}));
        assert_eq!(count_of(&all), &json!(3));
    }

    #[test]
    fn a_count_reads_the_lists_names_through_its_own_nesting() {
        // The list nests its filters in `filter` (`filter[where][author]`); the count spells
        // them without it (`where[author]`).
        let fixture = counted("filter[where][author]=alice", &[("where[author]=alice", 2)]);
        let ViewDetail::Count(count) = fixture.view("get_posts_count") else {
            panic!("a count view: {:?}", fixture.view("get_posts_count"))
        };
        assert_eq!(count.nesting.as_deref(), Some("filter"));
        let bob = fixture.call("get_posts_count", json!({"where[author]": "bob"}));
        assert_eq!(count_of(&bob), &json!(1));
    }

    #[test]
    fn a_count_the_list_does_not_reproduce_or_a_query_it_does_not_evaluate_is_no_count() {
        // A recorded number the list's selection does not give: no count view.
        let fixture = counted("author=alice", &[("author=alice", 5)]);
        assert!(
            !matches!(fixture.view("get_posts_count"), ViewDetail::Count(_)),
            "{:?}",
            fixture.view("get_posts_count")
        );
        // A parameter the list reads as no filter is refused, never another query's recording.
        let fixture = counted("author=alice", &[("author=alice", 2)]);
        let answer = fixture.call("get_posts_count", json!({"author": "bob", "sort": "views"}));
        assert_eq!(
            stand_in(&answer)["recording"],
            json!("not-recorded"),
            "{answer}"
        );
    }

    #[test]
    fn a_count_beside_other_members_under_a_trailing_slash_is_the_one_that_counts() {
        // PiccoloCRUD's `/posts/count/` answers `{"count": n, "page_size": 6}` under the list's
        // `/posts/`: `count` counts on every line, `page_size` is answered as recorded.
        let two = |count: u64| json!({"count": count, "page_size": 6});
        let fixture = derive(vec![
            record(0, "GET", "/posts/", 200, posts()),
            record(
                1,
                "GET",
                "/posts/?author=alice",
                200,
                json!([posts()[0], posts()[2]]),
            ),
            record(2, "GET", "/posts/count/", 200, two(3)),
            record(3, "GET", "/posts/count/?author=alice", 200, two(2)),
        ]);
        let ViewDetail::Count(count) = fixture.view("get_posts_count") else {
            panic!("a count view: {:?}", fixture.view("get_posts_count"))
        };
        assert_eq!(count.member, "count");
        let bob = fixture.call("get_posts_count", json!({"author": "bob"}));
        assert_eq!(bob["body"], two(1), "{bob}");
        // A member beside the count that varies between lines: no count view.
        let fixture = derive(vec![
            record(0, "GET", "/posts/", 200, posts()),
            record(
                1,
                "GET",
                "/posts/?author=alice",
                200,
                json!([posts()[0], posts()[2]]),
            ),
            record(2, "GET", "/posts/count/", 200, json!({"count": 3, "at": 1})),
            record(
                3,
                "GET",
                "/posts/count/?author=alice",
                200,
                json!({"count": 2, "at": 2}),
            ),
        ]);
        assert!(!matches!(
            fixture.view("get_posts_count"),
            ViewDetail::Count(_)
        ));
    }
}
