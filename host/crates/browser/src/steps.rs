//! Running a scenario's steps on the page: `goto`, `fill`, `press`, `click`, `wait`, `request`
//! and `save`, each within the step deadline, each followed (when it may start network
//! activity) by a wait until the network is quiet, so the requests it caused are recorded before
//! the next step.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::input::InsertTextParams;
use chromiumoxide::cdp::browser_protocol::network::GetCookiesParams;
use chromiumoxide::cdp::js_protocol::runtime::{CallArgument, CallFunctionOnParams};
use chromiumoxide::element::Element;
use rea_plugin_api::contracts::session::{SavedValue, StepOutcome, secret_marker};
use serde_json::{Value, json};
use url::Url;

use crate::collect::Activity;
use crate::scenario::{
    Action, Locator, Pair, SaveResponse, SaveSource, UrlSpec, ValidatedScenario, ValueSource,
};

/// How long the network must be quiet for a step to be over.
const QUIET: Duration = Duration::from_millis(300);
/// The longest wait for a quiet network after a step (a long poll never ends).
const SETTLE_LIMIT: Duration = Duration::from_secs(5);

/// A step's failure, before it is tied to the step.
type StepResult<T> = Result<T, String>;

/// Runs the steps; owns what they save.
pub(crate) struct Driver<'a> {
    pub(crate) page: Page,
    pub(crate) scenario: &'a ValidatedScenario,
    pub(crate) activity: Arc<Mutex<Activity>>,
    pub(crate) step_timeout: Duration,
    /// Values saved by earlier steps.
    saved: HashMap<String, String>,
    /// Saved values marked secret: `(name, value)`.
    pub(crate) saved_secrets: Vec<(String, String)>,
    /// One outcome per step run.
    pub(crate) outcomes: Vec<StepOutcome>,
}

impl<'a> Driver<'a> {
    pub(crate) fn new(
        page: Page,
        scenario: &'a ValidatedScenario,
        activity: Arc<Mutex<Activity>>,
        step_timeout: Duration,
    ) -> Self {
        Self {
            page,
            scenario,
            activity,
            step_timeout,
            saved: HashMap::new(),
            saved_secrets: Vec::new(),
            outcomes: Vec::new(),
        }
    }

    /// Opens the start URL (the first step of every scenario, before the written ones).
    pub(crate) async fn start(&mut self) -> StepResult<()> {
        self.set_step(None);
        let url = self.url(&self.scenario.scenario.start_url).await?;
        self.navigate(&url).await
    }

    /// Runs one step within the step deadline.
    pub(crate) async fn run(&mut self, action: &Action) -> StepResult<()> {
        self.set_step(Some(action.step_id().to_owned()));
        let limit = self.step_timeout;
        let outcome = match tokio::time::timeout(limit, self.step(action)).await {
            Ok(outcome) => outcome?,
            Err(_) => {
                return Err(format!(
                    "it did not complete within the step deadline of {} ms",
                    limit.as_millis()
                ));
            }
        };
        self.outcomes.push(outcome);
        Ok(())
    }

    fn set_step(&self, step: Option<String>) {
        if let Ok(mut activity) = self.activity.lock() {
            activity.step = step;
        }
    }

    async fn step(&mut self, action: &Action) -> StepResult<StepOutcome> {
        let mut outcome = StepOutcome {
            action: action.name().to_owned(),
            response_status: None,
            saved: None,
            step_id: action.step_id().to_owned(),
        };
        match action {
            Action::Goto { destination, .. } => {
                let url = self.url(destination).await?;
                self.navigate(&url).await?;
            }
            Action::Fill { locator, value, .. } => {
                let value = self.value(value).await?;
                let element = self.element(locator).await?;
                element
                    .call_js_fn(
                        "function() { this.focus(); this.value = ''; this.dispatchEvent(new Event('input', {bubbles: true})); }",
                        false,
                    )
                    .await
                    .map_err(|error| error.to_string())?;
                self.page
                    .execute(InsertTextParams::new(value))
                    .await
                    .map_err(|error| error.to_string())?;
            }
            Action::Press { locator, key, .. } => {
                let element = match locator {
                    Some(locator) => self.element(locator).await?,
                    None => self.focused().await?,
                };
                element.focus().await.map_err(|error| error.to_string())?;
                element
                    .press_key(key)
                    .await
                    .map_err(|error| error.to_string())?;
                self.settle().await;
            }
            Action::Click { locator, .. } => {
                let element = self.element(locator).await?;
                element.click().await.map_err(|error| error.to_string())?;
                self.settle().await;
            }
            Action::Wait {
                locator,
                milliseconds,
                ..
            } => {
                if let Some(locator) = locator {
                    self.element(locator).await?;
                }
                if let Some(milliseconds) = milliseconds {
                    tokio::time::sleep(Duration::from_millis(*milliseconds)).await;
                }
            }
            Action::Request { .. } => {
                let (status, saved) = self.request(action).await?;
                outcome.response_status = Some(status);
                outcome.saved = saved;
            }
            Action::Save {
                name, from, secret, ..
            } => {
                let value = self.saved_value(from).await?;
                outcome.saved = Some(self.save(name, value, *secret));
            }
        }
        Ok(outcome)
    }

