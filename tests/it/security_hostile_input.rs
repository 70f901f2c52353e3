//! Issue 15: hostile inputs an adversarial pass found accepted. Defect 3: an absurd HAR `time`
//! (1e17, 1e308 ms) became a served clock in the year 3,170,900; out-of-range durations are a
//! limitation, like negative ones, and are not used.

use crate::capture_support::{entry, har_with_entries, inspect_all, records, temp_capture};
use rea_plugin_api::json::Json;

fn with_time(time: &str) -> String {
    entry("https://api.example.com/items", "", "").replacen(
        "\"time\": 12.5",
        &format!("\"time\": {time}"),
        1,
    )
}

#[test]
fn an_absurd_har_time_is_a_limitation_and_not_a_duration() {
    let har = har_with_entries(&[&with_time("1e17"), &with_time("1e308"), &with_time("12.5")]);
    let (_dir, path) = temp_capture("absurd.har", har.as_bytes());
    let evidence = inspect_all(&path).expect("inspects");
    let durations: Vec<Option<f64>> = records(&evidence)
        .iter()
        .map(|record| {
            record
                .get("duration_ms")
                .and_then(Json::as_number)
                .map(|number| number.as_f64())
        })
        .collect();
    assert_eq!(durations, [None, None, Some(12.5)]);
    let limitations = evidence
        .get("limitations")
        .and_then(Json::as_array)
        .expect("limitations");
    let out_of_range = limitations
        .iter()
        .find(|limitation| {
            limitation.get("code").and_then(Json::as_str) == Some("duration-out-of-range")
        })
        .unwrap_or_else(|| panic!("no duration-out-of-range limitation: {limitations:?}"));
    let ordinals: Vec<u64> = out_of_range
        .get("record_ordinals")
        .and_then(Json::as_array)
        .expect("ordinals")
        .iter()
        .filter_map(|ordinal| ordinal.as_number().and_then(|number| number.as_u64()))
        .collect();
    assert_eq!(ordinals, [0, 1]);
}
