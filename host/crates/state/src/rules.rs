//! The state rules a pipeline runs, in its order: the host side of the rule contract
//! ([`rea_plugin_api::contracts::rule`]), and the query grammars it runs (`[state]
//! query_grammars`, the host side of [`rea_plugin_api::contracts::query`]).
//!
//! A [`RuleSet`] holds one [`ConfiguredRule`] per `[[rules]]` step: the stage's name, the plugin
//! providing it, its options, and a handle that calls the stage's `learn` and `apply`. Built-in
//! rules and rules from plugin libraries are the same kind of step: both come from the registry
//! through [`RuleSet::from_pipeline`]. Tests may also build steps from plain-Rust rules
//! ([`RuleSet::from_rules`]), called through the same ABI stage object in this process.
//!
//! Every call into a pipeline's stage runs on a worker thread with a deadline ([`Deadlined`] on a
//! [`Lane`], `REA_PLUGIN_DEADLINE_SECONDS`): a stage that hangs costs one deadline per call, not
//! the process. The rule steps share one lane, so a served write's rule calls are started
//! together and reach the worker in one hand-off; each query grammar has a lane of its own. The
//! hand-off watches before it sleeps (see [`Lane`]): a thread woken from sleep costs tens of µs
//! on a virtual machine whose idle CPU halts, more than the call itself.
//!
//! The rules a state was derived with are part of its Evidence (`rule_stages`), so turning a rule
//! off, reordering rules or changing an option gives another state Evidence id.

use std::collections::BTreeMap;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use rea_evidence::Refusal;
use rea_manifest::TemplateRules;
pub use rea_pipeline::WithheldWrites;
use rea_plugin_api::abi_stable::std_types::{RResult, RStr, RString};
use rea_plugin_api::contracts::query::{
    QueryBodyRequest, QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome,
    QueryGrammarRequest, QueryRole, QueryTerm,
};
use rea_plugin_api::contracts::route::{ActionRoute, ActionRouteRequest};
use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, HeldIndexKind, HeldIndexes, LearnOutcome, LearnRequest, LearnScope,
};
use rea_plugin_api::export::rule_stage_object;
use rea_plugin_api::{HeldIndexBox, PluginError, RuleStageBox, StateRule};
use rea_registry::{QueryGrammarHandle, Registry, RouteFormHandle, RuleHandle};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The learn scope of a step that declares none: asked for every tool.
static EVERY_TOOL: LearnScope = LearnScope {
    effects: None,
    explains_only: false,
    schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
};

/// A rule stage the host can call: `learn` and `apply` over the contract's types. A failed call
/// is one sentence naming the stage.
pub trait RuleStep: Send + Sync + std::fmt::Debug {
    /// Learns from a tool's observations.
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, String>;
    /// Learns from a tool's observations given as the contract's JSON text (what crosses the
    /// ABI), so the host encodes a tool's calls once for all its stages
    /// ([`crate::writes`]' learn pass).
    fn learn_text(&self, request: String) -> Result<LearnOutcome, String> {
        let request: LearnRequest =
            serde_json::from_str(&request).map_err(|error| error.to_string())?;
        self.learn(&request)
    }
    /// Applies a learned rule to a served call.
    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, String>;
    /// The held-index kinds the stage's `apply` asks about.
    fn held_indexes(&self) -> &[HeldIndexKind];
    /// When the stage's `learn` can explain anything: the learn pass asks it only then (every
    /// tool unless the stage declared otherwise).
    fn learn_scope(&self) -> &LearnScope {
        &EVERY_TOOL
    }
    /// Applies a learned rule to a served call, with the answers about the written collection
    /// the stage asks for.
    fn apply_held(
        &self,
        request: &ApplyRequest,
        held: HeldIndexBox,
    ) -> Result<ApplyOutcome, String>;

    /// Starts applying a learned rule to a served call (with the held-index answers, when the
    /// stage asks for them); the answer comes from [`Pending::wait`]. Calls started one after
    /// another on stages sharing a [`Lane`] reach its worker together.
    fn start_apply(
        &self,
        request: ApplyRequest,
        held: Option<HeldIndexBox>,
    ) -> Pending<ApplyOutcome> {
        Pending::ready(match held {
            Some(held) => self.apply_held(&request, held),
            None => self.apply(&request),
        })
    }
}

