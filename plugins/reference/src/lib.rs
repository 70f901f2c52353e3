//! The `reference` rule: a member holding the entities the ids a write sent name.
//!
//! **Learn** (creates and updates). A member the host could not explain is a reference when, in
//! every recorded call that changed it, it holds the objects whose identity member (`id`,
//! `uuid`, `key` or `slug`) spells, in order, the ids one sent member named: an array of ids
//! giving an array of objects (`tag_ids: [3, 5]` → `tags: [{"id": 3, …}, {"id": 5, …}]`, a
//! reference with `many`), or one id giving one object (`author_id: 7` → `author: {"id": 7, …}`).
//! The sent member itself is stored nowhere, so the rule explains it too (it reads it). The
//! learned rule keeps every referenced object the recorded calls showed, by id.
//!
//! **Apply.** A call sending the member gets, in the reference, the objects its ids name: those
//! the recorded calls showed, or those the entity already references. An id naming neither is
//! refused: the rule sees only what the capture showed of the referenced entities, not their
//! collection (the rule ABI gives it no other type's entities). A call not sending the member
//! leaves the reference as it is.

use std::collections::BTreeMap;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
    ObservedCall,
};
use rea_plugin_api::rule_fields::{Agreement, FieldRules, scalar_text, sent_members, top_field};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub mod collected;
pub use collected::CollectedRule;

/// The stage name.
pub const STAGE: &str = "reference";

/// The members that name a referenced object, in preference order.
const IDENTITIES: [&str; 4] = ["id", "uuid", "key", "slug"];

fn pointer_of(field: &str) -> String {
    format!("/{}", field.replace('~', "~0").replace('/', "~1"))
}

/// What one reference is: the sent member, the identity member, and whether it holds many.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ReferenceShape {
    member: String,
    identity: String,
    many: bool,
}

/// The shapes a stored value fits with what a call sent.
fn shapes(stored: &Value, sent: &Map<String, Value>, field: &str) -> Vec<ReferenceShape> {
    let mut found = Vec::new();
    for (member, value) in sent {
        if member == field {
            continue;
        }
        for identity in IDENTITIES {
            let fits = match (value, stored) {
                (Value::Array(ids), Value::Array(objects)) => {
                    ids.len() == objects.len()
                        && ids.iter().zip(objects).all(|(id, object)| {
                            object.is_object()
                                && scalar_text(id).is_some()
                                && object.get(identity).and_then(scalar_text) == scalar_text(id)
                        })
                        && ids.iter().all(|id| !id.is_object())
                }
                (id, Value::Object(object)) => {
                    scalar_text(id).is_some()
                        && object.get(identity).and_then(scalar_text) == scalar_text(id)
                }
                _ => false,
            };
            if fits {
                found.push(ReferenceShape {
                    member: member.clone(),
                    identity: identity.to_owned(),
                    many: stored.is_array(),
                });
                break;
            }
        }
    }
    found
}

/// The objects a stored reference holds, by id.
fn objects_of(stored: &Value, identity: &str, into: &mut BTreeMap<String, Value>) {
    let items: Vec<&Value> = match stored {
        Value::Array(items) => items.iter().collect(),
        object @ Value::Object(_) => vec![object],
        _ => Vec::new(),
    };
    for item in items {
        if let Some(id) = item.get(identity).and_then(scalar_text) {
            into.entry(id).or_insert_with(|| item.clone());
        }
    }
}

/// What the rule learns per referencing member: the sent member naming ids, the referenced
/// entities' identity member, whether it names many, and every referenced entity the capture
/// showed, by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The sent member holding the ids.
    pub member: String,
    /// The identity member of the referenced entities.
    pub identity: String,
    /// A list of ids (else one).
    pub many: bool,
    /// The referenced entities the capture showed, by id.
    pub objects: BTreeMap<String, Value>,
}

/// The reference rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReferenceRule;

