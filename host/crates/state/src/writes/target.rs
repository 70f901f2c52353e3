//! Pass 1: what a write tool writes, from its method and path template against the state's types
//! and document views.
//!
//! | Path | Method | Effect |
//! | --- | --- | --- |
//! | a type's collection + `/{id}` | `PUT`, `PATCH`, `POST` | `update` |
//! | a type's collection + `/{id}` | `DELETE` | `delete` |
//! | a type's collection + `/{id}/action` | `POST`, `PUT`, `PATCH` | `update` (action) |
//! | a type's collection | `POST` | `create` |
//! | a type's collection | `DELETE` / `PUT`, `PATCH` | bulk `delete` / `update` |
//! | a type's collection + `/delete`, `/remove`, `/destroy` | `POST` | bulk `delete` (bodies naming an array of ids) |
//! | a type's collection + `/verb` (RPC style; literal segments may precede the verb, `/-/insert`) | `POST` | bodies naming the entity in a member (the identity's name, or an item view's key parameter): `delete` for `delete`, `remove`, `destroy`, else `update` (an action named by the verb, except `update`, `edit`, `modify`, `patch`, `save`); `create` for `create`, `add`, `new`, `insert`; else as another path; an action verb whose every call leaves the entity its body names gone (the reads after it: pass 2) is a `delete` (`deleterange`) |
//! | a document view's path | `PATCH`, `POST` / `PUT` | `document` (merge / replace) |
//! | a document view's path + `/member` (a member every document of the view holds as an object) | `PATCH` / `PUT` | `document` (merge / replace, landing on that member of the document the path names) |
//! | a document view's path + `/{id}/member` (every document holds an array of objects each holding the member as an object) | `PATCH` / `PUT` | `document` (merge / replace, landing on that member of every element the id names, by the element key pass 3 learns) |
//! | a member view's path showing a map member + `/{key}` | `PUT` / `DELETE` | `update` of that one member: set to the body / removed |
//! | a type's collection + `/literal` | `PUT`, `PATCH` / `DELETE` | `update` / `delete` of the entity the literal names |
//! | another path | `POST` | `create`, when a call's answer names an id that a read of a type's item view shows right after (the plan is tied to that collection) |
//! | another item path | `PUT`, `PATCH` / `DELETE` | `update` / `delete` of the entity its last segment names, when a read of a type's item view right after names it (the plan is tied to that collection, and to that one entity for a literal segment) |
//! | an action route a route-form stage names (`/{table}/{pk}/-/update`: see [`super::action`]) no type's collection places | `POST` | `update` (an action the stage names, or a plain update) / `delete` of the entity the stage's segment names, when a read of a type's item view right after each call names it and no answer shows another entity of that type (else as another path: a `POST` creating a child, `/posts/{id}/comments`) |
//!
//! A template segment in braces matches any one segment; literal segments match as written. The
//! longest type template wins. Anything else has no state target.

use rea_manifest::ManifestTool;
use rea_manifest::segments::split_path;
use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::route_fields::{CREATE_VERBS, DELETE_VERBS, PLAIN_UPDATE_VERBS};

use rea_plugin_api::json::Json;

use super::model::Effect;
use crate::derive::entities::item_segments;
use crate::model::{MemberStep, StateView, ViewDetail};

