//! Route templates for ids that span path segments and for collections the build named once, on
//! real recordings (issue 12, item 1):
//!
//! * ids over two segments (`rea_manifest::joined`): verdaccio's scoped package names
//!   (`@corp%2fui-kit` read whole, `/@corp/ui-kit/2.0.0-beta.1` spelled over two segments) and
//!   pouchdb-server's design documents (`_design/catalog` named by `_all_docs`, spelled over two
//!   segments by the view routes) are one segment, so a scoped version read joins the version
//!   tool and answers every version of the package from the state (a bundle's server reading its
//!   precomputed state answers as a deriving one, its evidence holding the paths as recorded),
//!   and a design document read is a document read, not an attachment read; folder trees
//!   (jupyter_server's contents, etcd's keys) join nothing;
//! * one more call of a family (listed-id rule 6): the scoped version read takes the version
//!   tool's forms, a dist-tag read (`/date-helpers/latest`, a key of another map) does not;
//! * a fused prefix spelling the route's own parameter is part of the id (`fused-affix`):
//!   verdaccio's tarball route is `/{name}/-/{…}.tgz`, a tool for every package's tarballs;
//! * listed beside its siblings (listed-id rule 5): pouchdb-server's `PUT /loans` and `GET
//!   /loans/_all_docs` join `/{db}` and `/{db}/_all_docs` (`_all_dbs` lists `loans` beside
//!   `library` and `members`); datasette's `task_tags` insert, answering another shape than the
//!   other tables' inserts, keeps its tool.

use crate::manifest_folder_tree::tool;
use crate::state_support::{Served, call_with_strings, capture_file, rules, serve_corpus_app};
use rea_manifest::Manifest;
use rea_manifest::joined::join_path;
use serde_json::Value;

/// The tool a live request line calls, read as the comparer reads it (ids over two segments
/// joined).
fn called<'m>(manifest: &'m Manifest, method: &str, path: &str) -> Option<&'m str> {
    let joined = join_path(path, &manifest.joined_segments);
    let path = joined.as_deref().unwrap_or(path);
    rea_compare::route::match_tool(&manifest.tools, method, path).map(|tool| tool.name.as_str())
}

/// The ordinal of the build's record of a request line (its path as recorded; the served records
/// are read as the manifest reads them, ids over two segments joined).
fn ordinal(served: &Served, method: &str, path: &str) -> u64 {
    let joined = join_path(path, &served.manifest.joined_segments);
    let path = joined.as_deref().unwrap_or(path);
    served
        .records
        .iter()
        .find(|record| {
            record.method.as_deref() == Some(method) && record.path.as_deref() == Some(path)
        })
        .unwrap_or_else(|| panic!("the build records {method} {path}"))
        .ordinal
}

#[test]
fn verdaccio_scoped_names_are_one_segment_and_every_version_has_the_version_tool() {
    let served = serve_corpus_app("verdaccio");
    let manifest = &served.manifest;
    assert_eq!(manifest.joined_segments, vec!["@corp"]);
    let versions = tool(manifest, "GET", "/{prefix-variance}/{sibling-variance}");
    let scoped = ordinal(&served, "GET", "/@corp/ui-kit/2.0.0-beta.1");
    assert!(versions.record_ordinals.contains(&scoped), "{versions:?}");
    assert!(
        manifest
            .tools
            .iter()
            .all(|tool| !tool.path_template.contains("ui-kit")),
        "no tool of one scoped version"
    );
    for path in [
        "/@corp/ui-kit/1.0.0",
        "/@corp/ui-kit/next",
        "/left-pad-ng/1.0.1",
    ] {
        assert_eq!(
            called(manifest, "GET", path),
            Some(versions.name.as_str()),
            "{path}"
        );
    }
    // Every package's tarballs have the tarball tool: the one recorded package's name, which
    // the file name spelled, is part of the id.
    let tarballs = tool(manifest, "GET", "/{prefix-variance}/-/{fused-affix}.tgz");
    for path in [
        "/csv-lite/-/csv-lite-0.3.0.tgz",
        "/@corp/ui-kit/-/ui-kit-1.0.0.tgz",
    ] {
        assert_eq!(
            called(manifest, "GET", path),
            Some(tarballs.name.as_str()),
            "{path}"
        );
    }
    // A dist-tag is a key of another map than the versions: its read keeps its tool.
    assert_ne!(
        called(manifest, "GET", "/date-helpers/latest"),
        Some(versions.name.as_str())
    );
    // A version the build never read of the scoped package, answered from the state.
    for name in ["@corp%2Fui-kit", "@corp/ui-kit"] {
        let (answer, is_error) = call_with_strings(
            &served,
            &versions.name,
            &[("segment_0", name), ("version", "1.0.0")],
        );
        assert!(!is_error, "{name}: {answer}");
        let body = answer.get("body").unwrap_or(&answer);
        assert_eq!(body["name"], "@corp/ui-kit", "{answer}");
        assert_eq!(body["version"], "1.0.0", "{answer}");
    }
}