impl RuleStep for RuleHandle {
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, String> {
        RuleHandle::learn(self, request).map_err(|error| error.to_string())
    }

    fn learn_text(&self, request: String) -> Result<LearnOutcome, String> {
        RuleHandle::learn_text(self, &request).map_err(|error| error.to_string())
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, String> {
        RuleHandle::apply(self, request).map_err(|error| error.to_string())
    }

    fn held_indexes(&self) -> &[HeldIndexKind] {
        RuleHandle::held_indexes(self)
    }

    fn learn_scope(&self) -> &LearnScope {
        RuleHandle::learn_scope(self)
    }

    fn apply_held(
        &self,
        request: &ApplyRequest,
        held: HeldIndexBox,
    ) -> Result<ApplyOutcome, String> {
        RuleHandle::apply_held(self, request, held).map_err(|error| error.to_string())
    }
}

/// How long one call into a rule stage may take before the host stops waiting
/// (`REA_PLUGIN_DEADLINE_SECONDS`, 10 by default).
pub fn plugin_deadline() -> Duration {
    std::env::var("REA_PLUGIN_DEADLINE_SECONDS")
        .ok()
        .and_then(|value| value.trim().parse::<u64>().ok())
        .filter(|seconds| *seconds > 0)
        .map_or(DEFAULT_PLUGIN_DEADLINE, Duration::from_secs)
}

/// The default per-call deadline of a rule stage.
pub const DEFAULT_PLUGIN_DEADLINE: Duration = Duration::from_secs(10);

/// How long a lane's worker, having run a call, watches for the next one before it sleeps.
pub const WORKER_WATCH: Duration = Duration::from_micros(300);

/// How long a caller watches for a started call's answer before it sleeps until the deadline.
pub const CALLER_WATCH: Duration = Duration::from_micros(300);

/// Polls `look` until it finds something or `window` has passed, yielding the CPU between looks.
fn watch<T>(window: Duration, mut look: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    loop {
        if let Some(found) = look() {
            return Some(found);
        }
        if started.elapsed() >= window {
            return None;
        }
        std::thread::yield_now();
    }
}

/// A worker's next job, watched for before it sleeps; `None` once the lane dropped its queue.
fn next_job(jobs: &mpsc::Receiver<Job>) -> Option<Job> {
    let watched = watch(WORKER_WATCH, || match jobs.try_recv() {
        Ok(job) => Some(Some(job)),
        Err(mpsc::TryRecvError::Disconnected) => Some(None),
        Err(mpsc::TryRecvError::Empty) => None,
    });
    match watched {
        Some(next) => next,
        None => jobs.recv().ok(),
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// One worker thread that runs stage calls in the order they were started, each with a deadline:
/// a call that does not answer in time is an error naming the deadline, and the worker (stuck in
/// the plugin, which cannot be stopped) is abandoned; the next call starts another. Stages that
/// share a lane (every rule step of a pipeline) run the calls of one served write after one
/// hand-off: the calls are all started before the first answer is waited for.
///
/// Neither side sleeps at once: the worker, having run a call, watches its queue for
/// [`WORKER_WATCH`] before it sleeps (the next write's calls usually come sooner), and a caller
/// watches for its answer for [`CALLER_WATCH`] before it sleeps until the deadline. Watching
/// yields the CPU at every look, so a loaded machine runs its other threads meanwhile; what it
/// spares is the wake-up of a sleeping thread, which on a VM with an idle (halted) CPU costs
/// ~45 µs each way (the figures: the writes bench, `rea-backends`).
#[derive(Debug)]
pub struct Lane {
    deadline: Duration,
    /// The running worker: its generation (counted from 1) and its queue.
    worker: std::sync::Mutex<(u64, Option<mpsc::Sender<Job>>)>,
}

impl Lane {
    /// A lane whose calls have `deadline` each; its worker starts with the first call.
    pub fn new(deadline: Duration) -> Self {
        Self {
            deadline,
            worker: std::sync::Mutex::new((0, None)),
        }
    }

    /// Queues a job on the running worker (starting one when none runs): the worker's generation.
    fn submit(&self, job: Job) -> Result<u64, String> {
        let mut worker = self
            .worker
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let sender = match worker.1.as_ref() {
            Some(sender) => sender.clone(),
            None => {
                let (sender, jobs) = mpsc::channel::<Job>();
                std::thread::Builder::new()
                    .name("rea-rule-stage".to_owned())
                    .spawn(move || {
                        let mut next = jobs.recv().ok();
                        while let Some(job) = next {
                            job();
                            next = next_job(&jobs);
                        }
                    })
                    .map_err(|error| format!("the stage's worker could not start: {error}"))?;
                *worker = (worker.0 + 1, Some(sender.clone()));
                sender
            }
        };
        sender
            .send(job)
            .map_err(|_| "the stage's worker ended".to_owned())?;
        Ok(worker.0)
    }

    /// Abandons the worker of `generation` (stuck in a call), unless another replaced it.
    fn abandon(&self, generation: u64) {
        let mut worker = self
            .worker
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if worker.0 == generation {
            worker.1 = None;
        }
    }

    /// Starts `work` on the lane's worker; `stage` names the stage in a missed deadline.
    fn start<T: Send + 'static>(
        self: &Arc<Self>,
        stage: String,
        work: impl FnOnce() -> Result<T, String> + Send + 'static,
    ) -> Pending<T> {
        let (answer, answered) = mpsc::channel();
        match self.submit(Box::new(move || {
            let _ = answer.send(work());
        })) {
            Ok(generation) => Pending(Waiting::On {
                lane: Arc::clone(self),
                generation,
                answered,
                stage,
            }),
            Err(error) => Pending::ready(Err(error)),
        }
    }
}

/// A started stage call's answer: [`Pending::wait`] gives it, waiting at most the lane's deadline
/// from when it is asked.
#[derive(Debug)]
pub struct Pending<T>(Waiting<T>);

#[derive(Debug)]
enum Waiting<T> {
    Ready(Result<T, String>),
    On {
        lane: Arc<Lane>,
        generation: u64,
        answered: mpsc::Receiver<Result<T, String>>,
        stage: String,
    },
}

impl<T> Pending<T> {
    /// An answer already there (a stage called on the caller's thread).
    pub fn ready(result: Result<T, String>) -> Self {
        Self(Waiting::Ready(result))
    }

    /// The answer; a call that misses the deadline abandons the lane's worker.
    pub fn wait(self) -> Result<T, String> {
        let (lane, generation, answered, stage) = match self.0 {
            Waiting::Ready(result) => return result,
            Waiting::On {
                lane,
                generation,
                answered,
                stage,
            } => (lane, generation, answered, stage),
        };
        let asked = Instant::now();
        let watched = watch(CALLER_WATCH, || match answered.try_recv() {
            Ok(result) => Some(Ok(result)),
            Err(mpsc::TryRecvError::Disconnected) => {
                Some(Err(mpsc::RecvTimeoutError::Disconnected))
            }
            Err(mpsc::TryRecvError::Empty) => None,
        });
        let answer = watched.unwrap_or_else(|| {
            answered.recv_timeout(lane.deadline.saturating_sub(asked.elapsed()))
        });
        match answer {
            Ok(result) => result,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                lane.abandon(generation);
                Err(format!(
                    "{stage} did not answer within {} s (REA_PLUGIN_DEADLINE_SECONDS); the call was abandoned",
                    lane.deadline.as_secs()
                ))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err(format!("{stage} ended without an answer"))
            }
        }
    }
}

/// A stage (a rule, a query grammar) called on a [`Lane`]'s worker, with its per-call deadline.
#[derive(Debug)]
pub struct Deadlined<H = RuleHandle> {
    handle: Arc<H>,
    lane: Arc<Lane>,
}

impl<H: std::fmt::Debug + Send + Sync + 'static> Deadlined<H> {
    /// Wraps a stage handle, on a lane of its own.
    pub fn new(handle: H, deadline: Duration) -> Self {
        Self::on(handle, Arc::new(Lane::new(deadline)))
    }

