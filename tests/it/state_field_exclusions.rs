//! A query parameter naming the fields to leave out (`rea_state::selection`, `FieldSelection::
//! excludes`), learned where every recorded selection showed none of the fields it named and
//! some it did not, and answered from the state for other fields and sibling lists, as the live
//! application did on the probes: Sails' `omit` (recorded as `omit=createdAt,updatedAt` on
//! tasks, asked `omit=email` on people) and TiddlyWiki's `exclude` (recorded as
//! `exclude=text,creator,modifier` on contacts, asked `exclude=tags` on tasks, which shows the
//! `text` the plain list hides: another exclusion replaces the default one).

use crate::state_query_grammar::served_with_probes;
use crate::state_query_lists::assert_state_answers;
use crate::state_support::list_view;

#[test]
fn sails_omit_leaves_out_other_fields_on_a_sibling_list() {
    let (served, probes) = served_with_probes("sails");
    let exclusion = list_view(&served, "get_person").exclusion.clone();
    assert_eq!(
        exclusion.map(|rule| (rule.parameter.clone(), rule.excludes)),
        Some(("omit".to_owned(), true))
    );
    // The task list keeps its own selection of the fields to show beside it.
    let tasks = list_view(&served, "get_task");
    assert_eq!(
        tasks.selection.as_ref().map(|rule| rule.excludes),
        Some(false)
    );
    assert_state_answers(&served, &probes, "get_person", &["GET /person?omit=email"]);
    assert_state_answers(
        &served,
        &probes,
        "get_task",
        &["GET /task?select=title,priority"],
    );
}

#[test]
fn tiddlywiki_exclude_shows_the_text_its_plain_list_hides() {
    let (served, probes) = served_with_probes("tiddlywiki");
    assert_state_answers(
        &served,
        &probes,
        "get_recipes_default_tiddlers_json",
        &["GET /recipes/default/tiddlers.json?filter=%5Btag%5BTask%5D%5D&exclude=tags"],
    );
}
