//! The network collector: the page's DevTools network events in, the session's events out.
//!
//! One task owns the collector and takes every event in turn (forwarded from one DevTools
//! listener per event kind), so its decisions do not race. A request hop becomes a `request`
//! event, its answer a `response` event (a redirect's answer comes with the next hop's request),
//! and the end of a request a `finished` or `failed` event. Each kind of event reaches the
//! collector through its own listener, so events of one request may arrive out of order: nothing
//! depends on that order (a final response is attributed to the request's last hop once every
//! event is in, and its body is asked for once both it and the end of loading have arrived).
//! Bodies are asked for as soon as they
//! exist (a request's post data when it is sent, a response's body when it finished loading) and
//! decided when they arrive: kept within the budgets ([`crate::budget`]), redacted, or left out
//! with the whole content event. Events are put in the browser's monotonic order at the end.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent,
    EventRequestWillBeSentExtraInfo, EventResponseReceived, EventResponseReceivedExtraInfo,
    GetRequestPostDataParams, GetResponseBodyParams, Headers, RequestId, Response,
};
use futures::StreamExt;
use rea_plugin_api::contracts::capture::{base64, is_authentication_header};
use rea_plugin_api::contracts::session::{
    Content, EndEvent, FailedEvent, NetworkSelection, OmittedEvent, RequestEvent, ResponseEvent,
    SessionEvent, SessionHeader,
};
use tokio::sync::mpsc;

use crate::budget::{Budget, RawBody};
use crate::redact::Redactor;

/// A DevTools event (or a body that arrived), as the collector takes it.
#[derive(Debug)]
enum Raw {
    Request(Box<EventRequestWillBeSent>, f64),
    Response(Box<EventResponseReceived>),
    RequestExtra(Box<EventRequestWillBeSentExtraInfo>),
    ResponseExtra(Box<EventResponseReceivedExtraInfo>),
    Finished(Box<EventLoadingFinished>),
    Failed(Box<EventLoadingFailed>),
    Body(BodyArrival),
    /// A DevTools message the client could not type, as text.
    Untyped(String),
    Finish,
}

/// A body that arrived (or could not be had).
#[derive(Debug)]
struct BodyArrival {
    slot: usize,
    body: Result<RawBody, String>,
}

/// What the driver sees of the network: requests in flight and the last activity, and the step
/// running now (requests sent meanwhile are tagged with it).
#[derive(Debug)]
pub struct Activity {
    /// Request ids sent and not ended.
    pub in_flight: usize,
    /// When the last event arrived.
    pub last: Instant,
    /// The step running now.
    pub step: Option<String>,
}

/// The collector's handle: the shared activity, and how to stop it.
#[derive(Debug)]
pub struct CollectorHandle {
    /// Shared with the collector task.
    pub activity: Arc<Mutex<Activity>>,
    sender: mpsc::UnboundedSender<Raw>,
    task: tokio::task::JoinHandle<Collected>,
    forwarders: Vec<tokio::task::JoinHandle<()>>,
}

/// What the collector gathered.
#[derive(Debug)]
pub struct Collected {
    /// The kept events, in the browser's monotonic order.
    pub events: Vec<SessionEvent>,
    /// Content events left out.
    pub omitted: Vec<OmittedEvent>,
    /// What the kept content events were charged.
    pub charged_bytes: u64,
}

/// Starts collecting the page's network events (listeners are in place when this returns).
pub async fn start(
    page: &Page,
    selection: NetworkSelection,
    budget: Budget,
    redactor: Arc<Redactor>,
    untyped: mpsc::UnboundedReceiver<String>,
) -> Result<CollectorHandle, chromiumoxide::error::CdpError> {
    let (sender, receiver) = mpsc::unbounded_channel();
    let forwarders = forward_events(page, &sender, untyped).await?;
    let activity = Arc::new(Mutex::new(Activity {
        in_flight: 0,
        last: Instant::now(),
        step: None,
    }));
    let collector = Collector::new(
        page.clone(),
        selection,
        budget,
        redactor,
        Arc::clone(&activity),
        sender.clone(),
    );
    let task = tokio::spawn(collector.run(receiver));
    Ok(CollectorHandle {
        activity,
        sender,
        task,
        forwarders,
    })
}

