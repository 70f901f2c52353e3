//! A create's recorded refusal keyed by the members it left out: the application refused a
//! create (`400`, `409`, `422`) whose body lacked members every successful call sent, and an
//! object of its answer is keyed by exactly some of those members, each holding that member's
//! error (Django REST framework's `{"title": ["This field is required."], "project": […]}`,
//! FeathersJS's `"errors": {"title": "required"}`), or by their associations (Rails'
//! `{"project": ["must exist"], "title": ["can't be blank"]}` for a body leaving out
//! `project_id`, see [`crate::relations::names_member`]). Such an answer lists an error per refused
//! member, so a required member the refused call left out that it keys not is one the
//! application does not refuse leaving out (a member every successful call happened to send).
//! Learned per refused call (the object's place, each keyed member's error, the members left
//! out unkeyed); served by answering that failure with the object keyed by the members the
//! served create leaves out, each with the error a refusal of the plan recorded for it, for a
//! create whose body sends only members the plan accepts (checked after the refusals naming
//! the member in a string, [`super::omitted`], and before the refusal of a missing required
//! member, which would otherwise answer such a call). A member no refusal keyed is never
//! answered: the call is checked as any other. When every member every keyed refusal of the
//! state's creates recorded holds one error (a framework's text, `["This field is required."]`),
//! a create whose own calls were never refused keys each of its required members with it,
//! inferred from the first such refusal ([`lend`]: Django REST framework's projects beside the
//! refused tasks and people).

use rea_plugin_api::json::{Json, Object};

use super::Draft;
use super::model::{Effect, KeyedRefusal, WritePlan};
use super::omitted::{accepted_members, refused_bodies, required_members};
use crate::answer::{StateAnswer, StateSource};
use crate::call::Call;
use crate::observation::Timeline;
use crate::relations::names_member;
use crate::service::StateService;

/// Learns the plan's keyed refusals from its draft's failed calls (those the refusals naming a
/// member in a string did not explain).
pub(super) fn learn(draft: &mut Draft, timeline: &Timeline) {
    if draft.plan.effect != Effect::Create || draft.plan.bulk {
        return;
    }
    let mut refusals = Vec::new();
    for (ordinal, sent, answer) in refused_bodies(&draft.failed, &draft.plan, timeline) {
        if draft
            .plan
            .omitted
            .iter()
            .any(|omitted| omitted.ordinal == ordinal)
        {
            continue;
        }
        let left_out: Vec<&String> = required_members(&draft.plan)
            .filter(|member| !sent.contains_key(member.as_str()))
            .collect();
        if let Some(refusal) = keyed_refusal(answer, &left_out, ordinal) {
            refusals.push(refusal);
        }
    }
    draft.plan.keyed_refusals = refusals;
}

/// Lends the first keyed refusal to every other create (not bulk, the same body envelope) the
/// build never saw refused, where every error every keyed refusal recorded is one text: each
/// of its required members keyed with that text, marked inferred from the lender.
pub(super) fn lend(drafts: &mut [Draft], timeline: &Timeline) {
    let refusals = drafts.iter().flat_map(|draft| &draft.plan.keyed_refusals);
    let Some(text) = one_error(refusals) else {
        return;
    };
    let Some((tool, envelope, lent)) = drafts.iter().find_map(|draft| {
        let refusal = draft.plan.keyed_refusals.first()?;
        let envelope = draft.plan.body.as_ref()?.envelope.clone();
        Some((draft.plan.tool.clone(), envelope, refusal.clone()))
    }) else {
        return;
    };
    for draft in drafts.iter_mut() {
        let plan = &draft.plan;
        let borrows = plan.effect == Effect::Create
            && !plan.bulk
            && plan.keyed_refusals.is_empty()
            && plan
                .body
                .as_ref()
                .is_some_and(|body| body.envelope == envelope)
            && !refused_before(draft, timeline);
        if !borrows {
            continue;
        }
        let errors: Vec<(String, Json)> = required_members(&draft.plan)
            .map(|member| (member.clone(), text.clone()))
            .collect();
        if errors.is_empty() {
            continue;
        }
        draft.plan.keyed_refusals = vec![KeyedRefusal {
            errors,
            unkeyed: Vec::new(),
            inferred_from: Some(tool.clone()),
            ..lent.clone()
        }];
    }
}

/// The one error every member of every refusal holds; `None` when there is none or they differ
/// (each member's own message says nothing of another's).
fn one_error<'a>(refusals: impl Iterator<Item = &'a KeyedRefusal>) -> Option<Json> {
    let mut errors = refusals.flat_map(|refusal| refusal.errors.iter().map(|(_, error)| error));
    let text = errors.next()?.clone();
    errors.all(|error| *error == text).then_some(text)
}

