//! A parameter learned as a sort from its recorded values, whatever its name: values that are
//! lists of the entities' fields, some `-` for descending (`order=-priority,title`), sort, and
//! the page size and offset recorded beside them are learned with it. Probe requests recorded on
//! the live application, answered from the state of its `build.har`, give the live answer.

use crate::state_query_grammar::assert_live_answers;

#[test]
fn a_direction_name_whose_values_list_sort_keys_sorts_and_pages() {
    // Recorded: order=-priority,title (with a where=), order=title with limit 3 and skip 3,
    // order=-budget on Project. `order` names a sort direction by convention; its values list
    // fields. Never recorded: limit 2 with skip 6, a descending sort on estimate with a filter,
    // a two-key ascending sort.
    assert_live_answers(
        "parse-server",
        "get_parse_classes_task",
        &[
            "GET /parse/classes/Task?order=title&limit=2&skip=6",
            "GET /parse/classes/Task?where=%7B%22status%22%3A%7B%22%24ne%22%3A%22open%22%7D%7D&order=-estimate",
            "GET /parse/classes/Task?where=%7B%22estimate%22%3A%7B%22%24gte%22%3A2%2C%22%24lte%22%3A4%7D%7D&order=estimate%2Ctitle",
        ],
    );
}

#[test]
fn a_sort_name_with_descending_keys_sorts_on_a_second_application() {
    // Recorded: _sort=-priority, _sort=customerId,-opened. Never recorded: a descending nested
    // key before an ascending one.
    assert_live_answers(
        "json-server-v1",
        "get_tickets",
        &["GET /tickets?_sort=-sla.hours%2Csubject"],
    );
}