impl ReferenceRule {
    fn shape_of(call: &ObservedCall, pointer: &str, stored: &Value) -> Option<ReferenceShape> {
        let field = top_field(pointer)?;
        let sent = sent_members(call.request_body.as_ref())?;
        let mut candidates = shapes(stored, sent, &field);
        // An empty list fits every empty list sent: only one may name it.
        if candidates.len() == 1 {
            candidates.pop()
        } else {
            None
        }
    }
}

impl StateRule for ReferenceRule {
    type Options = NoOptions;
    type Rule = FieldRules<Reference>;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::WRITING_MEMBERS).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if request.effect.deletes() {
            return Ok(LearnOutcome::no_explanation("a delete sets no reference"));
        }
        let mut found = Agreement::default();
        let mut objects: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
        for call in &request.calls {
            for (pointer, stored) in &call.unexplained {
                // The sent members themselves come as `null`: they are explained with the
                // reference that reads them.
                if stored.is_null() {
                    continue;
                }
                let shape = Self::shape_of(call, pointer, stored);
                found.record(pointer, shape.clone());
                if let Some(shape) = &shape {
                    objects_of(
                        stored,
                        &shape.identity,
                        objects.entry(pointer.clone()).or_default(),
                    );
                }
            }
        }
        let mut explains = Vec::new();
        let mut fields = BTreeMap::new();
        for (pointer, shape) in found.agreed() {
            explains.push(pointer.clone());
            let member_pointer = pointer_of(&shape.member);
            if !explains.contains(&member_pointer) {
                explains.push(member_pointer);
            }
            fields.insert(
                pointer.clone(),
                Reference {
                    member: shape.member,
                    identity: shape.identity,
                    many: shape.many,
                    objects: objects.remove(&pointer).unwrap_or_default(),
                },
            );
        }
        if fields.is_empty() {
            return Ok(LearnOutcome::no_explanation(
                "no unexplained member held the objects a sent member's ids named",
            ));
        }
        explains.sort();
        Ok(LearnOutcome::learned(explains, FieldRules { fields }))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let sent = sent_members(request.call.body.as_ref());
        let mut outcome = ApplyOutcome::default();
        for (pointer, learned) in &request.rule.fields {
            let (member, identity) = (&learned.member, &learned.identity);
            let Some(value) = sent.and_then(|sent| sent.get(member)) else {
                continue;
            };
            let mut known = learned.objects.clone();
            if let Some(held) = top_field(pointer).and_then(|field| {
                request
                    .call
                    .entity_before
                    .as_ref()
                    .and_then(|before| before.get(&field))
            }) {
                objects_of(held, identity, &mut known);
            }
            let resolve = |id: &Value| -> Result<Value, PluginError> {
                let text = scalar_text(id).ok_or_else(|| {
                    PluginError::new(
                        "invalid_reference",
                        format!("{member:?} must name entities by their {identity:?}"),
                    )
                })?;
                known.get(&text).cloned().ok_or_else(|| {
                    PluginError::new(
                        "unknown_reference",
                        format!(
                            "{member:?} names {text:?}, which the capture never showed referenced; the environment can only reference what it saw"
                        ),
                    )
                })
            };
            let many = learned.many;
            let stored = match (many, value) {
                (true, Value::Array(ids)) => {
                    Value::Array(ids.iter().map(resolve).collect::<Result<_, _>>()?)
                }
                (false, id) if !id.is_array() => resolve(id)?,
                _ => {
                    return Err(PluginError::new(
                        "invalid_reference",
                        format!(
                            "{member:?} must be {} as the recorded calls sent it",
                            if many { "an array of ids" } else { "one id" }
                        ),
                    ));
                }
            };
            outcome.set.insert(pointer.clone(), stored);
        }
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the reference rule.
    pub fn root_module() = Plugin::new("rea-reference", env!("CARGO_PKG_VERSION"))
        .rule(
            StageInfo::new(STAGE, "Explains members holding the entities the ids a write sent name (many, or one)"),
            ReferenceRule,
        )
        .rule(
            StageInfo::new(collected::STAGE, "Explains an unsent array member a create stores as the list of what one sent member stored"),
            CollectedRule,
        );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{Effect, ServedCall, ToolRef};
    use serde_json::json;

    fn tool() -> ToolRef {
        ToolRef {
            method: "PATCH".into(),
            name: "patch_posts_by_id".into(),
            path_template: "/posts/{id}".into(),
        }
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<Reference>> {
        ReferenceRule
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: Effect::Update,
                identity_field: Some("id".into()),
                options: NoOptions {},
                schema_version: 1,
                tool: tool(),
            })
            .expect("learns")
    }

    fn apply(
        rule: FieldRules<Reference>,
        body: Value,
        before: Value,
    ) -> Result<ApplyOutcome, PluginError> {
        ReferenceRule.apply(&ApplyRequest {
            call: ServedCall {
                body: Some(body),
                entity_before: Some(before),
                ..ServedCall::default()
            },
            rule,
            schema_version: 1,
            tool: tool(),
        })
    }

    fn tag(id: u64, name: &str) -> Value {
        json!({"id": id, "name": name})
    }

    fn call(sent: Value, tags: Value) -> ObservedCall {
        ObservedCall {
            request_body: Some(sent),
            unexplained: [
                ("/tags".to_owned(), tags),
                ("/tag_ids".to_owned(), Value::Null),
            ]
            .into(),
            ..ObservedCall::default()
        }
    }

    #[test]
    fn a_list_of_ids_references_the_objects_it_names() {
        // contract: WRITE-015
        let outcome = learn(vec![
            call(
                json!({"tag_ids": [3, 5]}),
                json!([tag(3, "red"), tag(5, "blue")]),
            ),
            call(json!({"tag_ids": [4]}), json!([tag(4, "green")])),
        ]);
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/tag_ids", "/tags"]);
        // Served: the ids name what the capture showed, in the order sent.
        let applied = apply(
            rule.clone(),
            json!({"tag_ids": [5, 4, 3]}),
            json!({"id": 1, "tags": []}),
        )
        .expect("applies");
        assert_eq!(
            applied.set["/tags"],
            json!([tag(5, "blue"), tag(4, "green"), tag(3, "red")])
        );
        // An object the entity already references is known too; an empty list clears.
        let applied = apply(
            rule.clone(),
            json!({"tag_ids": [9]}),
            json!({"id": 2, "tags": [tag(9, "grey")]}),
        )
        .expect("applies");
        assert_eq!(applied.set["/tags"], json!([tag(9, "grey")]));
        let applied =
            apply(rule.clone(), json!({"tag_ids": []}), json!({"id": 2})).expect("applies");
        assert_eq!(applied.set["/tags"], json!([]));
        // An id the capture never showed is refused; not sending the member keeps the tags.
        assert!(apply(rule.clone(), json!({"tag_ids": [77]}), json!({"id": 2})).is_err());
        let untouched = apply(rule, json!({"title": "x"}), json!({"id": 2})).expect("applies");
        assert!(untouched.set.is_empty());
    }

    #[test]
    fn one_id_references_one_object() {
        let outcome = learn(vec![ObservedCall {
            request_body: Some(json!({"author_id": "u7"})),
            unexplained: [("/author".to_owned(), json!({"id": "u7", "name": "Ann"}))].into(),
            ..ObservedCall::default()
        }]);
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/author", "/author_id"]);
        let applied = apply(rule, json!({"author_id": "u7"}), json!({"id": 1})).expect("applies");
        assert_eq!(applied.set["/author"], json!({"id": "u7", "name": "Ann"}));
    }

    #[test]
    fn objects_not_named_by_the_sent_ids_are_no_reference() {
        // The stored objects do not follow the sent ids.
        let outcome = learn(vec![call(
            json!({"tag_ids": [3, 5]}),
            json!([tag(5, "blue"), tag(3, "red")]),
        )]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // Two empty lists sent: which one names the empty reference is unknown.
        let outcome = learn(vec![call(
            json!({"tag_ids": [], "label_ids": []}),
            json!([]),
        )]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }
}
