//! Suffix routes at every depth of a document tree (opt-in with sibling transfer;
//! `rea_manifest::suffix_depths`) on real recordings. jupyter_server's build checkpointed one
//! document two levels down (`/api/contents/notes/standup.md/checkpoints`, create, list, restore,
//! delete), so its checkpoint routes template at that depth; the tree's documents are read at one,
//! two and (listed) three levels, each answering its own path (`"path": "notes/todo.md"`), so the
//! routes are offered at depths one and three, and a root document's checkpoint path routes to
//! them rather than to the two-level document read (which answered it missing). The state
//! learned no checkpoint (the recorded create is withheld), so it lists none of them: the
//! inferred tools wait for their source. etcd's key tree spells its paths too but has no suffix
//! route; pouchdb-server's and verdaccio's suffix routes (`/{db}/_all_docs`, `/{name}/-/{…}.tgz`)
//! hang on reads that do not spell their paths (a database and its documents, a package and its
//! versions), so nothing is offered there.

use rea_compare::route::match_tool;
use rea_manifest::ManifestTool;

use crate::state_support::{Served, serve_corpus_app_transfer};

/// The tools a suffix route offers at another depth: inferred from a tool whose template holds
/// a literal after its parameters, at another length.
fn depth_tools(served: &Served) -> Vec<&ManifestTool> {
    served
        .manifest
        .tools
        .iter()
        .filter(|tool| {
            tool.inferred_from.as_deref().is_some_and(|source| {
                tool.name.starts_with(source) && tool.name[source.len()..].starts_with("_depth_")
            })
        })
        .collect()
}

#[test]
fn jupyter_checkpoint_routes_are_offered_at_every_depth_of_the_contents_tree() {
    let served = serve_corpus_app_transfer("jupyter_server", true);
    let mut offered: Vec<(String, String)> = depth_tools(&served)
        .iter()
        .map(|tool| (tool.method.clone(), tool.path_template.clone()))
        .collect();
    offered.sort();
    let expected: Vec<(String, String)> = [
        ("DELETE", "/api/contents/{sibling-variance}/checkpoints/{listed-id}"),
        (
            "DELETE",
            "/api/contents/{prefix-variance}/{sibling-variance}/{folder-tree}/checkpoints/{listed-id}",
        ),
        ("GET", "/api/contents/{sibling-variance}/checkpoints"),
        (
            "GET",
            "/api/contents/{prefix-variance}/{sibling-variance}/{folder-tree}/checkpoints",
        ),
        ("POST", "/api/contents/{sibling-variance}/checkpoints"),
        ("POST", "/api/contents/{sibling-variance}/checkpoints/{listed-id}"),
        (
            "POST",
            "/api/contents/{prefix-variance}/{sibling-variance}/{folder-tree}/checkpoints",
        ),
        (
            "POST",
            "/api/contents/{prefix-variance}/{sibling-variance}/{folder-tree}/checkpoints/{listed-id}",
        ),
    ]
    .iter()
    .map(|(method, template)| ((*method).to_owned(), (*template).to_owned()))
    .collect();
    let mut expected = expected;
    expected.sort();
    assert_eq!(offered, expected);
    for tool in depth_tools(&served) {
        assert!(tool.record_ordinals.is_empty(), "{tool:#?}");
        assert!(served.replay.is_inferred(&tool.name), "{}", tool.name);
    }
    // A root document's checkpoint list routes to the depth-one route, not to the two-level
    // document read; a two-level one keeps the recorded route.
    let tools = &served.manifest.tools;
    let root =
        match_tool(tools, "GET", "/api/contents/analysis.ipynb/checkpoints").expect("a tool");
    assert_eq!(
        root.path_template,
        "/api/contents/{sibling-variance}/checkpoints"
    );
    let recorded =
        match_tool(tools, "GET", "/api/contents/notes/todo.md/checkpoints").expect("a tool");
    assert!(recorded.inferred_from.is_none(), "{recorded:#?}");
    // The source create is withheld, so no inferred checkpoint write is served.
    let state = served.state();
    for tool in depth_tools(&served) {
        assert!(
            state
                .write_plans
                .iter()
                .all(|plan| plan.tool != tool.name || !plan.served),
            "{}",
            tool.name
        );
    }
}

#[test]
fn trees_without_suffix_routes_and_suffix_routes_off_trees_offer_nothing() {
    for app in ["etcd", "pouchdb-server", "verdaccio"] {
        let served = serve_corpus_app_transfer(app, true);
        assert!(depth_tools(&served).is_empty(), "{app}");
    }
}