/// Forwards the page's network events and the untyped CDP messages into `sender`, one task
/// per event kind (listeners are in place when this returns).
async fn forward_events(
    page: &Page,
    sender: &mpsc::UnboundedSender<Raw>,
    mut untyped: mpsc::UnboundedReceiver<String>,
) -> Result<Vec<tokio::task::JoinHandle<()>>, chromiumoxide::error::CdpError> {
    let mut forwarders = Vec::new();
    {
        let sender = sender.clone();
        forwarders.push(tokio::spawn(async move {
            while let Some(text) = untyped.recv().await {
                if sender.send(Raw::Untyped(text)).is_err() {
                    break;
                }
            }
        }));
    }
    macro_rules! forward {
        ($event:ty, $wrap:expr) => {{
            let mut stream = page.event_listener::<$event>().await?;
            let sender = sender.clone();
            forwarders.push(tokio::spawn(async move {
                while let Some(event) = stream.next().await {
                    let wrap: fn(std::sync::Arc<$event>) -> Raw = $wrap;
                    if sender.send(wrap(event)).is_err() {
                        break;
                    }
                }
            }));
        }};
    }
    forward!(EventRequestWillBeSent, |event| Raw::Request(
        Box::new((*event).clone()),
        now()
    ));
    forward!(EventResponseReceived, |event| Raw::Response(Box::new(
        (*event).clone()
    )));
    forward!(EventRequestWillBeSentExtraInfo, |event| Raw::RequestExtra(
        Box::new((*event).clone())
    ));
    forward!(EventResponseReceivedExtraInfo, |event| Raw::ResponseExtra(
        Box::new((*event).clone())
    ));
    forward!(EventLoadingFinished, |event| Raw::Finished(Box::new(
        (*event).clone()
    )));
    forward!(EventLoadingFailed, |event| Raw::Failed(Box::new(
        (*event).clone()
    )));
    Ok(forwarders)
}

impl Collector {
    /// A collector with nothing gathered yet.
    fn new(
        page: Page,
        selection: NetworkSelection,
        budget: Budget,
        redactor: Arc<Redactor>,
        activity: Arc<Mutex<Activity>>,
        sender: mpsc::UnboundedSender<Raw>,
    ) -> Self {
        Self {
            page,
            selection,
            budget,
            redactor,
            activity,
            sender,
            events: Vec::new(),
            hops: HashMap::new(),
            finals: HashMap::new(),
            finished: HashSet::new(),
            ended: HashSet::new(),
            asked: HashSet::new(),
            extra_request: HashMap::new(),
            extra_response: HashMap::new(),
            omitted: Vec::new(),
            in_flight: HashSet::new(),
            fetching: 0,
        }
    }
}

impl CollectorHandle {
    /// Stops listening, waits (within `grace`) for bodies still being fetched, and returns the
    /// events.
    pub async fn finish(self, grace: Duration) -> Collected {
        for forwarder in &self.forwarders {
            forwarder.abort();
        }
        let _ = self.sender.send(Raw::Finish);
        match tokio::time::timeout(grace, self.task).await {
            Ok(Ok(collected)) => collected,
            _ => Collected {
                events: Vec::new(),
                omitted: Vec::new(),
                charged_bytes: 0,
            },
        }
    }
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs_f64())
        .unwrap_or_default()
}

/// Which body of an event a slot waits for.
#[derive(Debug, Clone, Copy)]
enum Part {
    Request,
    Response,
}

struct Collector {
    page: Page,
    selection: NetworkSelection,
    budget: Budget,
    redactor: Arc<Redactor>,
    activity: Arc<Mutex<Activity>>,
    sender: mpsc::UnboundedSender<Raw>,
    /// Events in arrival order; `None` once left out.
    events: Vec<Option<SessionEvent>>,
    /// The current hop of each request id.
    hops: HashMap<String, u32>,
    /// The final (not redirected) response event of each request id.
    finals: HashMap<String, usize>,
    /// Request ids whose loading finished.
    finished: HashSet<String>,
    /// Request ids that ended (finished or failed).
    ended: HashSet<String>,
    /// Response slots whose body was asked for.
    asked: HashSet<usize>,
    extra_request: HashMap<String, Vec<Headers>>,
    extra_response: HashMap<String, Vec<Headers>>,
    omitted: Vec<OmittedEvent>,
    in_flight: HashSet<String>,
    /// Body requests not answered yet.
    fetching: usize,
}

impl Collector {
    async fn run(mut self, mut receiver: mpsc::UnboundedReceiver<Raw>) -> Collected {
        let mut finishing = false;
        while let Some(raw) = receiver.recv().await {
            match raw {
                Raw::Finish => finishing = true,
                Raw::Body(arrival) => {
                    self.fetching -= 1;
                    self.body_arrived(arrival);
                }
                other => self.take(other),
            }
            self.touch();
            if finishing && self.fetching == 0 {
                break;
            }
        }
        self.assemble()
    }