    /// Wraps a stage handle, on a lane other stages may share.
    pub fn on(handle: H, lane: Arc<Lane>) -> Self {
        Self {
            handle: Arc::new(handle),
            lane,
        }
    }

    fn start<T: Send + 'static>(
        &self,
        work: impl FnOnce(&H) -> Result<T, String> + Send + 'static,
    ) -> Pending<T> {
        let handle = Arc::clone(&self.handle);
        self.lane
            .start(format!("{:?}", self.handle), move || work(&handle))
    }

    fn call<T: Send + 'static>(
        &self,
        work: impl FnOnce(&H) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        self.start(work).wait()
    }
}

impl RuleStep for Deadlined<RuleHandle> {
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, String> {
        let request = request.clone();
        self.call(move |handle| RuleStep::learn(handle, &request))
    }

    fn learn_text(&self, request: String) -> Result<LearnOutcome, String> {
        self.call(move |handle| RuleStep::learn_text(handle, request))
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, String> {
        let request = request.clone();
        self.call(move |handle| RuleStep::apply(handle, &request))
    }

    fn held_indexes(&self) -> &[HeldIndexKind] {
        self.handle.held_indexes()
    }

    fn learn_scope(&self) -> &LearnScope {
        self.handle.learn_scope()
    }

    fn apply_held(
        &self,
        request: &ApplyRequest,
        held: HeldIndexBox,
    ) -> Result<ApplyOutcome, String> {
        self.start_apply(request.clone(), Some(held)).wait()
    }

    fn start_apply(
        &self,
        request: ApplyRequest,
        held: Option<HeldIndexBox>,
    ) -> Pending<ApplyOutcome> {
        // The stage takes the index and drops it before the worker answers, so a write that
        // follows never finds it shared.
        self.start(move |handle| match held {
            Some(held) => RuleStep::apply_held(handle, &request, held),
            None => RuleStep::apply(handle, &request),
        })
    }
}

/// A plain-Rust rule called in this process through its ABI stage object (tests): the same JSON
/// text, option and rule reading and panic guard as a loaded plugin's.
struct Direct(RuleStageBox, Vec<HeldIndexKind>, LearnScope);

impl std::fmt::Debug for Direct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Direct")
    }
}