#[test]
fn pouchdb_design_documents_are_one_segment_and_read_as_documents() {
    let served = serve_corpus_app("pouchdb-server");
    let manifest = &served.manifest;
    assert_eq!(manifest.joined_segments, vec!["_design"]);
    let view = tool(
        manifest,
        "GET",
        "/{prefix-variance}/_design%2Fcatalog/_view/by_author",
    );
    let documents = tool(manifest, "GET", "/{prefix-variance}/{sibling-variance}");
    assert_eq!(
        called(manifest, "GET", "/library/_design/catalog"),
        Some(documents.name.as_str()),
        "a design document read is a document read, not an attachment read"
    );
    assert_eq!(
        called(manifest, "GET", "/library/_design/catalog/_view/by_author"),
        Some(view.name.as_str())
    );
    assert_eq!(
        called(manifest, "GET", "/library/book:dune/blurb.txt"),
        Some(
            tool(
                manifest,
                "GET",
                "/{prefix-variance}/{prefix-variance}/{member-key}"
            )
            .name
            .as_str()
        )
    );
    // The view's recorded read answers as recorded, through its joined template.
    let (answer, is_error) = call_with_strings(
        &served,
        &view.name,
        &[("segment_0", "library"), ("key", "\"author:le-guin\"")],
    );
    assert!(!is_error, "{answer}");
    assert!(answer.to_string().contains("book:earthsea"), "{answer}");
}

#[test]
fn folder_trees_join_no_segments() {
    for app in ["jupyter_server", "etcd"] {
        let build = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/apps")
            .join(app)
            .join("build.har");
        let (manifest, _) =
            rea_manifest::project_manifest_evidence(&capture_file(&build), &rules())
                .expect("manifest");
        assert!(manifest.joined_segments.is_empty(), "{app}");
    }
}

#[test]
fn a_collection_listed_beside_its_siblings_joins_their_tools() {
    let served = serve_corpus_app("pouchdb-server");
    let manifest = &served.manifest;
    let create = tool(manifest, "PUT", "/{sibling-variance}");
    assert!(
        create
            .record_ordinals
            .contains(&ordinal(&served, "PUT", "/loans")),
        "{create:?}"
    );
    let all_docs = tool(manifest, "GET", "/{prefix-variance}/_all_docs");
    assert!(
        all_docs
            .record_ordinals
            .contains(&ordinal(&served, "GET", "/loans/_all_docs")),
        "{all_docs:?}"
    );
    assert!(manifest.tools.iter().all(|tool| tool.name != "put_loans"));
    assert_eq!(
        called(manifest, "PUT", "/reviews"),
        Some(create.name.as_str())
    );
    // datasette: the task_tags insert answers {"ok": true} where the other tables' inserts
    // answered their rows; it keeps its own tool.
    let datasette = serve_corpus_app("datasette");
    let insert = tool(
        &datasette.manifest,
        "POST",
        "/tracker/{prefix-variance}/-/insert",
    );
    assert!(!insert.record_ordinals.contains(&ordinal(
        &datasette,
        "POST",
        "/tracker/task_tags/-/insert"
    )));
    tool(&datasette.manifest, "POST", "/tracker/task_tags/-/insert");
}

/// Builds a corpus app's bundle into `work` and answers its env folder.
fn bundle(work: &std::path::Path, app: &str) -> std::path::PathBuf {
    let binary = crate::bundle_support::stand_in_binary(work)
        .display()
        .to_string();
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/apps")
        .join(app)
        .join("build.har")
        .display()
        .to_string();
    let run = crate::bundle_support::run(
        work,
        &[
            "environment-build",
            &capture,
            app,
            "--name",
            app,
            "--binary",
            &binary,
            "--json",
        ],
    );
    let report = crate::bundle_support::report(&run);
    assert_eq!(report["state"]["served"], true, "{report}");
    work.join(app).join("envs").join(app)
}

/// The answer of one tool call on a bundle's server, reading its precomputed state or deriving.
fn bundle_answer(env: &std::path::Path, precomputed: bool, tool: &str, arguments: &Value) -> Value {
    use crate::serve_support::process::{answer_of, call_tool};
    let state = env.join("state.json");
    let (server, url) = crate::state_precomputed::serve(env, precomputed.then_some(&*state));
    let answer = answer_of(&call_tool(&url, tool, arguments));
    server.signal("TERM");
    let (_, _, stderr) = server.finish();
    assert_eq!(
        stderr
            .join("\n")
            .contains("the state is read from the precomputed file"),
        precomputed
    );
    answer
}

#[test]
fn a_bundle_serves_a_scoped_version_from_its_precomputed_state_as_deriving_does() {
    let dir = tempfile::tempdir().unwrap();
    let env = bundle(dir.path(), "verdaccio");
    // The bundle's evidence holds the capture's records as recorded.
    let evidence = std::fs::read_to_string(env.join("evidence.json")).unwrap();
    assert!(evidence.contains("/@corp/ui-kit/2.0.0-beta.1"));
    let tool = "get_root_by_prefix_variance_and_sibling_variance";
    let arguments = serde_json::json!({"segment_0": "@corp/ui-kit", "version": "1.0.0"});
    let read = bundle_answer(&env, true, tool, &arguments);
    assert_eq!(read["status"], 200, "{read}");
    assert_eq!(read["body"]["name"], "@corp/ui-kit", "{read}");
    assert_eq!(read["body"]["version"], "1.0.0", "{read}");
    assert_eq!(read, bundle_answer(&env, false, tool, &arguments));
}