/// Whether the build saw a call of the draft refused (`400`, `409`, `422`).
pub(super) fn refused_before(draft: &Draft, timeline: &Timeline) -> bool {
    draft.failed.iter().any(|ordinal| {
        timeline
            .get(*ordinal)
            .is_some_and(|failed| matches!(failed.status, 400 | 409 | 422))
    })
}

/// The refusal an answer keys by some of the members the call left out: the first object
/// (the answer itself, then its members' objects, depth first) whose keys are all members
/// left out, at least one.
fn keyed_refusal(answer: &Json, left_out: &[&String], ordinal: u64) -> Option<KeyedRefusal> {
    let (path, keyed) = keyed_object(answer, left_out, Vec::new())?;
    let errors: Vec<(String, Json)> = keyed
        .iter()
        .map(|(name, error)| (name.to_owned(), error.clone()))
        .collect();
    let unkeyed = left_out
        .iter()
        .filter(|member| !keyed.iter().any(|(key, _)| names_member(key, member)))
        .map(|member| (*member).clone())
        .collect();
    Some(KeyedRefusal {
        ordinal,
        path,
        errors,
        unkeyed,
        inferred_from: None,
    })
}

/// The path to (object keys from the answer's top) and the object keyed by left-out members.
fn keyed_object<'a>(
    answer: &'a Json,
    left_out: &[&String],
    path: Vec<String>,
) -> Option<(Vec<String>, &'a Object)> {
    let Json::Object(members) = answer else {
        return None;
    };
    let keyed_by_left_out = !members.is_empty()
        && members
            .iter()
            .all(|(name, _)| left_out.iter().any(|member| names_member(name, member)));
    if keyed_by_left_out {
        return Some((path, members));
    }
    members.iter().find_map(|(name, value)| {
        let mut deeper = path.clone();
        deeper.push(name.to_owned());
        keyed_object(value, left_out, deeper)
    })
}

/// The recorded refusal a served create answers, keyed by the required members its body
/// leaves out; `None`: the call is checked as any other.
pub(super) fn answer(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    if plan.keyed_refusals.is_empty() {
        return None;
    }
    let body = call.body.as_ref().map(Json::from_serde_value)?;
    let sent = accepted_members(plan, &body)?;
    let left_out: Vec<&String> = required_members(plan)
        .filter(|member| !sent.contains_key(member.as_str()))
        .collect();
    plan.keyed_refusals.iter().find_map(|refusal| {
        let errors = refused_errors(&plan.keyed_refusals, refusal, &left_out)?;
        let base = service.kept(refusal.ordinal)?;
        let mut answer = base.json()?.clone();
        *keyed_at(&mut answer, &refusal.path)? = Json::Object(Object::from_iter(errors));
        Some(crate::answer::state_answer(
            base,
            answer,
            service.replay_evidence_id(),
            false,
            StateSource::state("keyed-refusal", None),
        ))
    })
}

/// The error of each member a call left out that the refusal does not show optional (the
/// refusal's own keys first, in its order, then the others as the plan holds them), each as a
/// refusal of the plan recorded it; `None` when it leaves none out or one no refusal keyed.
fn refused_errors(
    known: &[KeyedRefusal],
    refusal: &KeyedRefusal,
    left_out: &[&String],
) -> Option<Vec<(String, Json)>> {
    let refused: Vec<&String> = left_out
        .iter()
        .copied()
        .filter(|member| !refusal.unkeyed.contains(member))
        .collect();
    if refused.is_empty() {
        return None;
    }
    let keyed_by = |member: &String| {
        refusal
            .errors
            .iter()
            .position(|(key, _)| names_member(key, member))
            .unwrap_or(usize::MAX)
    };
    let mut recorded_first = refused.clone();
    recorded_first.sort_by_key(|member| keyed_by(member));
    recorded_first
        .into_iter()
        .map(|member| {
            let error = known.iter().find_map(|known| {
                known
                    .errors
                    .iter()
                    .find(|(key, _)| names_member(key, member))
            })?;
            Some(error.clone())
        })
        .collect()
}

