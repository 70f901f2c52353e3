//! The clock facts the comparison leans on that the state engine and the clock rule keep:
//! respelling and generated clocks within years 0000–9999, and the capture-state record order
//! (equal starts by ordinal, record order when a start is missing). Deviations are listed in
//! `host/crates/compare/CONTRACT-NOTES.md`.

use rea_manifest::{TemplateRules, project_manifest};
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;
use rea_state::observation::{RecordOrder, Timeline};

#[test]
fn respelling_keeps_a_clock_whose_zone_would_leave_the_four_digit_years() {
    let late = Json::String("9999-12-31T23:30:00-01:00".into());
    // In UTC this instant is in the year 10000: the value stays as it is (render keeps it).
    // contract: COMPARE-061
    assert_eq!(rea_state::clock::respell(&late, "T.0Z"), None);
    let early = Json::String("0000-01-01T00:30:00+01:00".into());
    assert_eq!(rea_state::clock::respell(&early, "T.0Z"), None);
    assert_eq!(
        rea_state::clock::respell(&Json::String("0099-03-01T10:00:00Z".into()), "T.3Z"),
        Some(Json::String("0099-03-01T10:00:00.000Z".into()))
    );
}

#[test]
fn generated_clocks_outside_the_four_digit_years_are_refused() {
    use rea_plugin_api::date::{UtcInstant, read_iso_clock, spell_clock};
    let (last, format) = read_iso_clock("9999-12-31T23:59:59Z").expect("a clock");
    assert!(spell_clock(last, &format).is_some());
    // One second later is the year 10000: no spelling, so the write that needs it is refused.
    // contract: COMPARE-062
    assert_eq!(spell_clock(last.plus_seconds(1), &format), None);
    let (first, format) = read_iso_clock("0000-01-01T00:00:00Z").expect("a clock");
    let earlier = UtcInstant::from_nanos(first.as_nanos() - 1).expect("an instant");
    assert_eq!(spell_clock(earlier, &format), None);
}

fn record(ordinal: u64, instant: Option<&str>) -> CaptureRecord {
    let built =
        rea_manifest::testing::record(ordinal, "GET", &format!("http://app/posts/{ordinal}"))
            .json(200, &format!("{{\"id\": {ordinal}}}"));
    match instant {
        Some(instant) => built.started(instant, Some(instant)),
        None => built,
    }
    .build()
}

fn timeline(records: &[CaptureRecord]) -> Timeline {
    let manifest =
        project_manifest("ev_capture", records, &TemplateRules::none()).expect("manifest");
    Timeline::new(&manifest, records)
}

#[test]
fn capture_state_order_breaks_equal_starts_by_ordinal() {
    let records = [
        record(0, Some("2026-01-01T10:00:02.000000000Z")),
        record(1, Some("2026-01-01T10:00:01.000000000Z")),
        record(2, Some("2026-01-01T10:00:01.000000000Z")),
    ];
    let timeline = timeline(&records);
    assert_eq!(timeline.order, RecordOrder::StartInstant);
    // contract: COMPARE-065
    assert_eq!(timeline.ordered, vec![1, 2, 0]);
}

#[test]
fn a_missing_start_makes_the_capture_use_record_order() {
    let records = [
        record(0, Some("2026-01-01T10:00:02.000000000Z")),
        record(1, None),
        record(2, Some("2026-01-01T10:00:01.000000000Z")),
    ];
    let timeline = timeline(&records);
    // contract: COMPARE-066
    assert_eq!(
        (timeline.order, timeline.ordered),
        (RecordOrder::RecordOrder, vec![0, 1, 2])
    );
}