/// What a write tool's path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetKind {
    /// An entity of a type: the first `segments` path segments name its collection, the next
    /// its identity (an action segment may follow).
    Item {
        /// The type.
        entity_type: String,
        /// The collection's segment count.
        segments: usize,
    },
    /// A type's collection (a create, or a bulk write).
    Collection {
        /// The type.
        entity_type: String,
        /// The collection's segment count.
        segments: usize,
    },
    /// A document view's document.
    Document {
        /// The document view.
        view: String,
    },
    /// A `POST` to a type's collection plus a verb (`/api/2.0/mlflow/runs/update`): its calls'
    /// bodies say what it does (see [`resolve_rpc`]).
    Rpc {
        /// The type.
        entity_type: String,
        /// The collection's segment count.
        segments: usize,
        /// The verb segment.
        verb: String,
    },
    /// A `POST` whose type only its calls can show.
    Unlinked,
    /// A `PUT`, `PATCH` or `DELETE` of an item path no type's collection holds: its last segment
    /// names an entity only the reads after its calls can place (a type and a collection);
    /// `literal` when that segment is literal (the plan writes that one entity).
    Linked {
        /// The last segment is literal.
        literal: bool,
        /// An action route's segment naming the entity, when verb segments follow it
        /// (`/{table}/{pk}/-/update`); otherwise the last segment names it.
        action_at: Option<usize>,
    },
    /// One member of a map a held entity holds (see [`member_write`]): the path of a member
    /// view showing the map, plus the key's segment.
    Member {
        /// The type.
        entity_type: String,
        /// The collection the member view's entities are held in.
        collection: String,
        /// The path segment naming the entity.
        entity_segment: usize,
        /// Where the member is, and whether the write removes it.
        member: super::model::MemberWrite,
    },
    /// Nothing the state models.
    None,
}

/// A write tool, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    /// The effect.
    pub effect: Effect,
    /// The action segment.
    pub action: Option<String>,
    /// A bulk write.
    pub bulk: bool,
    /// What the path names.
    pub kind: TargetKind,
    /// The body member naming the written entity (an RPC-style write), when the path does not.
    pub key_member: Option<String>,
}

/// Whether a template segment is (or holds) a parameter.
pub(super) fn is_parameter(segment: &str) -> bool {
    rea_manifest::segments::template_affixes(segment).is_some()
}

/// Whether write-template segments fit a type's collection template: equal literals, or a
/// parameter of the type's template (matching any one segment).
fn fits(write: &[&str], template: &[&str]) -> bool {
    write.len() == template.len()
        && write
            .iter()
            .zip(template)
            .all(|(segment, pattern)| is_parameter(pattern) || segment == pattern)
}

/// The effect a method has by default (for plans without a target).
pub fn default_effect(method: &str) -> Effect {
    match method.to_ascii_uppercase().as_str() {
        "POST" => Effect::Create,
        "DELETE" => Effect::Delete,
        _ => Effect::Update,
    }
}

impl Classified {
    /// A classification without action, bulk or key member.
    fn plain(effect: Effect, kind: TargetKind) -> Self {
        Self {
            effect,
            action: None,
            bulk: false,
            kind,
            key_member: None,
        }
    }
}

/// Classifies a write tool (see the module docs): a document view's path, a list view's path
/// that is not its type's collection, then each type's collection template (the longest first),
/// then what the method says of another path.
pub fn classify(tool: &ManifestTool, state: &StateView) -> Classified {
    let method = tool.method.to_ascii_uppercase();
    let write = split_path(&tool.path_template);
    // Document writes: the path of a document view.
    if matches!(method.as_str(), "PATCH" | "PUT" | "POST")
        && let Some(view) = state.views.iter().find(|view| {
            matches!(view.detail, ViewDetail::Document(_))
                && split_path(&view.path_template) == write
        })
    {
        return Classified::plain(
            Effect::Document,
            TargetKind::Document {
                view: view.tool.clone(),
            },
        );
    }
    if let Some(member) = document_member_write(&method, &write, state) {
        return member;
    }
    if let Some(member) = member_write(&method, &write, state) {
        return member;
    }
    // A POST to a list view's path that is not its type's collection (`/posts/{id}/comments`
    // listing comments) creates into that type; its calls show where.
    if method == "POST"
        && state.views.iter().any(|view| {
            matches!(&view.detail, ViewDetail::List(list)
                if split_path(&view.path_template) == write
                    && split_path(&list.entity_type) != write)
        })
    {
        return Classified::plain(Effect::Create, TargetKind::Unlinked);
    }
    // Paths match without a trailing slash (`/api/series/{numeric}/` is an item of
    // `/api/series/`).
    let write = item_segments(&write);
    let mut types: Vec<(&str, &[&str])> = Vec::new();
    let templates: Vec<Vec<&str>> = state
        .types
        .iter()
        .map(|entity_type| split_path(&entity_type.collection_template))
        .collect();
    for (entity_type, template) in state.types.iter().zip(&templates) {
        types.push((
            entity_type.collection_template.as_str(),
            item_segments(template),
        ));
    }
    // The longest template first; ties by name, so the choice is deterministic.
    types.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    types
        .iter()
        .find_map(|(name, template)| match template {
            // The root collection (`/`, items `/{name}`): only its item paths are placed, every
            // longer path being something of an item (`/{name}/-rev/{rev}`) its calls place.
            [""] => root_item(&method, write, name),
            _ => against_type(&method, write, name, template),
        })
        .unwrap_or_else(|| untyped(&method, write))
}

