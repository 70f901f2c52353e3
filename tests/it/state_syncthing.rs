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