    fn touch(&self) {
        if let Ok(mut activity) = self.activity.lock() {
            activity.in_flight = self.in_flight.len();
            activity.last = Instant::now();
        }
    }

    fn step(&self) -> Option<String> {
        self.activity
            .lock()
            .ok()
            .and_then(|activity| activity.step.clone())
    }

    fn take(&mut self, raw: Raw) {
        match raw {
            Raw::Request(event, observed) => self.request(*event, observed),
            Raw::Response(event) => {
                let id = event.request_id.inner().clone();
                // The hop is set when the events are assembled: the last one of the request.
                let slot = self.response(&id, 0, &event.response, *event.timestamp.inner(), false);
                self.finals.insert(id.clone(), slot);
                if self.finished.contains(&id) {
                    self.fetch_final(&id, event.request_id.clone());
                }
            }
            Raw::RequestExtra(event) => self
                .extra_request
                .entry(event.request_id.inner().clone())
                .or_default()
                .push(event.headers.clone()),
            Raw::ResponseExtra(event) => self
                .extra_response
                .entry(event.request_id.inner().clone())
                .or_default()
                .push(event.headers.clone()),
            Raw::Finished(event) => {
                let id = event.request_id.inner().clone();
                self.ended(&id);
                self.finished.insert(id.clone());
                self.fetch_final(&id, event.request_id.clone());
                self.events.push(Some(SessionEvent::Finished(EndEvent {
                    request_id: id,
                    timestamp: *event.timestamp.inner(),
                })));
            }
            Raw::Failed(event) => {
                let id = event.request_id.inner().clone();
                self.ended(&id);
                self.events.push(Some(SessionEvent::Failed(FailedEvent {
                    canceled: event.canceled.unwrap_or(false),
                    error_text: self.redactor.text(&event.error_text),
                    request_id: id,
                    timestamp: *event.timestamp.inner(),
                })));
            }
            Raw::Untyped(text) => self.untyped(&text),
            Raw::Body(_) | Raw::Finish => {}
        }
    }

    /// The extra-info events read leniently from their text: only their request id and
    /// headers are used.
    fn untyped(&mut self, text: &str) {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(text) else {
            return;
        };
        let extra = match message.get("method").and_then(serde_json::Value::as_str) {
            Some("Network.requestWillBeSentExtraInfo") => &mut self.extra_request,
            Some("Network.responseReceivedExtraInfo") => &mut self.extra_response,
            _ => return,
        };
        let params = &message["params"];
        let (Some(id), Some(headers)) = (
            params.get("requestId").and_then(serde_json::Value::as_str),
            params.get("headers"),
        ) else {
            return;
        };
        extra
            .entry(id.to_owned())
            .or_default()
            .push(Headers::new(headers.clone()));
    }

    fn ended(&mut self, id: &str) {
        self.in_flight.remove(id);
        self.ended.insert(id.to_owned());
    }

    /// Asks for a request's final response body once both the response and the end of loading
    /// arrived.
    fn fetch_final(&mut self, id: &str, request_id: RequestId) {
        if let Some(&slot) = self.finals.get(id)
            && self.selection.response_body
            && is_pending(&self.events[slot])
            && !self.asked.contains(&slot)
        {
            self.asked.insert(slot);
            self.fetch(slot, request_id, Part::Response);
        }
    }

    fn request(&mut self, event: EventRequestWillBeSent, observed: f64) {
        let id = event.request_id.inner().clone();
        let timestamp = *event.timestamp.inner();
        let hop = match self.hops.get(&id) {
            Some(&previous) => {
                if let Some(redirect) = &event.redirect_response {
                    self.response(&id, previous, redirect, timestamp, true);
                }
                previous + 1
            }
            None => 0,
        };
        self.hops.insert(id.clone(), hop);
        if !self.ended.contains(&id) {
            self.in_flight.insert(id.clone());
        }
        let url = match &event.request.url_fragment {
            Some(fragment) => format!("{}{fragment}", event.request.url),
            None => event.request.url.clone(),
        };
        let (headers, header_bytes) = self.headers(&event.request.headers);
        let request = RequestEvent {
            body: pending(),
            headers,
            hop,
            method: event.request.method.clone(),
            observed,
            request_id: id.clone(),
            resource_type: event.r#type.as_ref().map(|kind| kind.as_ref().to_owned()),
            step_id: self.step(),
            timestamp,
            url: self.redactor.text(&url),
            wall_time: Some(*event.wall_time.inner()),
        };
        let head = (url.len() + header_bytes) as u64;
        let slot = self.events.len();
        self.events.push(Some(SessionEvent::Request(request)));
        let has_body = event.request.has_post_data.unwrap_or(false);
        if !has_body {
            self.decide(slot, Ok(RawBody::Absent), head);
        } else if !self.selection.request_body {
            self.decide_unavailable(slot, "not-selected", head);
        } else if let Some(entries) = &event.request.post_data_entries {
            let mut bytes = Vec::new();
            for entry in entries {
                if let Some(binary) = &entry.bytes {
                    bytes.extend(base64::decode(binary.as_ref()).unwrap_or_default());
                }
            }
            self.decide(slot, Ok(raw_bytes(bytes)), head);
        } else {
            self.fetch(slot, event.request_id.clone(), Part::Request);
        }
    }