impl Direct {
    fn call<T: serde::de::DeserializeOwned>(
        answer: RResult<RString, PluginError>,
    ) -> Result<T, String> {
        let text = answer.into_result().map_err(|error| error.to_string())?;
        serde_json::from_str(text.as_str()).map_err(|error| error.to_string())
    }
}

impl RuleStep for Direct {
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, String> {
        let text = serde_json::to_string(request).map_err(|error| error.to_string())?;
        self.learn_text(text)
    }

    fn learn_text(&self, request: String) -> Result<LearnOutcome, String> {
        Self::call(self.0.learn(RStr::from_str(&request)))
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, String> {
        let text = serde_json::to_string(request).map_err(|error| error.to_string())?;
        Self::call(self.0.apply(RStr::from_str(&text)))
    }

    fn held_indexes(&self) -> &[HeldIndexKind] {
        &self.1
    }

    fn learn_scope(&self) -> &LearnScope {
        &self.2
    }

    fn apply_held(
        &self,
        request: &ApplyRequest,
        held: HeldIndexBox,
    ) -> Result<ApplyOutcome, String> {
        let text = serde_json::to_string(request).map_err(|error| error.to_string())?;
        Self::call(self.0.apply_held(RStr::from_str(&text), held))
    }
}

/// A query grammar stage the host can call. A failed call is one sentence naming the stage.
pub trait QueryGrammarStep: Send + Sync + std::fmt::Debug {
    /// Proposes the parameters each list of the request accepts.
    fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, String>;

    /// Splits a query parameter whose value is an expression of the grammar's language.
    fn split(&self, request: &QueryExpressionRequest) -> Result<QueryExpressionOutcome, String>;

    /// Splits the request body of a read whose query is its body.
    fn split_body(&self, request: &QueryBodyRequest) -> Result<QueryExpressionOutcome, String>;
}

impl QueryGrammarStep for Deadlined<QueryGrammarHandle> {
    fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, String> {
        let request = request.clone();
        self.call(move |handle| handle.apply(&request).map_err(|error| error.to_string()))
    }

    fn split(&self, request: &QueryExpressionRequest) -> Result<QueryExpressionOutcome, String> {
        let request = request.clone();
        self.call(move |handle| handle.split(&request).map_err(|error| error.to_string()))
    }

