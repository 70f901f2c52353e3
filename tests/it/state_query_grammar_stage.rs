//! The list query grammar is a plugin stage (kind `query-grammar`): the state engine asks the
//! stages the pipeline's `[state] query_grammars` names (the built-in `field-affixes` by default),
//! through the registry like any loaded plugin's, and keeps what they propose apart from the
//! recorded roles. On two recorded applications: the built-in stage extends their lists, a
//! pipeline naming no grammar extends nothing (and seals another state), and the stage asked
//! directly answers what the state holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rea_backends::fetch::FetchOptions;
use rea_plugin_api::StageKind;
use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::query::{QueryGrammarRequest, QueryRole};
use rea_state::StateView;
use rea_state::model::ViewDetail;

use crate::state_support::{capture_file, serve_evidence, state_rules};

const APPS: [&str; 2] = ["json-server-v1", "directus"];

fn build_of(app: &str) -> PathBuf {
    rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|found| found.name == app)
        .unwrap_or_else(|| panic!("the corpus holds {app}"))
        .dir
        .join("build.har")
}

fn state_of(build: &Path, rules: Arc<rea_state::rules::RuleSet>) -> StateView {
    serve_evidence(capture_file(build), rules, FetchOptions::default())
        .state()
        .clone()
}

/// Each list view's tool and what the grammar extended it to.
fn generalized(state: &StateView) -> BTreeMap<String, BTreeMap<String, QueryRole>> {
    state
        .views
        .iter()
        .filter_map(|view| match &view.detail {
            ViewDetail::List(list) => Some((
                view.tool.clone(),
                list.query
                    .as_ref()
                    .map(|model| model.generalized.clone())
                    .unwrap_or_default(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn the_built_in_grammar_is_a_query_grammar_stage_the_default_pipeline_names() {
    let mut registry = rea::builtin_registry().expect("registry");
    let stages: Vec<&str> = registry
        .stages_of_kind(StageKind::QueryGrammar)
        .into_iter()
        .map(|(_, stage)| stage.name.as_str())
        .collect();
    assert_eq!(
        stages,
        vec![
            "field-affixes",
            "filter-steps",
            "json-filter",
            "key-range",
            "kv-range",
            "mango-selector",
            "search-filter"
        ]
    );
    assert!(registry.rule_stage("field-affixes").is_err());
    let pipeline = rea_pipeline::load(None, &mut registry).expect("the default pipeline");
    let named: Vec<(&str, &str)> = pipeline
        .query_grammars
        .iter()
        .map(|stage| (stage.stage.as_str(), stage.plugin.as_str()))
        .collect();
    assert_eq!(
        named,
        vec![
            ("field-affixes", "rea-query-grammar"),
            ("filter-steps", "rea-query-grammar"),
            ("json-filter", "rea-query-grammar"),
            ("key-range", "rea-query-grammar"),
            ("kv-range", "rea-query-grammar"),
            ("mango-selector", "rea-query-grammar"),
            ("search-filter", "rea-query-grammar"),
        ]
    );
    // A rule stage named as a query grammar, or an unknown name, is refused at its position.
    for (name, code) in [
        ("held-clock", "wrong_stage_kind"),
        ("nope", "unknown_stage"),
    ] {
        let text = format!("[state]\nquery_grammars = [\"{name}\"]\n");
        let spec = rea_pipeline::parse(&text, "p.toml", Path::new(".")).expect("parses");
        let errors = rea_pipeline::resolve(&spec, &mut registry).expect_err("refused");
        assert_eq!(errors.0.len(), 1, "{errors:?}");
        assert_eq!(errors.0[0].code, code);
        assert_eq!(errors.0[0].line, Some(2));
    }
}

#[test]
fn lists_are_extended_only_by_the_grammars_the_pipeline_names() {
    for app in APPS {
        let build = build_of(app);
        let with_default = state_of(&build, state_rules());
        let extended = generalized(&with_default);
        assert!(
            extended.values().any(|proposed| !proposed.is_empty()),
            "{app}: the built-in grammar extends some list: {extended:#?}"
        );
        let none = Arc::new((*state_rules()).clone().with_query_grammars(Vec::new()));
        let without = state_of(&build, none);
        assert!(
            generalized(&without).values().all(BTreeMap::is_empty),
            "{app}: no grammar, no extension"
        );
        // The recorded roles of the parameters no grammar splits into terms do not depend on
        // the grammar.
        for (with_view, without_view) in with_default.views.iter().zip(&without.views) {
            if let (ViewDetail::List(with_list), ViewDetail::List(without_list)) =
                (&with_view.detail, &without_view.detail)
            {
                let unsplit: BTreeSet<&String> = with_list
                    .lines
                    .iter()
                    .flat_map(|line| line.query.iter().flatten())
                    .filter(|(name, value)| {
                        state_rules()
                            .split_query_expression((name, value), &[], &[])
                            .is_none()
                    })
                    .map(|(name, _)| name)
                    .collect();
                let recorded = |list: &rea_state::model::ListView| {
                    let mut roles = list
                        .query
                        .as_ref()
                        .map(|model| model.parameters.clone())
                        .unwrap_or_default();
                    roles.retain(|name, _| unsplit.contains(name));
                    roles
                };
                assert_eq!(
                    recorded(with_list),
                    recorded(without_list),
                    "{app}: {}",
                    with_view.tool
                );
            }
        }
        assert!(without.query_grammars.is_empty());
        assert!(
            rea_state::rules::is_default_query_grammars(&with_default.query_grammars),
            "{app}"
        );
    }
}

#[test]
fn the_stage_asked_through_the_registry_answers_what_the_state_holds() {
    let registry = rea::builtin_registry().expect("registry");
    let stage = registry
        .query_grammar_stage("field-affixes")
        .expect("the built-in grammar");
    for app in APPS {
        let served = serve_evidence(
            capture_file(&build_of(app)),
            state_rules(),
            FetchOptions::default(),
        );
        let state = served.state().clone();
        let entities: Vec<_> = state
            .entities
            .iter()
            .map(|entity| (**entity).clone())
            .collect();
        let tools: Vec<String> = state
            .views
            .iter()
            .filter(|view| matches!(view.detail, ViewDetail::List(_)))
            .map(|view| view.tool.clone())
            .collect();
        let timeline = rea_state::observation::Timeline::new(&served.manifest, &served.records);
        let lists = rea_state::derive::query_grammar::request_lists(
            &served.manifest,
            &timeline,
            &state.views,
            &entities,
        );
        let outcome = stage
            .apply(&QueryGrammarRequest {
                options: Default::default(),
                lists,
                schema_version: SCHEMA_VERSION,
            })
            .expect("the grammar answers");
        let expected = generalized(&state);
        assert_eq!(outcome.lists.len(), tools.len());
        for (tool, proposed) in tools.iter().zip(outcome.lists) {
            assert_eq!(&proposed, &expected[tool], "{app}: {tool}");
        }
    }
}
