//! Syncthing 1.19 (corpus app `syncthing`, its REST config API), an application the state engine
//! was not developed on: a folder's defaults document is shaped as a folder, its device shares
//! (`{deviceID, introducedBy: "", encryptionPassword: ""}`) beside its settings
//! (`derive/lists.rs::shaped_as_held_entity`), so a folder create takes what it leaves out from
//! it, each share it sends gains the members every share holds (`writes/item_defaults.rs`), and
//! a device delete takes the device's share out of every folder (the dependents rule's pull).

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
    // The folder defaults are a document shaped as a folder, its device shares beside its
    // settings, not a list of shares.
    let detail = crate::state_support::view_detail(&served, "get_rest_config_defaults_folder");
    assert!(
        matches!(detail, rea_state::model::ViewDetail::Document(_)),
        "{detail:?}"
    );
}

#[test]
fn a_folder_create_fills_its_shares_and_a_device_delete_leaves_every_folder() {
    // Build entries 17, 20 and 75 create folders: the members a create leaves out are the
    // folder defaults' (entry 6), and each device share it sends gains `introducedBy` and
    // `encryptionPassword` '', the shares sorted by device id (entry 33's PATCH sent them
    // unsorted). Entry 56 deleted the phone, and photos no longer shared with it (entry 59).
    let served = crate::state_support::serve_corpus_app(APP);
    for tool in [
        "post_rest_config_folders",
        "patch_rest_config_folders_by_id",
        "delete_rest_config_devices_by_device_id",
    ] {
        let plan = crate::state_support::write_plan(&served, tool);
        assert!(plan.served, "{tool}: {plan:?}");
    }
    let har = crate::state_support::corpus_dir(APP).join("probe-crud.har");
    let probes = rea_evidence::capture::capture_records(&crate::state_support::capture_file(&har))
        .expect("probe records");
    let call = |step: usize| {
        let (tool, arguments) =
            crate::state_support::agreement::route(&served, &probes[step]).expect("a tool");
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(!is_error, "step {step}: {answer:#}");
        answer
    };
    call(1);
    let (_, live) = crate::state_support::live_answer(APP, "probe-crud", 2);
    assert_eq!(call(2).get("body"), Some(&live), "the created folder");
    call(23);
    let (_, live) = crate::state_support::live_answer(APP, "probe-crud", 25);
    let docs = call(25);
    assert_eq!(
        docs.pointer("/body/devices"),
        live.get("devices"),
        "{docs:#}"
    );
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

#[test]
fn a_device_create_takes_what_it_leaves_out_from_the_device_defaults() {
    // Build entries 42 and 79 create devices, 77 changes the defaults' `compression` and
    // `autoAcceptFolders` between them: every member a create leaves out is the defaults'.
    let served = crate::state_support::serve_corpus_app(APP);
    let plan = crate::state_support::write_plan(&served, "post_rest_config_devices");
    assert!(plan.served, "{plan:?}");
    let fields = plan.fields.as_ref().expect("a field model");
    assert!(
        fields.document_defaults.contains_key("compression"),
        "{fields:?}"
    );
    // A served change of the defaults reaches the next create.
    let (_, error) = served.call(
        "patch_rest_config_defaults_device",
        crate::state_support::with_body(
            &served,
            "patch_rest_config_defaults_device",
            serde_json::json!({"maxSendKbps": 100}),
        ),
    );
    assert!(!error);
    let id = "BUHDEH3-WEFQOX6-5G6RMS5-QPZIL2N-FVHG7IM-SWFWDH2-YPBHKOF-S25AEQ6";
    let body = serde_json::json!({"deviceID": id, "name": "media"});
    let (created, error) = served.call(
        "post_rest_config_devices",
        crate::state_support::with_body(&served, "post_rest_config_devices", body),
    );
    assert!(!error, "{created:#}");
    let (read, _) = served.call(
        "get_rest_config_devices_by_device_id",
        crate::state_support::id_arguments(&served, "get_rest_config_devices_by_device_id", id),
    );
    assert_eq!(read["body"]["maxSendKbps"], 100, "{read:#}");
}

#[test]
fn a_folder_replace_is_served_and_creates_keep_the_folders_in_id_order() {
    // The folders list in id order, and the list after the first create (entry 19) shows the
    // new folder last, which id order also explains; the one after the next create and the
    // PUTs (28) shows `archive` first: the creates are placed by id (`sort-inference` prefers a
    // sort the reads show to `last`), so the PUT, contradicted before, is served. The probe
    // creates `videos`, replaces it, patches `music` and lists the folders: the live answers.
    let served = crate::state_support::serve_corpus_app(APP);
    let plan = crate::state_support::write_plan(&served, "put_rest_config_folders_by_id");
    assert!(plan.served, "{plan:?}");
    let har = crate::state_support::corpus_dir(APP).join("probe-crud.har");
    let probes = rea_evidence::capture::capture_records(&crate::state_support::capture_file(&har))
        .expect("probe records");
    for (step, probe) in probes.iter().enumerate().take(10).skip(1) {
        let (tool, arguments) =
            crate::state_support::agreement::route(&served, probe).expect("a tool");
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(!is_error, "step {step}: {answer:#}");
        if [1, 5, 7].contains(&step) {
            // The writes answer 200 with no body.
            continue;
        }
        let (status, live) = crate::state_support::live_answer(APP, "probe-crud", step);
        assert_eq!(
            answer.get("status").and_then(serde_json::Value::as_u64),
            Some(status)
        );
        assert_eq!(answer.get("body"), Some(&live), "step {step}: {answer:#}");
    }
}