    fn split_body(&self, request: &QueryBodyRequest) -> Result<QueryExpressionOutcome, String> {
        let request = request.clone();
        self.call(move |handle| {
            handle
                .split_body(&request)
                .map_err(|error| error.to_string())
        })
    }
}

/// One query grammar of the pipeline's `[state] query_grammars`.
#[derive(Debug, Clone)]
pub struct ConfiguredQueryGrammar {
    /// The stage's name.
    pub stage: String,
    /// The plugin providing it.
    pub plugin: String,
    /// The stage.
    pub handle: Arc<dyn QueryGrammarStep>,
}

/// One step of the pipeline's `[[rules]]`.
#[derive(Debug, Clone)]
pub struct ConfiguredRule {
    /// The stage's name.
    pub stage: String,
    /// The plugin providing it.
    pub plugin: String,
    /// Its options, as the pipeline wrote them.
    pub options: BTreeMap<String, Value>,
    /// The stage.
    pub handle: Arc<dyn RuleStep>,
}

/// Reads a pipeline file (or the embedded default when `path` is `None`), loading its plugin
/// libraries into `registry`, and builds its rule steps. An invalid pipeline is one
/// `configuration_invalid` refusal listing every problem (`data.diagnostics`).
pub fn load_pipeline(
    path: Option<&std::path::Path>,
    registry: &mut Registry,
) -> Result<(rea_pipeline::Pipeline, RuleSet), Refusal> {
    let pipeline = rea_pipeline::load(path, registry).map_err(|errors| {
        let diagnostics: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
        Refusal::configuration_invalid(format!(
            "the pipeline is not valid: {}",
            diagnostics.join("; ")
        ))
        .with_data(serde_json::json!({ "diagnostics": diagnostics }))
    })?;
    let rules = RuleSet::from_pipeline(&pipeline, registry)?;
    Ok((pipeline, rules))
}

/// The route-form stages a resolved pipeline names (`[manifest] route_forms`), in order,
/// constructed from the registry that resolved it.
pub fn route_form_handles(
    pipeline: &rea_pipeline::Pipeline,
    registry: &Registry,
) -> Result<Vec<Arc<RouteFormHandle>>, Refusal> {
    pipeline
        .route_forms
        .iter()
        .map(|form| {
            registry
                .route_form_stage(&form.stage)
                .map(Arc::new)
                .map_err(|error| {
                    Refusal::configuration_invalid(format!(
                        "the route form `{}` cannot be constructed: {error}",
                        form.stage
                    ))
                })
        })
        .collect()
}

/// How a rule step is named in the state Evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleStageRef {
    /// The stage.
    pub stage: String,
    /// The plugin providing it.
    pub plugin: String,
    /// Its options.
    pub options: BTreeMap<String, Value>,
}

/// How a query grammar is named in the state Evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryGrammarRef {
    /// The stage.
    pub stage: String,
    /// The plugin providing it.
    pub plugin: String,
}

/// The plugin providing the built-in query grammars.
pub const BUILTIN_QUERY_GRAMMAR_PLUGIN: &str = "rea-query-grammar";

/// The query grammars a pipeline runs when it names none, as the state Evidence names them.
pub fn default_query_grammar_refs() -> Vec<QueryGrammarRef> {
    rea_pipeline::DEFAULT_QUERY_GRAMMARS
        .iter()
        .map(|stage| QueryGrammarRef {
            stage: (*stage).to_owned(),
            plugin: BUILTIN_QUERY_GRAMMAR_PLUGIN.to_owned(),
        })
        .collect()
}

/// Whether the query grammars are the default ones (the state Evidence leaves them out).
pub fn is_default_query_grammars(grammars: &[QueryGrammarRef]) -> bool {
    grammars == default_query_grammar_refs().as_slice()
}

/// What the query grammars propose for one list: parameters with their roles, and families of
/// parameter names (anchored pattern → what a name of it does).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListProposals {
    /// Parameter name → role.
    pub roles: BTreeMap<String, QueryRole>,
    /// Anchored pattern → description.
    pub families: BTreeMap<String, String>,
}

/// The ordered rule steps a state is derived and served with, and what the served state does
/// with the write tools whose plan is withheld (the pipeline's `[serve] withheld`; it changes
/// what is served, never what is derived).
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    steps: Vec<ConfiguredRule>,
    query_grammars: Vec<ConfiguredQueryGrammar>,
    /// The pipeline's route-form stages (`[manifest] route_forms`), which the manifest the state
    /// is derived from runs.
    route_forms: Vec<Arc<RouteFormHandle>>,
    /// Whether the manifest offers write tools on sibling collections (`[manifest]
    /// sibling_transfer`), which the state serves as inferred plans.
    sibling_transfer: bool,
    /// Every failed stage call so far, one sentence each (shared by clones).
    failures: Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>,
    withheld: WithheldWrites,
}