/// A `PUT`, `PATCH` or `DELETE` of `/{id}`, an item of a type whose collection is the root.
fn root_item(method: &str, write: &[&str], name: &str) -> Option<Classified> {
    let [segment] = write else {
        return None;
    };
    let effect = match method {
        "DELETE" => Effect::Delete,
        "PUT" | "PATCH" => Effect::Update,
        _ => return None,
    };
    is_parameter(segment).then(|| {
        Classified::plain(
            effect,
            TargetKind::Item {
                entity_type: name.to_owned(),
                segments: 0,
            },
        )
    })
}

/// A `PUT` or `DELETE` of a member view's path plus one parameter segment, where the view shows
/// a map member of its entity (its last step a literal key: `/-/package/{name}/dist-tags` showing
/// the package's `dist-tags`): a write of the member the segment names as a key of that map, a
/// `PUT` setting it to the body sent, a `DELETE` removing it. The entity stays; what else the
/// write changes is for its calls to show.
fn member_write(method: &str, write: &[&str], state: &StateView) -> Option<Classified> {
    let remove = match method {
        "PUT" => false,
        "DELETE" => true,
        _ => return None,
    };
    let (last, parent) = write.split_last()?;
    if !is_parameter(last) {
        return None;
    }
    state.views.iter().find_map(|view| {
        let ViewDetail::Member(member) = &view.detail else {
            return None;
        };
        let mut steps = member.steps.clone();
        if !matches!(steps.last(), Some(MemberStep::Key(_)))
            || split_path(&view.path_template) != parent
        {
            return None;
        }
        steps.push(MemberStep::Segment(parent.len()));
        Some(Classified::plain(
            Effect::Update,
            TargetKind::Member {
                entity_type: member.entity_type.clone(),
                collection: member.collection.clone(),
                entity_segment: member.entity_segment,
                member: super::model::MemberWrite {
                    steps,
                    remove,
                    types: Vec::new(),
                },
            },
        ))
    })
}

/// A `PUT` or `PATCH` of a document view's path followed by one literal segment naming a member
/// every document of the view holds as an object (`/studies/{id}/note` beside
/// `/studies/{id}`'s `note`): a document write landing on that member of the document the
/// path names (pass 3 learns where, [`super::explain::document_pointer`]); or followed by a
/// parameter and such a segment, where every document holds an array of objects each holding
/// that member (`/studies/{id}/{trial}/note` beside each trial's `note`): a document write
/// landing on that member of the element the parameter names (pass 3 learns the element's key,
/// [`super::explain::document_element`]).
fn document_member_write(method: &str, write: &[&str], state: &StateView) -> Option<Classified> {
    if !matches!(method, "PUT" | "PATCH") {
        return None;
    }
    let (member, parent) = write.split_last()?;
    if is_parameter(member) {
        return None;
    }
    state.views.iter().find_map(|view| {
        if !matches!(view.detail, ViewDetail::Document(_)) {
            return None;
        }
        let template = split_path(&view.path_template);
        let holds: fn(&Json, &str) -> bool = if fits(parent, &template) {
            |value, member| matches!(value.get(member), Some(Json::Object(_)))
        } else if parent
            .split_last()
            .is_some_and(|(id, rest)| is_parameter(id) && fits(rest, &template))
        {
            elements_hold
        } else {
            return None;
        };
        let mut documents = state
            .documents
            .iter()
            .filter(|document| document.view == view.tool)
            .peekable();
        documents.peek()?;
        documents
            .all(|document| holds(&document.value, member))
            .then(|| {
                Classified::plain(
                    Effect::Document,
                    TargetKind::Document {
                        view: view.tool.clone(),
                    },
                )
            })
    })
}

