//! Totals shared across lists (`rea_state::derive::shared_totals`): a list its build never paged
//! learned its count member as a counter of what it lists; where a sibling list, paged, showed
//! that member counting every match, a call paging the list through the roles its siblings lend
//! counts every match too. Two recorded apps: Flask-AppBuilder's people (`count` beside its paged
//! tasks' and projects'), Roundup's statuses (`@total_size` beside its paged issues').

use crate::state_query_grammar::assert_live_answers;
use crate::state_support::{list_view, serve_corpus_app};

#[test]
fn fab_people_paged_count_every_person() {
    // Live: the third page of two people answers `count: 6`.
    assert_live_answers(
        "fab",
        "get_person",
        &["GET /api/v1/person/?q=(page:2,page_size:2)"],
    );
}

#[test]
fn roundup_status_list_counts_every_status() {
    // Recorded once (`@verbose=2`, entry 2: eight statuses, `@total_size: 8`), never paged; the
    // issues, paged by two (entries 16, 17), counted all six issues there. The statuses' model
    // takes `@total_size` as the number matched, no longer the number listed. (No call pages the
    // statuses in this environment: `@verbose` plays no role its lines teach.)
    let served = serve_corpus_app("roundup");
    let statuses = list_view(&served, "get_rt_rest_data_status");
    assert!(statuses.counters.is_empty(), "{:?}", statuses.counters);
    let model = statuses.query.as_ref().expect("a query model");
    assert_eq!(model.totals, vec!["/data/@total_size".to_owned()]);
}