impl RuleSet {
    /// No rules: every write a rule would explain is withheld.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The rules of a resolved pipeline, constructed from the registry that resolved it.
    pub fn from_pipeline(
        pipeline: &rea_pipeline::Pipeline,
        registry: &Registry,
    ) -> Result<Self, Refusal> {
        let mut steps = Vec::with_capacity(pipeline.rules.len());
        let deadline = plugin_deadline();
        let lane = Arc::new(Lane::new(deadline));
        for rule in &pipeline.rules {
            let handle = registry.rule_stage(&rule.stage.stage).map_err(|error| {
                Refusal::configuration_invalid(format!(
                    "the rule stage `{}` cannot be constructed: {error}",
                    rule.stage.stage
                ))
            })?;
            steps.push(ConfiguredRule {
                stage: rule.stage.stage.clone(),
                plugin: rule.stage.plugin.clone(),
                options: rule.options.clone(),
                handle: Arc::new(Deadlined::on(handle, Arc::clone(&lane))),
            });
        }
        let mut query_grammars = Vec::with_capacity(pipeline.query_grammars.len());
        for grammar in &pipeline.query_grammars {
            let handle = registry
                .query_grammar_stage(&grammar.stage)
                .map_err(|error| {
                    Refusal::configuration_invalid(format!(
                        "the query grammar stage `{}` cannot be constructed: {error}",
                        grammar.stage
                    ))
                })?;
            query_grammars.push(ConfiguredQueryGrammar {
                stage: grammar.stage.clone(),
                plugin: grammar.plugin.clone(),
                handle: Arc::new(Deadlined::new(handle, deadline)),
            });
        }
        let route_forms = route_form_handles(pipeline, registry)?;
        Ok(Self {
            steps,
            query_grammars,
            route_forms,
            sibling_transfer: pipeline.sibling_transfer,
            failures: Arc::default(),
            withheld: pipeline.serve.withheld,
        })
    }

    /// Rules from plain-Rust stages, in order: `(stage, plugin, options, rule)`.
    pub fn from_rules<R: StateRule>(
        rules: impl IntoIterator<Item = (String, String, BTreeMap<String, Value>, R)>,
    ) -> Self {
        Self {
            steps: rules
                .into_iter()
                .map(|(stage, plugin, options, rule)| ConfiguredRule {
                    stage,
                    plugin,
                    options,
                    handle: Self::direct(rule),
                })
                .collect(),
            query_grammars: Vec::new(),
            route_forms: Vec::new(),
            sibling_transfer: false,
            failures: Arc::default(),
            withheld: WithheldWrites::default(),
        }
    }

    /// The same rules, with these query grammars (in order) instead of the ones they had.
    pub fn with_query_grammars(mut self, grammars: Vec<ConfiguredQueryGrammar>) -> Self {
        self.query_grammars = grammars;
        self
    }

    /// The query grammars, in order.
    pub fn query_grammars(&self) -> &[ConfiguredQueryGrammar] {
        &self.query_grammars
    }

    /// Asks every query grammar, in order, about the request's lists: for each list, the
    /// parameters proposed (the first proposal for a name wins) and the families of parameter
    /// names proposed (the first proposal for a pattern wins; one the host cannot read as an
    /// anchored pattern is dropped). A grammar that fails, or answers another number of lists,
    /// proposes nothing (its failure is recorded).
    pub fn propose_query_parameters(&self, request: &QueryGrammarRequest) -> Vec<ListProposals> {
        let mut proposed: Vec<ListProposals> = vec![ListProposals::default(); request.lists.len()];
        for grammar in &self.query_grammars {
            let answer = grammar.handle.apply(request).and_then(|outcome| {
                let families_fit =
                    outcome.families.is_empty() || outcome.families.len() == request.lists.len();
                if outcome.lists.len() == request.lists.len() && families_fit {
                    Ok(outcome)
                } else {
                    Err(format!(
                        "it answered {} lists ({} of name families) for {}",
                        outcome.lists.len(),
                        outcome.families.len(),
                        request.lists.len()
                    ))
                }
            });
            match answer {
                Ok(outcome) => {
                    let mut families = outcome.families.into_iter();
                    for (into, from) in proposed.iter_mut().zip(outcome.lists) {
                        for (name, role) in from {
                            into.roles.entry(name).or_insert(role);
                        }
                        for (pattern, description) in families.next().unwrap_or_default() {
                            if crate::families::readable(&pattern) {
                                into.families.entry(pattern).or_insert(description);
                            }
                        }
                    }
                }
                Err(error) => self.grammar_failed(grammar, &error),
            }
        }
        proposed
    }