/// Whether a document holds an array member whose elements are objects, each holding `member`
/// as an object (`trials`, each trial holding its `note`): the elements a write of
/// `{document}/{id}/{member}` lands in.
fn elements_hold(document: &Json, member: &str) -> bool {
    document.as_object().is_some_and(|members| {
        members.iter().any(|(_, value)| {
            value.as_array().is_some_and(|elements| {
                !elements.is_empty()
                    && elements
                        .iter()
                        .all(|element| matches!(element.get(member), Some(Json::Object(_))))
            })
        })
    })
}

/// What a write path is to one type's collection template, if it is anything: an item, an
/// action, the collection, or an RPC-style verb after it.
fn against_type(method: &str, write: &[&str], name: &str, template: &[&str]) -> Option<Classified> {
    let length = template.len();
    let entity_type = name.to_owned();
    let item = |entity_type| TargetKind::Item {
        entity_type,
        segments: length,
    };
    // Item path: collection + /{id}, or + /literal for a PUT, PATCH or DELETE of the one entity
    // that literal names.
    if write.len() == length + 1
        && fits(&write[..length], template)
        && (is_parameter(write[length]) || matches!(method, "PUT" | "PATCH" | "DELETE"))
    {
        let effect = match method {
            "DELETE" => Effect::Delete,
            _ => Effect::Update,
        };
        return Some(Classified::plain(effect, item(entity_type)));
    }
    // Action path: collection + /{id}/action.
    if write.len() == length + 2
        && fits(&write[..length], template)
        && is_parameter(write[length])
        && !is_parameter(write[length + 1])
    {
        return matches!(method, "POST" | "PUT" | "PATCH").then(|| Classified {
            action: Some(write[length + 1].to_owned()),
            ..Classified::plain(Effect::Update, item(entity_type))
        });
    }
    // Collection path: create or bulk.
    if write.len() == length && fits(write, template) {
        let kind = TargetKind::Collection {
            entity_type,
            segments: length,
        };
        let bulk = |effect| Classified {
            bulk: true,
            ..Classified::plain(effect, kind.clone())
        };
        return Some(match method {
            "POST" => Classified::plain(Effect::Create, kind.clone()),
            "DELETE" => bulk(Effect::Delete),
            "PUT" | "PATCH" => bulk(Effect::Update),
            _ => Classified::plain(default_effect(method), TargetKind::None),
        });
    }
    // RPC style (or a bulk delete): POST collection + /verb, the verb the last of the literal
    // segments after the collection (`/{table}/-/insert`).
    if method == "POST"
        && write.len() > length
        && fits(&write[..length], template)
        && write[length..].iter().all(|segment| !is_parameter(segment))
    {
        return Some(Classified::plain(
            default_effect(method),
            TargetKind::Rpc {
                entity_type,
                segments: length,
                verb: write[write.len() - 1].to_owned(),
            },
        ));
    }
    None
}

/// A write path no type's collection template places: a `POST` only its calls can place, or a
/// `PUT`, `PATCH` or `DELETE` of an item path whose last segment names the entity (`DELETE
/// /bags/default/tiddlers/Call%20the%20plumber` of a tiddler read under
/// `/recipes/default/tiddlers`: its calls' reads show which entity), else nothing.
fn untyped(method: &str, write: &[&str]) -> Classified {
    if method == "POST" {
        return Classified::plain(Effect::Create, TargetKind::Unlinked);
    }
    if matches!(method, "PUT" | "PATCH" | "DELETE")
        && write.len() > 1
        && write.last().is_some_and(|last| !last.is_empty())
    {
        let literal = write.last().is_some_and(|last| !is_parameter(last));
        return Classified::plain(
            default_effect(method),
            TargetKind::Linked {
                literal,
                action_at: None,
            },
        );
    }
    Classified::plain(default_effect(method), TargetKind::None)
}

