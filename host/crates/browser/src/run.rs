//! One recording from start to end: reach the browser (launch or connect), open a page, collect
//! its network events while the steps run, and always end cleanly. Launch mode closes the browser,
//! ends its process group and deletes the profile; connect mode closes the page it opened and
//! disconnects. SIGINT and SIGTERM, the scenario deadline, a browser that goes away and a step
//! that fails all end the recording the same way.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::network::{EnableParams, SetCacheDisabledParams};
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::HandlerConfig;
use chromiumoxide::{Browser, Page};
use futures::StreamExt;
use rea_plugin_api::contracts::session::{
    Allocation, Content, EventLog, NetworkSelection, NormalizedResult, RecordedSession,
    SESSION_SCHEMA, SessionBrowser, SessionCapture, SessionEvent,
};
use tokio::signal::unix::{SignalKind, signal};

use crate::budget::Budget;
use crate::collect::{self, Collected};
use crate::error::BrowserError;
use crate::launch::LaunchedBrowser;
use crate::redact::Redactor;
use crate::scenario::{BrowserSpec, ValidatedScenario};
use crate::steps::Driver;

/// How long Chromium may take to exit after a DevTools close before its group is killed.
const CLOSE_GRACE: Duration = Duration::from_secs(3);
/// How long bodies still being fetched may take once the steps are done.
const BODY_GRACE: Duration = Duration::from_secs(10);

/// Records a validated scenario: the session, every secret replaced by its marker.
pub fn record(validated: &ValidatedScenario) -> Result<RecordedSession, BrowserError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| BrowserError::Protocol(format!("no async runtime: {error}")))?;
    let redactor = Arc::new(Mutex::new(Redactor::new(&validated.secrets)));
    let mut launched: Option<LaunchedBrowser> = None;
    let outcome = runtime.block_on(guarded(validated, &redactor, &mut launched));
    drop(runtime);
    let cleanup = match launched {
        Some(browser) => browser.shut_down(CLOSE_GRACE),
        None => Ok(()),
    };
    let redactor = redactor.lock().map(|r| r.clone()).unwrap_or_default();
    match (outcome, cleanup) {
        (Ok(session), Ok(())) => Ok(session),
        (Err(error), _) | (Ok(_), Err(error)) => Err(redacted(error, &redactor)),
    }
}

/// The recording raced against SIGINT, SIGTERM and the scenario deadline.
async fn guarded(
    validated: &ValidatedScenario,
    redactor: &Arc<Mutex<Redactor>>,
    launched: &mut Option<LaunchedBrowser>,
) -> Result<RecordedSession, BrowserError> {
    let signal_error = |error: std::io::Error| BrowserError::Protocol(error.to_string());
    let mut interrupt = signal(SignalKind::interrupt()).map_err(signal_error)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(signal_error)?;
    let limit = Duration::from_millis(validated.scenario.timeouts.scenario_ms);
    tokio::select! {
        outcome = tokio::time::timeout(limit, connected(validated, redactor, launched)) => {
            outcome.unwrap_or_else(|_| Err(BrowserError::Deadline(format!(
                "the scenario did not complete within its deadline of {} ms",
                limit.as_millis()
            ))))
        }
        _ = interrupt.recv() => Err(BrowserError::Cancelled { signal: "SIGINT" }),
        _ = terminate.recv() => Err(BrowserError::Cancelled { signal: "SIGTERM" }),
    }
}

/// Reaches the browser, records, and closes what this command opened.
async fn connected(
    validated: &ValidatedScenario,
    redactor: &Arc<Mutex<Redactor>>,
    launched: &mut Option<LaunchedBrowser>,
) -> Result<RecordedSession, BrowserError> {
    let scenario = &validated.scenario;
    let (mode, address) = match &scenario.browser {
        BrowserSpec::Launch { .. } => {
            let executable = validated
                .executable
                .as_deref()
                .ok_or_else(|| BrowserError::Launch("the executable was not checked".to_owned()))?;
            let hosts = hosts(validated);
            let timeout = Duration::from_millis(scenario.timeouts.launch_ms);
            let browser = launched.insert(LaunchedBrowser::spawn(executable, &hosts)?);
            ("launch", browser.devtools_url(timeout).await?)
        }
        BrowserSpec::Connect { port } => ("connect", format!("http://127.0.0.1:{port}")),
    };
    // Messages the DevTools client cannot type (events of a newer protocol revision than it
    // knows, such as the extra-info events that carry `Cookie` and `Set-Cookie`) are handed to the
    // collector as text instead of being dropped.
    let config = HandlerConfig {
        ignore_invalid_messages: false,
        ..HandlerConfig::default()
    };
    let (untyped, untyped_events) = tokio::sync::mpsc::unbounded_channel::<String>();
    let (mut browser, mut handler) =
        match Browser::connect_with_config(address.clone(), config).await {
            Ok(connection) => connection,
            Err(error) => return Err(unreachable(&address, launched, &error).await),
        };
    let handler_task = tokio::spawn(async move {
        while let Some(item) = handler.next().await {
            if let Err(CdpError::InvalidMessage(text, _)) = item {
                let _ = untyped.send(text);
            }
        }
    });
    // The watchdog covers opening the page too: a request to a browser that went away is never
    // answered.
    let outcome = tokio::select! {
        outcome = on_page(&browser, mode, validated, redactor, untyped_events) => outcome,
        gone = watchdog(&browser, launched) => Err(BrowserError::Exited(gone)),
    };
    if mode == "launch" {
        let _ = tokio::time::timeout(CLOSE_GRACE, browser.close()).await;
    }
    handler_task.abort();
    outcome
}