    /// Asks every route-form stage, in order, which of the request's write routes act on the
    /// entity a parameter segment names: for each route, the first proposal (a segment of the
    /// route that is a parameter). A form that fails proposes nothing (its failure is recorded).
    pub fn propose_action_routes(&self, request: &ActionRouteRequest) -> Vec<Option<ActionRoute>> {
        let mut proposed: Vec<Option<ActionRoute>> = vec![None; request.routes.len()];
        if request.routes.is_empty() {
            return proposed;
        }
        for form in &self.route_forms {
            match form.actions(request) {
                Ok(outcome) => {
                    for action in outcome.actions {
                        let fits = request.routes.get(action.route).is_some_and(|route| {
                            route.parameters.get(action.segment).copied() == Some(true)
                        });
                        let route = action.route;
                        if fits && proposed[route].is_none() {
                            proposed[route] = Some(action);
                        }
                    }
                }
                Err(error) => {
                    let line = format!(
                        "route form stage {} of plugin {} failed: {error}",
                        form.stage(),
                        form.plugin()
                    );
                    tracing::warn!("{line}");
                    self.failures
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .insert(line);
                }
            }
        }
        proposed
    }

    /// Logs and records a failed query grammar call.
    fn grammar_failed(&self, grammar: &ConfiguredQueryGrammar, error: &str) {
        let line = format!(
            "query grammar stage {} of plugin {} failed: {error}",
            grammar.stage, grammar.plugin
        );
        tracing::warn!("{line}");
        self.failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(line);
    }

    /// The terms of a query parameter whose value is an expression of some query grammar's
    /// language, given the fields the list's entity type holds and every query pair of the call:
    /// the first grammar (in order) that reads it answers; `None` when none does (a failed call
    /// is recorded and reads nothing).
    pub fn split_query_expression(
        &self,
        (name, value): (&str, &str),
        fields: &[String],
        call: &[(String, String)],
    ) -> Option<Vec<QueryTerm>> {
        let request = QueryExpressionRequest {
            name: name.to_owned(),
            value: value.to_owned(),
            fields: fields.to_vec(),
            call: call.to_vec(),
            schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
        };
        self.first_terms(|handle| handle.split(&request))
    }

    /// The terms of a read's request body by the first query grammar that reads it (given the
    /// scalar fields and the object lists the listed entity type holds); `None` when none does.
    pub fn split_query_body(
        &self,
        body: &Value,
        (fields, object_lists): (&[String], &[String]),
    ) -> Option<QueryExpressionOutcome> {
        let request = QueryBodyRequest {
            body: body.clone(),
            fields: fields.to_vec(),
            object_lists: object_lists.to_vec(),
            schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
        };
        self.query_grammars
            .iter()
            .find_map(|grammar| match grammar.handle.split_body(&request) {
                Ok(outcome) => outcome.terms.is_some().then_some(outcome),
                Err(error) => {
                    self.grammar_failed(grammar, &error);
                    None
                }
            })
    }

    /// The terms the first grammar (in order) answers to a call; a failed call is recorded and
    /// reads nothing.
    fn first_terms(
        &self,
        call: impl Fn(&dyn QueryGrammarStep) -> Result<QueryExpressionOutcome, String>,
    ) -> Option<Vec<QueryTerm>> {
        self.query_grammars
            .iter()
            .find_map(|grammar| match call(grammar.handle.as_ref()) {
                Ok(outcome) => outcome.terms,
                Err(error) => {
                    self.grammar_failed(grammar, &error);
                    None
                }
            })
    }

    /// The query grammars as the state Evidence names them.
    pub fn query_grammar_refs(&self) -> Vec<QueryGrammarRef> {
        self.query_grammars
            .iter()
            .map(|grammar| QueryGrammarRef {
                stage: grammar.stage.clone(),
                plugin: grammar.plugin.clone(),
            })
            .collect()
    }

