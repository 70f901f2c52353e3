//! A sort over several keys sent as one sort parameter repeated (django-tastypie's
//! `order_by=genre&order_by=-year`, `apply_sorting` reading `getlist('order_by')`): the book
//! list's query model learns that its sort repeats from the build's line repeating it (entry 35,
//! whose rows follow the keys in sequence and not the first key alone), and a call repeating it
//! is evaluated, its page links keeping the repetitions as sent; the loans, sorted by the same
//! name, take the repeated form too.

use crate::state_support::{
    call_admitted, live_answer, query_model, request_arguments, serve_corpus_app,
};

#[test]
fn a_list_read_with_its_sort_repeated_learns_that_the_sort_repeats() {
    let served = serve_corpus_app("tastypie");
    assert!(query_model(&served, "get_book").repeated_sort);
}

#[test]
fn a_call_repeating_the_sort_answers_the_keys_in_sequence() {
    // Probe-reads step 28: a first default page of the books by genre descending, then title,
    // its `meta.next` repeating `order_by` as sent.
    let served = serve_corpus_app("tastypie");
    let query = [("order_by", "-genre"), ("order_by", "title")];
    let arguments = request_arguments(&served, "get_book", (&[], &query), None);
    let answer = call_admitted(&served, "get_book", arguments);
    let (status, live) = live_answer("tastypie", "probe-reads", 28);
    assert_eq!(answer["status"], status, "{answer:#}");
    assert_eq!(answer["body"], live, "{answer:#}");
}

#[test]
fn a_sibling_list_sorting_by_the_same_name_takes_the_repeated_form() {
    // Probe-reads step 31: the loans recorded `order_by` with one key only (entry 37); the books
    // taught that it repeats, so the loan tool takes an array and sorts by its keys in sequence.
    let served = serve_corpus_app("tastypie");
    assert!(query_model(&served, "get_loan").repeated_sort);
    let query = [("order_by", "borrower"), ("order_by", "-loaned_on")];
    let arguments = request_arguments(&served, "get_loan", (&[], &query), None);
    let answer = call_admitted(&served, "get_loan", arguments);
    let (status, live) = live_answer("tastypie", "probe-reads", 31);
    assert_eq!(answer["status"], status, "{answer:#}");
    assert_eq!(answer["body"], live, "{answer:#}");
}