/// How long a launched browser whose DevTools connection failed may take to be seen exiting.
const EXIT_NOTICE: Duration = Duration::from_secs(2);

/// Why the DevTools connection failed: nothing listening (connect mode), the launched browser
/// exited (seen within [`EXIT_NOTICE`]), or its port did not answer.
async fn unreachable(
    address: &str,
    launched: &mut Option<LaunchedBrowser>,
    error: &CdpError,
) -> BrowserError {
    let Some(browser) = launched.as_mut() else {
        return BrowserError::Connect(format!(
            "nothing usable answered on the DevTools port {address} ({error})"
        ));
    };
    let deadline = tokio::time::Instant::now() + EXIT_NOTICE;
    loop {
        if let Some(status) = browser.exited() {
            return BrowserError::Exited(status);
        }
        if tokio::time::Instant::now() >= deadline {
            return BrowserError::Launch(format!("its DevTools port did not answer ({error})"));
        }
        tokio::time::sleep(WATCH_EVERY).await;
    }
}

/// Opens the recording's page, records on it, and in connect mode closes it again.
async fn on_page(
    browser: &Browser,
    mode: &str,
    validated: &ValidatedScenario,
    redactor: &Arc<Mutex<Redactor>>,
    untyped: tokio::sync::mpsc::UnboundedReceiver<String>,
) -> Result<RecordedSession, BrowserError> {
    let page = browser
        .new_page("about:blank")
        .await
        .map_err(|error| BrowserError::Protocol(format!("no page could be opened: {error}")))?;
    let outcome = session(browser, &page, mode, validated, redactor, untyped).await;
    if mode != "launch" {
        let _ = tokio::time::timeout(CLOSE_GRACE, page.close()).await;
    }
    outcome
}

/// How often the watchdog looks at the browser.
const WATCH_EVERY: Duration = Duration::from_millis(250);
/// How long the browser may take to answer the watchdog's heartbeat.
const HEARTBEAT_LIMIT: Duration = Duration::from_secs(10);

/// Ends (with what happened) when the browser goes away: a launched Chromium's process exits, or
/// the DevTools connection stops answering a heartbeat (the client's handler does not end when
/// the connection closes, so it cannot tell).
async fn watchdog(browser: &Browser, launched: &mut Option<LaunchedBrowser>) -> String {
    let mut ticks: u32 = 0;
    loop {
        tokio::time::sleep(WATCH_EVERY).await;
        if let Some(status) = launched.as_mut().and_then(LaunchedBrowser::exited) {
            return status;
        }
        ticks += 1;
        if ticks.is_multiple_of(8) {
            match tokio::time::timeout(HEARTBEAT_LIMIT, browser.version()).await {
                Ok(Ok(_)) => {}
                _ => return "the DevTools connection stopped answering".to_owned(),
            }
        }
    }
}

/// The hosts a launched browser resolves: the start URL's and the allowed origins'.
fn hosts(validated: &ValidatedScenario) -> Vec<String> {
    validated
        .origins
        .iter()
        .filter_map(|origin| url::Url::parse(origin).ok())
        .filter_map(|url| url.host_str().map(str::to_owned))
        .collect()
}

async fn session(
    browser: &Browser,
    page: &Page,
    mode: &str,
    validated: &ValidatedScenario,
    redactor: &Arc<Mutex<Redactor>>,
    untyped: tokio::sync::mpsc::UnboundedReceiver<String>,
) -> Result<RecordedSession, BrowserError> {
    let scenario = &validated.scenario;
    let protocol =
        |error: chromiumoxide::error::CdpError| BrowserError::Protocol(error.to_string());
    // Every request reaches the network (no cache), and bodies stay available to ask for.
    page.execute(SetCacheDisabledParams::new(true))
        .await
        .map_err(protocol)?;
    page.execute(
        EnableParams::builder()
            .max_total_buffer_size(256 * 1024 * 1024)
            .max_resource_buffer_size(64 * 1024 * 1024)
            .build(),
    )
    .await
    .map_err(protocol)?;
    let version = browser.version().await.map_err(protocol)?;
    let selection = NetworkSelection {
        header_values: scenario.capture.network.header_values,
        request_body: scenario.capture.network.request_body,
        response_body: scenario.capture.network.response_body,
    };
    let limits = scenario.capture.limits.resolved();
    let declared = redactor.lock().map(|r| r.clone()).unwrap_or_default();
    let budget = Budget::new(limits, &declared);
    let collector = collect::start(page, selection, budget, Arc::new(declared), untyped)
        .await
        .map_err(protocol)?;
    let step_timeout = Duration::from_millis(scenario.timeouts.step_ms);
    let mut driver = Driver::new(
        page.clone(),
        validated,
        Arc::clone(&collector.activity),
        step_timeout,
    );
    let steps = run_steps(&mut driver, validated, step_timeout).await;
    if let Ok(mut redactor) = redactor.lock() {
        for (name, value) in &driver.saved_secrets {
            redactor.add(name, value);
        }
    }
    steps?;
    driver.settle().await;
    let collected = collector.finish(BODY_GRACE).await;
    let redactor = redactor.lock().map(|r| r.clone()).unwrap_or_default();
    Ok(RecordedSession {
        browser: SessionBrowser {
            mode: mode.to_owned(),
            product: Some(version.product),
            protocol_version: Some(version.protocol_version),
        },
        capture: SessionCapture {
            events: scenario.capture.events.clone(),
            limits,
            network: selection,
        },
        normalized_result: normalized(collected, driver.outcomes, &redactor),
        schema: SESSION_SCHEMA.to_owned(),
        secrets: redactor.markers(),
        start_origin: validated.start_origin.clone(),
    })
}