/// The value at an object-key path of the answer.
fn keyed_at<'a>(answer: &'a mut Json, path: &[String]) -> Option<&'a mut Json> {
    let Some((first, rest)) = path.split_first() else {
        return Some(answer);
    };
    let Json::Object(members) = answer else {
        return None;
    };
    let (_, value) = members.iter_mut().find(|(name, _)| name == first)?;
    keyed_at(value, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn a_refusal_is_keyed_by_members_left_out_at_any_depth() {
        let left = names(&["title", "project", "email"]);
        let left: Vec<&String> = left.iter().collect();
        let top =
            Json::parse(br#"{"title": ["This field is required."], "project": ["x"]}"#).unwrap();
        let refusal = keyed_refusal(&top, &left, 7).unwrap();
        assert!(refusal.path.is_empty());
        assert_eq!(refusal.errors[0].0, "title");
        assert_eq!(refusal.unkeyed, names(&["email"]));
        let nested =
            Json::parse(br#"{"message": "A task needs a title", "code": 400, "data": {}, "errors": {"title": "required"}}"#)
                .unwrap();
        let refusal = keyed_refusal(&nested, &left, 8).unwrap();
        assert_eq!(refusal.path, names(&["errors"]));
        assert_eq!(refusal.unkeyed, names(&["project", "email"]));
        let other = Json::parse(br#"{"status": ["Not a valid choice."]}"#).unwrap();
        assert!(keyed_refusal(&other, &left, 9).is_none(), "a member sent");
    }

    #[test]
    fn a_refusal_may_key_a_member_by_its_association() {
        // Rails keys a missing `project_id` by the association `project`; `status`, left out
        // and keyed not, is no member the application refuses leaving out.
        let left = names(&["title", "status", "project_id"]);
        let left: Vec<&String> = left.iter().collect();
        let answer =
            Json::parse(br#"{"project": ["must exist"], "title": ["can't be blank"]}"#).unwrap();
        let refusal = keyed_refusal(&answer, &left, 95).unwrap();
        assert_eq!(refusal.unkeyed, names(&["status"]));
        let served = names(&["project_id", "title"]);
        let served: Vec<&String> = served.iter().collect();
        let errors = refused_errors(std::slice::from_ref(&refusal), &refusal, &served).unwrap();
        let keys: Vec<&str> = errors.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(
            keys,
            ["project", "title"],
            "recorded keys, in recorded order"
        );
        let only_title = names(&["title"]);
        let only_title: Vec<&String> = only_title.iter().collect();
        let errors = refused_errors(std::slice::from_ref(&refusal), &refusal, &only_title);
        assert_eq!(errors.unwrap()[0].0, "title");
    }

    #[test]
    fn only_one_text_for_every_member_is_lent() {
        let refusal = |errors: &[(&str, &str)]| KeyedRefusal {
            ordinal: 1,
            path: Vec::new(),
            errors: (errors.iter())
                .map(|(name, text)| ((*name).to_owned(), Json::from(*text)))
                .collect(),
            unkeyed: Vec::new(),
            inferred_from: None,
        };
        let tasks = refusal(&[("title", "required"), ("project", "required")]);
        let people = refusal(&[("name", "required")]);
        assert_eq!(
            one_error([&tasks, &people].into_iter()),
            Some(Json::String("required".into()))
        );
        let own = refusal(&[("name", "A person needs a name")]);
        assert_eq!(one_error([&tasks, &own].into_iter()), None, "texts differ");
        assert_eq!(one_error(std::iter::empty()), None);
    }

    #[test]
    fn a_rebuilt_refusal_keys_the_members_left_out_in_recorded_order() {
        let known = vec![KeyedRefusal {
            ordinal: 1,
            path: Vec::new(),
            errors: vec![
                ("title".to_owned(), Json::String("required".into())),
                ("project".to_owned(), Json::String("needed".into())),
            ],
            unkeyed: names(&["email"]),
            inferred_from: None,
        }];
        let refusal = &known[0];
        let (project, title, email) =
            ("project".to_owned(), "title".to_owned(), "email".to_owned());
        let errors = refused_errors(&known, refusal, &[&project, &title, &email]).unwrap();
        let keys: Vec<&str> = errors.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(keys, ["title", "project"]);
        assert!(
            refused_errors(&known, refusal, &[&email]).is_none(),
            "optional"
        );
        let name = "name".to_owned();
        assert!(
            refused_errors(&known, refusal, &[&name]).is_none(),
            "never keyed"
        );
        let mut answer = Json::parse(br#"{"errors": {"title": "required"}, "code": 400}"#).unwrap();
        *keyed_at(&mut answer, &names(&["errors"])).unwrap() = Json::Null;
        assert_eq!(
            answer.to_canonical_string(),
            r#"{"code":400,"errors":null}"#
        );
    }
}