    async fn navigate(&self, url: &str) -> StepResult<()> {
        self.page
            .goto(url)
            .await
            .map_err(|error| format!("the page did not load: {error}"))?;
        self.settle().await;
        Ok(())
    }

    /// Waits until no request is in flight and the network has been quiet a moment, counting
    /// from now too (a click's navigation starts a little after the click), or until the
    /// settling limit passes (a long poll never ends, and that is not a failure).
    pub(crate) async fn settle(&self) {
        let started = Instant::now();
        loop {
            let quiet = self.activity.lock().is_ok_and(|activity| {
                activity.in_flight == 0
                    && activity.last.elapsed() >= QUIET
                    && started.elapsed() >= QUIET
            });
            if quiet || started.elapsed() >= SETTLE_LIMIT {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The element a locator names, waiting for it to appear.
    async fn element(&self, locator: &Locator) -> StepResult<Element> {
        loop {
            match self.page.find_element(locator.selector.as_str()).await {
                Ok(element) => return Ok(element),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    async fn focused(&self) -> StepResult<Element> {
        match self.page.find_element(":focus").await {
            Ok(element) => Ok(element),
            Err(_) => self
                .page
                .find_element("body")
                .await
                .map_err(|error| error.to_string()),
        }
    }

    /// A URL with its query pairs appended (form-encoded).
    async fn url(&self, spec: &UrlSpec) -> StepResult<String> {
        let mut url = Url::parse(&spec.url).map_err(|error| error.to_string())?;
        if !spec.query.is_empty() {
            let pairs = self.pairs(&spec.query).await?;
            let mut query = url.query_pairs_mut();
            for (name, value) in &pairs {
                query.append_pair(name, value);
            }
        }
        Ok(url.to_string())
    }

    async fn pairs(&self, pairs: &[Pair]) -> StepResult<Vec<(String, String)>> {
        let mut out = Vec::with_capacity(pairs.len());
        for pair in pairs {
            out.push((pair.name.clone(), self.value(&pair.value).await?));
        }
        Ok(out)
    }

    async fn value(&self, source: &ValueSource) -> StepResult<String> {
        match source {
            ValueSource::Literal { value } => Ok(value.clone()),
            ValueSource::Secret { secret_id } => self
                .scenario
                .secrets
                .iter()
                .find(|(id, _)| id == secret_id)
                .map(|(_, value)| value.clone())
                .ok_or_else(|| format!("secret `{secret_id}` has no value")),
            ValueSource::Cookie { name } => self.cookie(name).await,
            ValueSource::Stored { name } => self
                .saved
                .get(name)
                .cloned()
                .ok_or_else(|| format!("no value named `{name}` was saved")),
        }
    }

    async fn cookie(&self, name: &str) -> StepResult<String> {
        let cookies = self
            .page
            .execute(
                GetCookiesParams::builder()
                    .urls(vec![format!("{}/", self.scenario.start_origin)])
                    .build(),
            )
            .await
            .map_err(|error| error.to_string())?
            .result
            .cookies;
        cookies
            .into_iter()
            .find(|cookie| cookie.name == name)
            .map(|cookie| cookie.value)
            .ok_or_else(|| format!("the browser has no cookie `{name}` for the start origin"))
    }

    /// Sends a request step through the page's own `fetch`; its status, and the value it saved.
    async fn request(&mut self, action: &Action) -> StepResult<(u16, Option<SavedValue>)> {
        let Action::Request {
            method,
            path,
            query,
            headers,
            json,
            body,
            expected_status,
            save_response,
            ..
        } = action
        else {
            return Err("not a request step".to_owned());
        };
        self.on_start_origin().await?;
        let mut url = Url::parse(&format!("{}{path}", self.scenario.start_origin))
            .map_err(|error| format!("the path does not make a URL: {error}"))?;
        if !query.is_empty() {
            let pairs = self.pairs(query).await?;
            let mut serializer = url.query_pairs_mut();
            for (name, value) in &pairs {
                serializer.append_pair(name, value);
            }
        }
        let mut header_map = serde_json::Map::new();
        for (name, value) in self.pairs(headers).await? {
            header_map.insert(name, Value::String(value));
        }
        let body = match (json, body) {
            (Some(json), _) => {
                if !header_map
                    .keys()
                    .any(|name| name.eq_ignore_ascii_case("content-type"))
                {
                    header_map.insert("Content-Type".to_owned(), json!("application/json"));
                }
                Some(serde_json::to_string(json).map_err(|error| error.to_string())?)
            }
            (None, Some(source)) => Some(self.value(source).await?),
            (None, None) => None,
        };
        let init = json!({
            "method": method,
            "headers": header_map,
            "body": body,
            "credentials": "same-origin",
            "cache": "no-store",
            "redirect": "follow",
        });
        // The fetch resolved once its response was read, so its events are in: no settling.
        let (status, text) = self.fetch(url.as_str(), init).await?;
        if let Some(expected) = expected_status
            && !expected.contains(&status)
        {
            return Err(format!(
                "the response status was {status}, not one of {expected:?}"
            ));
        }
        let saved = match save_response {
            Some(save) => Some(self.save_from_response(save, &text)?),
            None => None,
        };
        Ok((status, saved))
    }

    async fn fetch(&self, url: &str, init: Value) -> StepResult<(u16, String)> {
        let call = CallFunctionOnParams::builder()
            .function_declaration(
                "async (url, init) => { const response = await fetch(url, init); return {status: response.status, text: await response.text()}; }",
            )
            .argument(CallArgument::builder().value(json!(url)).build())
            .argument(CallArgument::builder().value(init).build())
            .await_promise(true)
            .return_by_value(true)
            .build()
            .map_err(|error| error.to_string())?;
        let answer: Value = self
            .page
            .evaluate_function(call)
            .await
            .map_err(|error| format!("the page's fetch failed: {error}"))?
            .into_value()
            .map_err(|error| error.to_string())?;
        let status = answer
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|status| u16::try_from(status).ok())
            .ok_or("the page's fetch gave no status")?;
        let text = answer
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok((status, text))
    }

    /// Request steps go to the start origin through its page: the page must be there.
    async fn on_start_origin(&self) -> StepResult<()> {
        let current = self
            .page
            .url()
            .await
            .map_err(|error| error.to_string())?
            .unwrap_or_default();
        let origin = Url::parse(&current)
            .map(|url| url.origin().ascii_serialization())
            .unwrap_or_default();
        if origin != self.scenario.start_origin {
            return Err(format!(
                "request steps are sent by a page of the start origin {}, and the page is on {origin}: goto the start origin first",
                self.scenario.start_origin
            ));
        }
        Ok(())
    }

    fn save_from_response(&mut self, save: &SaveResponse, text: &str) -> StepResult<SavedValue> {
        let document: Value = serde_json::from_str(text)
            .map_err(|_| "the response is not JSON, so `save_response` found nothing".to_owned())?;
        let value = match document.pointer(&save.pointer) {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Number(number)) => number.to_string(),
            Some(_) => {
                return Err(format!(
                    "the response's {} is not a string or a number",
                    save.pointer
                ));
            }
            None => return Err(format!("the response has no {}", save.pointer)),
        };
        Ok(self.save(&save.name, value, save.secret))
    }

    async fn saved_value(&self, from: &SaveSource) -> StepResult<String> {
        match from {
            SaveSource::Cookie { name } => self.cookie(name).await,
            SaveSource::Element { locator, attribute } => {
                let element = self.element(locator).await?;
                let value = match attribute {
                    Some(attribute) => element.attribute(attribute.as_str()).await,
                    None => element.inner_text().await,
                };
                value
                    .map_err(|error| error.to_string())?
                    .ok_or_else(|| "the element has no such value".to_owned())
            }
            SaveSource::LocalStorage { key } => {
                let call = CallFunctionOnParams::builder()
                    .function_declaration("(key) => localStorage.getItem(key)")
                    .argument(CallArgument::builder().value(json!(key)).build())
                    .build()
                    .map_err(|error| error.to_string())?;
                let value: Option<String> = self
                    .page
                    .evaluate_function(call)
                    .await
                    .map_err(|error| error.to_string())?
                    .into_value()
                    .map_err(|error| error.to_string())?;
                value.ok_or_else(|| format!("localStorage has no item `{key}`"))
            }
        }
    }

    fn save(&mut self, name: &str, value: String, secret: bool) -> SavedValue {
        self.saved.insert(name.to_owned(), value.clone());
        let recorded = if secret {
            self.saved_secrets.push((name.to_owned(), value));
            secret_marker(name)
        } else {
            value
        };
        SavedValue {
            name: name.to_owned(),
            secret,
            value: recorded,
        }
    }
}