    fn response(
        &mut self,
        id: &str,
        hop: u32,
        response: &Response,
        timestamp: f64,
        redirect: bool,
    ) -> usize {
        let (headers, header_bytes) = self.headers(&response.headers);
        let event = ResponseEvent {
            body: pending(),
            headers,
            hop,
            media_type: Some(response.mime_type.clone()).filter(|media| !media.is_empty()),
            protocol: response.protocol.clone(),
            request_id: id.to_owned(),
            status: u16::try_from(response.status).unwrap_or_default(),
            status_text: Some(self.redactor.text(&response.status_text)),
            timestamp,
        };
        let slot = self.events.len();
        self.events.push(Some(SessionEvent::Response(event)));
        let head = header_bytes as u64;
        if !self.selection.response_body {
            self.decide_unavailable(slot, "not-selected", head);
        } else if redirect {
            self.decide_unavailable(slot, "not-exposed", head);
        }
        // Otherwise the body is asked for once loading finished.
        slot
    }

    /// Header names, and values when selected (authentication values never), redacted; and
    /// the bytes they take.
    fn headers(&self, headers: &Headers) -> (Vec<SessionHeader>, usize) {
        let mut out = Vec::new();
        let mut bytes = 0;
        if let Some(members) = headers.inner().as_object() {
            for (name, value) in members {
                let value = value.as_str().unwrap_or_default();
                bytes += name.len() + value.len();
                out.push(self.header(name, value));
            }
        }
        (out, bytes)
    }

    fn header(&self, name: &str, value: &str) -> SessionHeader {
        let (value, redacted) = if is_authentication_header(name) {
            (None, Some("authentication".to_owned()))
        } else if !self.selection.header_values {
            (None, Some("not-selected".to_owned()))
        } else {
            (Some(self.redactor.text(value)), None)
        };
        SessionHeader {
            name: self.redactor.text(name),
            redacted,
            value,
        }
    }

    fn fetch(&mut self, slot: usize, id: RequestId, part: Part) {
        self.fetching += 1;
        let page = self.page.clone();
        let sender = self.sender.clone();
        tokio::spawn(async move {
            let body = match part {
                Part::Response => {
                    page.execute(GetResponseBodyParams::new(id))
                        .await
                        .map(|answer| {
                            let answer = answer.result;
                            if answer.base64_encoded {
                                raw_bytes(base64::decode(&answer.body).unwrap_or_default())
                            } else {
                                RawBody::Text(answer.body)
                            }
                        })
                }
                Part::Request => page
                    .execute(GetRequestPostDataParams::new(id))
                    .await
                    .map(|answer| RawBody::Text(answer.result.post_data)),
            };
            let body = body.map_err(|error| error.to_string());
            let _ = sender.send(Raw::Body(BodyArrival { slot, body }));
        });
    }

    fn body_arrived(&mut self, arrival: BodyArrival) {
        let head = self.head_bytes(arrival.slot);
        self.decide(arrival.slot, arrival.body, head);
    }

    fn head_bytes(&self, slot: usize) -> u64 {
        let headers = match &self.events[slot] {
            Some(SessionEvent::Request(request)) => &request.headers,
            Some(SessionEvent::Response(response)) => &response.headers,
            _ => return 0,
        };
        headers
            .iter()
            .map(|header| (header.name.len() + header.value.as_deref().map_or(0, str::len)) as u64)
            .sum()
    }

    fn decide_unavailable(&mut self, slot: usize, reason: &str, head: u64) {
        self.place(
            slot,
            Content::Unavailable {
                reason: reason.to_owned(),
            },
            0,
            head,
        );
    }

    /// Keeps, cuts or drops a body within the budgets, then admits its content event or leaves
    /// it out whole.
    fn decide(&mut self, slot: usize, body: Result<RawBody, String>, head: u64) {
        let (content, charge) = match body {
            Ok(raw) => self.budget.body(raw, &self.redactor),
            // The browser no longer holds it (or never exposed it).
            Err(_) => (
                Content::Unavailable {
                    reason: "not-exposed".to_owned(),
                },
                0,
            ),
        };
        self.place(slot, content, charge, head);
    }

