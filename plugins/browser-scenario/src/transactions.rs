//! Pairing a session's network events into transactions.
//!
//! A transaction is one request hop (`request_id`, `hop`) with its response. It is attributable
//! when exactly one request event and exactly one response (kept, or omitted for its allocation
//! with its status kept) carry its key. Its end is the `finished` or `failed` event of its id for
//! the last hop, and the next hop's request for a hop a redirect ended.

use std::collections::HashMap;

use rea_plugin_api::contracts::session::{
    OmittedEvent, RecordedSession, RequestEvent, ResponseEvent, SessionEvent,
};

/// Where a transaction's response is.
#[derive(Debug, Clone, Copy)]
pub enum HopResponse<'a> {
    /// A kept response event, at this index of the event list.
    Kept(usize, &'a ResponseEvent),
    /// A response event left out for its allocation (its status is kept).
    Omitted(&'a OmittedEvent),
}

/// One request hop and what answered it.
#[derive(Debug, Clone, Copy)]
pub struct Transaction<'a> {
    /// The request event's index in the event list.
    pub index: usize,
    /// The request event.
    pub request: &'a RequestEvent,
    /// Its response, when exactly one attributes to it.
    pub answer: Option<HopResponse<'a>>,
    /// Why it cannot be represented, when it cannot.
    pub unattributed: Option<Unattributed>,
    /// The browser's monotonic time (seconds) it ended at, when known.
    pub end: Option<f64>,
}

/// Why a transaction has no record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unattributed {
    /// Two request events carry its key.
    RepeatedRequest,
    /// Two responses carry its key.
    RepeatedResponse,
    /// No response carries its key (the request failed, was cancelled, or never finished).
    NoResponse,
}

/// The request hops in request order, and how many responses no request event attributes
/// (responses to requests sent before the browser was attached).
pub fn pair(session: &RecordedSession) -> (Vec<Transaction<'_>>, usize) {
    let events = &session.normalized_result.events.items;
    let mut requests: HashMap<(&str, u32), usize> = HashMap::new();
    let mut responses: HashMap<(&str, u32), Vec<HopResponse<'_>>> = HashMap::new();
    let mut ends: HashMap<&str, f64> = HashMap::new();
    let mut last_hop: HashMap<&str, u32> = HashMap::new();
    let mut hop_starts: HashMap<(&str, u32), f64> = HashMap::new();
    for (index, event) in events.iter().enumerate() {
        match event {
            SessionEvent::Request(request) => {
                let key = (request.request_id.as_str(), request.hop);
                *requests.entry(key).or_default() += 1;
                hop_starts.entry(key).or_insert(request.timestamp);
                let hop = last_hop.entry(key.0).or_default();
                *hop = (*hop).max(request.hop);
            }
            SessionEvent::Response(response) => responses
                .entry((response.request_id.as_str(), response.hop))
                .or_default()
                .push(HopResponse::Kept(index, response)),
            SessionEvent::Finished(end) => {
                ends.insert(end.request_id.as_str(), end.timestamp);
            }
            SessionEvent::Failed(failed) => {
                ends.insert(failed.request_id.as_str(), failed.timestamp);
            }
        }
    }
    for omitted in &session.normalized_result.events.omitted {
        if omitted.event == "response" && omitted.status.is_some() {
            responses
                .entry((omitted.request_id.as_str(), omitted.hop))
                .or_default()
                .push(HopResponse::Omitted(omitted));
        }
    }
    let unmatched = responses
        .keys()
        .filter(|key| !requests.contains_key(*key))
        .count();
    let transactions = events
        .iter()
        .enumerate()
        .filter_map(|(index, event)| match event {
            SessionEvent::Request(request) => Some((index, request)),
            _ => None,
        })
        .map(|(index, request)| {
            let key = (request.request_id.as_str(), request.hop);
            let answers = responses.get(&key).map(Vec::as_slice).unwrap_or_default();
            let unattributed = if requests.get(&key).copied().unwrap_or_default() > 1 {
                Some(Unattributed::RepeatedRequest)
            } else if answers.len() > 1 {
                Some(Unattributed::RepeatedResponse)
            } else if answers.is_empty() {
                Some(Unattributed::NoResponse)
            } else {
                None
            };
            let end = if last_hop.get(key.0) == Some(&request.hop) {
                ends.get(key.0).copied()
            } else {
                hop_starts.get(&(key.0, request.hop + 1)).copied()
            };
            Transaction {
                index,
                request,
                answer: answers.first().copied(),
                unattributed,
                end,
            }
        })
        .collect();
    (transactions, unmatched)
}
