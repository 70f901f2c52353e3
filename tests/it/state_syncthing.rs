//! Syncthing 1.19 (corpus app `syncthing`, its REST config API), an application the state engine
//! was not developed on: a folder's defaults document lists its device shares
//! (`{deviceID, introducedBy: "", encryptionPassword: ""}`), which agree with a device on its id
//! and empty texts only; they are no devices (`derive/lists.rs::mostly_agrees`), so the device
//! writes are not withheld for a view that cannot render a device in full.

const APP: &str = "syncthing";

#[test]
fn the_device_merge_and_replace_are_served() {
    let served = crate::state_support::serve_corpus_app(APP);
    for tool in [
        "patch_rest_config_devices_by_device_id",
        "put_rest_config_devices_by_device_id",
    ] {
        let plan = crate::state_support::write_plan(&served, tool);
        assert!(plan.served, "{tool}: {plan:?}");
    }
    let rea_state::model::ViewDetail::List(shares) =
        crate::state_support::view_detail(&served, "get_rest_config_defaults_folder")
    else {
        panic!("the defaults folder's shares")
    };
    assert_ne!(shares.entity_type, "/rest/config/devices");
}

#[test]
fn a_malformed_device_id_answers_the_error_the_build_showed_for_one() {
    // Recorded: 400 for `NOT-A-DEVICE` (entry 16, a literal route of its own) and 404 for
    // well-formed ids no device has (15, 57); the probes ask for `12345` and a truncated id.
    let (served, probes) = crate::state_query_grammar::served_with_probes(APP);
    for line in [
        "GET /rest/config/devices/12345",
        "GET /rest/config/devices/FB7OS3F-FS2BG2Y",
    ] {
        let probe = crate::state_support::probe_with_line(&probes, line);
        let (tool, arguments) =
            crate::state_support::agreement::route(&served, probe).expect("a tool");
        assert_eq!(tool, "get_rest_config_devices_by_device_id");
        let (answer, _) = served.call(&tool, arguments);
        let (status, live) = crate::state_support::recorded_answer(probe);
        assert_eq!(
            answer["status"],
            serde_json::json!(status),
            "{line}: {answer:#}"
        );
        assert_eq!(answer.get("body"), Some(&live), "{line}");
    }
}
