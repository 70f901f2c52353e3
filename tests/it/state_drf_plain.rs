//! Plain Django REST framework with django-filter (`tests/corpus/apps/drf`), an application
//! nobody tuned the engine for, read through the rules other apps taught: django-filter's
//! `field__lookup=value` suffixes (`__gt`, `__lte`, `__icontains`, `__in` as a comma list,
//! `__isnull`; the `__` operator affixes datasette taught the query-grammar plugin), `ordering`
//! and `search` over the state; and its page-number envelope `{count, next, previous, results}`,
//! whose absolute `next`/`previous` links sit beside the list rather than in a links object
//! (`rea_state::flat_links`), minted for every evaluated page, a call naming no `page_size`
//! paged by the default size its answered lines showed (10), which its links never name.

use crate::state_query_grammar::served_with_probes;
use crate::state_query_lists::assert_state_answers;

#[test]
fn django_filter_lookups_answer_from_the_state() {
    // Recorded: `__gte`, `__lt`, `__lte`, `__icontains`, `__startswith`, `__in`, `__isnull`,
    // equality. Asked: `__gt` (never recorded), other values, fields and combinations.
    let (served, probes) = served_with_probes("drf");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /api/tasks/?status=doing",
            "GET /api/tasks/?priority__gt=1",
            "GET /api/tasks/?priority__lt=3&status=doing",
            "GET /api/tasks/?title__icontains=THE",
            "GET /api/tasks/?status__in=open,doing",
            "GET /api/tasks/?due__isnull=false",
            "GET /api/tasks/?assignee__isnull=false&priority__lt=3",
            "GET /api/tasks/?search=GRANITE",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_people",
        &[
            "GET /api/people/?role=designer",
            "GET /api/people/?search=kofi",
        ],
    );
}

#[test]
fn page_links_beside_the_list_are_minted_for_evaluated_pages() {
    // Fourteen tasks, 10 a page unless `page_size` says otherwise: the first page of an
    // ordering links `?ordering=-priority&page=2`; a page asked directly links both ways; a
    // walk by `next` re-encodes the query in name order (`status__in=open%2Cdoing`).
    let (served, probes) = served_with_probes("drf");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /api/tasks/?ordering=-priority",
            "GET /api/tasks/?page=2",
            "GET /api/tasks/?page=2&page_size=4",
            "GET /api/tasks/?ordering=-title&page_size=6",
            "GET /api/tasks/?ordering=-title&page=3&page_size=6",
            "GET /api/tasks/?status__in=open,doing&page_size=3",
            "GET /api/tasks/?page=2&page_size=3&status__in=open%2Cdoing",
            "GET /api/tasks/?page=4&page_size=3&status__in=open%2Cdoing",
        ],
    );
}
