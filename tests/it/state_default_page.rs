//! A list's default page (`rea_state::derive::default_page`): FeathersJS's paginated services
//! answer a call naming no `$limit` with the first 10 of the collection and `total` counting all
//! of it; that argument-less read leaves no task out, so the recorded filters are learned over
//! the whole collection and every call naming no page size is cut at 10. A `$limit` above the
//! service's maximum is answered as the maximum (`limit: 50`, `PagedMember::max`), and `null`
//! names a field holding JSON null (`assigneeId=null`), so the assignee filter is learned. Probe
//! requests recorded on the live application, answered from the state of its `build.har`, give
//! the live answer.

use crate::state_query_grammar::assert_live_answers;

#[test]
fn filters_learned_over_the_whole_collection_answer_more_than_the_default_page_shows() {
    // Recorded: `/tasks` (10 of 14, `total: 14`), `$skip=10`, `status=todo`, `projectId=1`,
    // `assigneeId=3`, `assigneeId=null`, `priority[$lt]`, `[$lte]`, `estimate[$gt]`, … (build
    // entries 3-17). Never recorded: these values, operators on these fields, two filters.
    assert_live_answers(
        "feathers",
        "get_tasks",
        &[
            "GET /tasks?priority[$gt]=1",
            "GET /tasks?assigneeId=5",
            "GET /tasks?assigneeId=1&status=todo",
            "GET /tasks?estimate[$lt]=3",
            "GET /tasks?projectId[$ne]=1",
        ],
    );
}

#[test]
fn pages_follow_the_default_size_and_the_largest_size() {
    // Recorded: `$limit=5` pages, `$limit=0`, `$limit=100` (answered `limit: 50`). Never
    // recorded: a page of 4 at 8, a page past the end at the default size, `$limit=0` with a
    // filter, `$limit=60` (answered `limit: 50`).
    assert_live_answers(
        "feathers",
        "get_tasks",
        &[
            "GET /tasks?$limit=4&$skip=8",
            "GET /tasks?$skip=40",
            "GET /tasks?status=done&$limit=0",
            "GET /tasks?$limit=60",
        ],
    );
}