    /// A view's template rules with the pipeline's route-form stages: what the manifest a state
    /// is derived from is projected with.
    pub fn templating(&self, rules: &TemplateRules) -> TemplateRules {
        rules
            .clone()
            .with_route_forms(self.route_forms.clone())
            .with_sibling_transfer(self.sibling_transfer)
    }

    /// The same steps, offering write tools on sibling collections when `on` (as the pipeline's
    /// `[manifest] sibling_transfer = true` does).
    pub fn with_sibling_transfer(mut self, on: bool) -> Self {
        self.sibling_transfer = on;
        self
    }

    /// Whether write tools are offered on sibling collections.
    pub fn sibling_transfer(&self) -> bool {
        self.sibling_transfer
    }

    /// The same steps, serving withheld writes as `mode` says.
    pub fn with_withheld(mut self, mode: WithheldWrites) -> Self {
        self.withheld = mode;
        self
    }

    /// What the served state does with withheld writes.
    pub fn withheld(&self) -> WithheldWrites {
        self.withheld
    }

    /// Adds a step.
    pub fn push(&mut self, rule: ConfiguredRule) {
        self.steps.push(rule);
    }

    /// A plain-Rust stage as a step handle.
    pub fn direct<R: StateRule>(rule: R) -> Arc<dyn RuleStep> {
        let stage = rule_stage_object(rule);
        let held_indexes = HeldIndexes::declared(stage.held_indexes().as_str());
        let learn_scope = LearnScope::declared(stage.learn_scope().as_str());
        Arc::new(Direct(stage, held_indexes, learn_scope))
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[ConfiguredRule] {
        &self.steps
    }

    /// The step of a stage.
    pub fn step(&self, stage: &str) -> Option<&ConfiguredRule> {
        self.steps.iter().find(|step| step.stage == stage)
    }

    /// Records a failed stage call (logged by the caller): `rule stage S of plugin P failed to
    /// learn TOOL: ERROR`.
    pub fn record_failure(&self, step: &ConfiguredRule, phase: &str, tool: &str, error: &str) {
        let line = format!(
            "rule stage {} of plugin {} failed to {phase} {tool}: {error}",
            step.stage, step.plugin
        );
        self.failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(line);
    }

    /// The failed stage calls so far, sorted.
    pub fn failures(&self) -> Vec<String> {
        self.failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// The steps as the state Evidence names them.
    pub fn refs(&self) -> Vec<RuleStageRef> {
        self.steps
            .iter()
            .map(|step| RuleStageRef {
                stage: step.stage.clone(),
                plugin: step.plugin.clone(),
                options: step.options.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_started_together_on_a_lane_answer_in_order_and_a_hung_call_costs_one_deadline() {
        let lane = Arc::new(Lane::new(Duration::from_secs(1)));
        let started: Vec<Pending<usize>> = (0..3)
            .map(|call| lane.start(format!("call {call}"), move || Ok(call)))
            .collect();
        let answers: Vec<usize> = started
            .into_iter()
            .map(|pending| pending.wait().expect("answered"))
            .collect();
        assert_eq!(answers, [0, 1, 2]);
        // A call that never answers, and one queued behind it on the same worker.
        let (_never, hangs) = mpsc::channel::<()>();
        let hung = lane.start("the hung stage".to_owned(), move || {
            let _ = hangs.recv();
            Ok(0)
        });
        let queued = lane.start("the queued stage".to_owned(), || Ok(1));
        let error = hung.wait().expect_err("past the deadline");
        assert!(
            error.starts_with("the hung stage did not answer within 1 s"),
            "{error}"
        );
        drop(queued);
        // The next call runs on a new worker.
        assert_eq!(lane.start("after".to_owned(), || Ok(7)).wait(), Ok(7));
    }

    #[test]
    fn an_answer_past_the_callers_watch_and_a_call_past_the_workers_watch_are_still_answered() {
        let lane = Arc::new(Lane::new(Duration::from_secs(5)));
        let late = 20 * CALLER_WATCH;
        let slow = lane.start("the slow stage".to_owned(), move || {
            std::thread::sleep(late);
            Ok(1)
        });
        assert_eq!(slow.wait(), Ok(1));
        // The worker has gone to sleep on its queue; a call wakes it.
        std::thread::sleep(20 * WORKER_WATCH);
        assert_eq!(
            lane.start("the next stage".to_owned(), || Ok(2)).wait(),
            Ok(2)
        );
    }
}
