//! Parts of a document and ids of an item in another collection on real recordings. The
//! `member-key` route form: a last segment its parent route's answer names as a key of a map is a
//! parameter once two such parts are recorded (verdaccio's dist-tags, `legacy` and `next`, keys of
//! `/-/package/{name}/dist-tags`; pouchdb-server's attachments, keys of a document's
//! `_attachments`), but never widens a parameter another rule made (verdaccio's tags resolved
//! under a package, `/date-helpers/latest`, stay beside the version route `/{…}/{…}`). `listed-id` rule 4: a family of routes whose every value at one position is
//! an id an item route took (`/-/package/{name}/dist-tags` of two packages read by `/{name}`)
//! takes that parameter's form, and rule 3 makes the writes under it (`PUT
//! /-/package/{name}/dist-tags/{tag}`) one tool too.

use rea_manifest::ManifestTool;

use crate::manifest_folder_tree::tool;
use crate::state_support::serve_corpus_app;

fn observed(tool: &ManifestTool, parameter: usize) -> Vec<String> {
    let mut values: Vec<String> = tool.path_parameters[parameter]
        .observed_values
        .iter()
        .map(|value| value.to_string())
        .collect();
    values.sort();
    values
}

#[test]
fn a_packages_tags_and_versions_are_parameters_of_one_tool_each() {
    let served = serve_corpus_app("verdaccio");
    let manifest = &served.manifest;
    let tags = tool(manifest, "GET", "/-/package/{sibling-variance}/dist-tags");
    assert_eq!(observed(tags, 0), vec!["@corp%2fui-kit", "date-helpers"]);
    let put = tool(
        manifest,
        "PUT",
        "/-/package/{sibling-variance}/dist-tags/{member-key}",
    );
    assert_eq!(observed(put, 1), vec!["legacy"]);
    let delete = tool(
        manifest,
        "DELETE",
        "/-/package/{sibling-variance}/dist-tags/{member-key}",
    );
    assert_eq!(observed(delete, 1), vec!["next"]);
    assert!(
        !manifest
            .tools
            .iter()
            .any(|tool| tool.path_template.contains("dist-tags/")
                && !tool.path_template.ends_with("{member-key}")),
        "no literal tag route is left under dist-tags"
    );
    // A tag resolved under a package keeps its route beside the version route: the versions'
    // answers do not show a tag, so joining them would lose the version route's state view.
    let versions = tool(manifest, "GET", "/{prefix-variance}/{sibling-variance}");
    assert!(!observed(versions, 1).contains(&"latest".to_owned()));
    tool(manifest, "GET", "/{prefix-variance}/latest");
}

#[test]
fn a_documents_attachments_are_one_parameter() {
    let served = serve_corpus_app("pouchdb-server");
    let manifest = &served.manifest;
    let get = tool(
        manifest,
        "GET",
        "/{prefix-variance}/{prefix-variance}/{member-key}",
    );
    assert_eq!(observed(get, 2), vec!["blurb.txt", "cover.txt"]);
    let put = tool(
        manifest,
        "PUT",
        "/{prefix-variance}/{prefix-variance}/{member-key}",
    );
    assert_eq!(observed(put, 2), vec!["blurb.txt"]);
    // A sub-resource the document names in no map stays literal.
    assert!(
        manifest
            .tools
            .iter()
            .any(|tool| tool.path_template == "/{prefix-variance}/_all_docs"),
        "the database's _all_docs route is not a document part"
    );
}