/// The value a call's path gives at segment `at` of a template: a fused parameter's value
/// between its prefix and suffix, percent-decoded.
pub fn segment_value(template: &str, segments: &[CompactString], at: usize) -> Option<String> {
    let pattern = split_path(template)
        .get(at)
        .map(|pattern| (*pattern).to_owned())?;
    let segment = segments.get(at)?;
    Some(crate::observation::decoded(
        rea_manifest::segments::template_value(&pattern, segment),
    ))
}

/// Decides what an RPC-style write does from its successful calls' bodies (`bodies`, JSON objects
/// or not) and the members that can name an entity of its type (`key_names`, in preference
/// order): a member every body names the entity in makes it an update or delete of that entity;
/// otherwise a delete verb with array bodies is a bulk delete, a create verb or bodies sending
/// rows (see [`super::observe::batch_items`]) a create in the type's collection, and anything
/// else a `POST` its calls must link (`Unlinked`).
pub fn resolve_rpc(
    classified: Classified,
    bodies: &[Option<&rea_plugin_api::json::Json>],
    key_names: &[String],
) -> Classified {
    let TargetKind::Rpc {
        entity_type,
        segments,
        verb,
    } = &classified.kind
    else {
        return classified;
    };
    let lower = verb.to_ascii_lowercase();
    let key = key_names.iter().find(|name| {
        !bodies.is_empty()
            && bodies.iter().all(|body| {
                body.and_then(|body| body.get(name))
                    .and_then(crate::render::scalar_text)
                    .is_some()
            })
    });
    let item = TargetKind::Item {
        entity_type: entity_type.clone(),
        segments: *segments,
    };
    let collection = TargetKind::Collection {
        entity_type: entity_type.clone(),
        segments: *segments,
    };
    if let Some(key) = key {
        let delete = DELETE_VERBS.contains(&lower.as_str());
        return Classified {
            effect: if delete {
                Effect::Delete
            } else {
                Effect::Update
            },
            action: (!delete && !PLAIN_UPDATE_VERBS.contains(&lower.as_str()))
                .then(|| verb.clone()),
            bulk: false,
            kind: item,
            key_member: Some(key.clone()),
        };
    }
    if DELETE_VERBS.contains(&lower.as_str()) {
        return Classified {
            effect: Effect::Delete,
            action: None,
            bulk: true,
            kind: collection,
            key_member: None,
        };
    }
    // A body sending rows of the collection (an array of objects, or an object's one array of
    // them) writes into the collection, whatever the verb: creates, or updates of the entities
    // the rows name (learned from the calls).
    let batch = !bodies.is_empty()
        && bodies
            .iter()
            .all(|body| body.is_some_and(|body| super::observe::batch_items(body).is_some()));
    if CREATE_VERBS.contains(&lower.as_str()) || batch {
        return Classified {
            effect: Effect::Create,
            action: None,
            bulk: false,
            kind: collection,
            key_member: None,
        };
    }
    Classified {
        effect: Effect::Create,
        action: None,
        bulk: false,
        kind: TargetKind::Unlinked,
        key_member: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fit_segment_by_segment() {
        // contract: WRITE-019, WRITE-026, WRITE-027
        let template = split_path("/v1/c/{prefix-variance}/records");
        assert!(fits(
            &split_path("/v1/c/{prefix-variance}/records"),
            &template
        ));
        assert!(fits(&split_path("/v1/c/tasks/records"), &template));
        assert!(!fits(&split_path("/v1/d/tasks/records"), &template));
        assert!(!fits(&split_path("/v1/c/tasks"), &template));
        assert_eq!(default_effect("post"), Effect::Create);
        assert_eq!(default_effect("DELETE"), Effect::Delete);
        assert_eq!(default_effect("PATCH"), Effect::Update);
    }
}
