//! The HAR extractor's cdylib, loaded by path through the registry, answers byte for byte what
//! the built-in answers, and gives the same Evidence.
//!
//! `rea-plugin-har-cdylib` is a dev-dependency of this crate, so cargo builds the library into
//! `target/<profile>/deps/` before the tests run (`rea_tests::built_library` finds it).

use crate::capture_support;

use capture_support::*;
use rea::commands::inspect_capture::{InspectRequest, inspect};
use rea_plugin_api::contracts::capture::ExtractRequest;
use rea_registry::{PluginSource, Registry};

fn registries() -> (Registry, Registry) {
    let builtin = Registry::with_builtins().expect("built-ins");
    let mut library = Registry::empty();
    let path = rea_tests::built_library("rea_plugin_har_cdylib");
    let plugin = library.load_library(&path, None).expect("the cdylib loads");
    assert_eq!(plugin.name, "har");
    assert!(matches!(plugin.source, PluginSource::Library { .. }));
    (builtin, library)
}

#[test]
fn the_cdylib_extracts_byte_identically_to_the_builtin() {
    let (builtin, library) = registries();
    let from_builtin = builtin.capture_stage("har").unwrap();
    let from_library = library.capture_stage("har").unwrap();
    let root = captures_dir();
    for relative in all_captures() {
        let bytes = std::fs::read(root.join(&relative)).unwrap();
        for sensitive in [vec![], vec!["mitmproxy".to_owned()]] {
            let request = ExtractRequest {
                input_kind: "har".to_owned(),
                sensitive_values: sensitive,
                schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
            };
            let a = from_builtin.extract_raw(&request, &bytes);
            let b = from_library.extract_raw(&request, &bytes);
            match (a, b) {
                (Ok(a), Ok(b)) => assert!(a == b, "{}: answers differ", relative.display()),
                (Err(a), Err(b)) => assert_eq!(
                    a.plugin_error(),
                    b.plugin_error(),
                    "{}: refusals differ",
                    relative.display()
                ),
                (a, b) => panic!("{}: one refused: {a:?} / {b:?}", relative.display()),
            }
        }
    }
}

#[test]
fn the_cdylib_gives_the_same_evidence() {
    let (builtin, library) = registries();
    let path = captures_dir().join("tiddlywiki/browser-ui.har");
    let request = InspectRequest {
        capture: &path,
        input_kind: "har",
        selection: Some(&[3, 1]),
        sensitive_values: &[],
    };
    let a = inspect(&builtin, "har", &request).unwrap();
    let b = inspect(&library, "har", &request).unwrap();
    assert_eq!(a.to_canonical_vec(), b.to_canonical_vec());
}