async fn run_steps(
    driver: &mut Driver<'_>,
    validated: &ValidatedScenario,
    step_timeout: Duration,
) -> Result<(), BrowserError> {
    match tokio::time::timeout(step_timeout, driver.start()).await {
        Ok(Ok(())) => {}
        Ok(Err(message)) => {
            return Err(step_error("start_url", "goto", "/start_url/url", message));
        }
        Err(_) => {
            return Err(step_error(
                "start_url",
                "goto",
                "/start_url/url",
                format!(
                    "the page did not load within the step deadline of {} ms",
                    step_timeout.as_millis()
                ),
            ));
        }
    }
    for (index, action) in validated.scenario.actions.iter().enumerate() {
        driver.run(action).await.map_err(|message| {
            step_error(
                action.step_id(),
                action.name(),
                &format!("/actions/{index}"),
                message,
            )
        })?;
    }
    Ok(())
}

fn step_error(step_id: &str, action: &str, pointer: &str, message: String) -> BrowserError {
    BrowserError::Step {
        step_id: step_id.to_owned(),
        action: action.to_owned(),
        pointer: pointer.to_owned(),
        message,
    }
}

/// The observed result, with values saved as secrets replaced by their markers too (declared
/// secrets were replaced as each event arrived).
fn normalized(
    collected: Collected,
    steps: Vec<rea_plugin_api::contracts::session::StepOutcome>,
    redactor: &Redactor,
) -> NormalizedResult {
    let mut events = collected.events;
    for event in &mut events {
        redact_event(event, redactor);
    }
    NormalizedResult {
        allocation: Allocation {
            charged_bytes: collected.charged_bytes,
        },
        events: EventLog {
            items: events,
            omitted: collected.omitted,
        },
        steps,
    }
}

fn redact_event(event: &mut SessionEvent, redactor: &Redactor) {
    let (headers, body) = match event {
        SessionEvent::Request(request) => {
            request.url = redactor.text(&request.url);
            (&mut request.headers, &mut request.body)
        }
        SessionEvent::Response(response) => (&mut response.headers, &mut response.body),
        SessionEvent::Failed(failed) => {
            failed.error_text = redactor.text(&failed.error_text);
            return;
        }
        SessionEvent::Finished(_) => return,
    };
    for header in headers {
        if let Some(value) = &header.value {
            header.value = Some(redactor.text(value));
        }
    }
    match body {
        Content::Text { text } => *text = redactor.text(text),
        Content::Truncated {
            prefix: Some(prefix),
            ..
        } => *prefix = redactor.text(prefix),
        Content::Base64 { base64, .. } => {
            let bytes =
                rea_plugin_api::contracts::capture::base64::decode(base64).unwrap_or_default();
            if redactor.holds_secret(&bytes) {
                *body = Content::Redacted;
            }
        }
        _ => {}
    }
}

/// The error with every secret replaced by its marker.
fn redacted(error: BrowserError, redactor: &Redactor) -> BrowserError {
    match error {
        BrowserError::Launch(message) => BrowserError::Launch(redactor.text(&message)),
        BrowserError::Connect(message) => BrowserError::Connect(redactor.text(&message)),
        BrowserError::Exited(message) => BrowserError::Exited(redactor.text(&message)),
        BrowserError::Step {
            step_id,
            action,
            pointer,
            message,
        } => BrowserError::Step {
            step_id,
            action,
            pointer,
            message: redactor.text(&message),
        },
        BrowserError::Deadline(message) => BrowserError::Deadline(redactor.text(&message)),
        BrowserError::Cleanup(message) => BrowserError::Cleanup(redactor.text(&message)),
        BrowserError::Protocol(message) => BrowserError::Protocol(redactor.text(&message)),
        cancelled @ BrowserError::Cancelled { .. } => cancelled,
    }
}