    fn place(&mut self, slot: usize, content: Content, charge: u64, head: u64) {
        match self.budget.admit_event(charge, head) {
            Ok(_) => match &mut self.events[slot] {
                Some(SessionEvent::Request(request)) => request.body = content,
                Some(SessionEvent::Response(response)) => response.body = content,
                _ => {}
            },
            Err(reason) => {
                let Some(event) = self.events[slot].take() else {
                    return;
                };
                self.omitted.push(omission(&event, reason, charge, head));
            }
        }
    }

    fn assemble(mut self) -> Collected {
        // Bodies never asked for (the request had not finished) are unavailable.
        for slot in 0..self.events.len() {
            if is_pending(&self.events[slot]) {
                let head = self.head_bytes(slot);
                self.decide_unavailable(slot, "not-finished", head);
            }
        }
        // A final response answers the request's last hop.
        for (id, &slot) in &self.finals {
            let last = self.hops.get(id).copied().unwrap_or_default();
            if let Some(SessionEvent::Response(response)) = &mut self.events[slot] {
                response.hop = last;
            }
        }
        self.merge_extra_headers();
        let mut events: Vec<SessionEvent> = self.events.into_iter().flatten().collect();
        // Stable: a redirect's response stays before the next hop's request.
        events.sort_by(|a, b| timestamp(a).total_cmp(&timestamp(b)));
        Collected {
            events,
            omitted: self.omitted,
            charged_bytes: self.budget.charged(),
        }
    }

    /// Adds the headers only the extra-info events show (`Cookie`, `Set-Cookie`, …): the n-th
    /// extra-info event of a request id is its hop n's.
    fn merge_extra_headers(&mut self) {
        let mut events = std::mem::take(&mut self.events);
        for event in events.iter_mut().flatten() {
            let (headers, extra) = match event {
                SessionEvent::Request(request) => (
                    &mut request.headers,
                    self.extra_request
                        .get(&request.request_id)
                        .and_then(|list| list.get(request.hop as usize)),
                ),
                SessionEvent::Response(response) => (
                    &mut response.headers,
                    self.extra_response
                        .get(&response.request_id)
                        .and_then(|list| list.get(response.hop as usize)),
                ),
                _ => continue,
            };
            let Some(extra) = extra else { continue };
            let (more, _) = self.headers(extra);
            for header in more {
                if !headers
                    .iter()
                    .any(|kept| kept.name.eq_ignore_ascii_case(&header.name))
                {
                    headers.push(header);
                }
            }
        }
        self.events = events;
    }
}

/// The placeholder of a body not decided yet.
fn pending() -> Content {
    Content::Unavailable {
        reason: PENDING.to_owned(),
    }
}

const PENDING: &str = "pending";

fn is_pending(event: &Option<SessionEvent>) -> bool {
    let body = match event {
        Some(SessionEvent::Request(request)) => &request.body,
        Some(SessionEvent::Response(response)) => &response.body,
        _ => return false,
    };
    matches!(body, Content::Unavailable { reason } if reason == PENDING)
}

fn raw_bytes(bytes: Vec<u8>) -> RawBody {
    match String::from_utf8(bytes) {
        Ok(text) => RawBody::Text(text),
        Err(error) => RawBody::Bytes(error.into_bytes()),
    }
}

fn timestamp(event: &SessionEvent) -> f64 {
    match event {
        SessionEvent::Request(request) => request.timestamp,
        SessionEvent::Response(response) => response.timestamp,
        SessionEvent::Finished(end) => end.timestamp,
        SessionEvent::Failed(failed) => failed.timestamp,
    }
}

fn omission(event: &SessionEvent, reason: &str, charge: u64, head: u64) -> OmittedEvent {
    let (kind, id, hop, status, timestamp) = match event {
        SessionEvent::Request(request) => (
            "request",
            &request.request_id,
            request.hop,
            None,
            request.timestamp,
        ),
        SessionEvent::Response(response) => (
            "response",
            &response.request_id,
            response.hop,
            Some(response.status),
            response.timestamp,
        ),
        SessionEvent::Finished(end) => ("finished", &end.request_id, 0, None, end.timestamp),
        SessionEvent::Failed(failed) => ("failed", &failed.request_id, 0, None, failed.timestamp),
    };
    OmittedEvent {
        charged_bytes: charge.saturating_add(head.saturating_mul(crate::budget::TEXT_CHARGE)),
        event: kind.to_owned(),
        hop,
        reason: reason.to_owned(),
        request_id: id.clone(),
        status,
        timestamp,
    }
}
