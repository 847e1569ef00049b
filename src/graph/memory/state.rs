//! `RunState`: the one typed value that holds everything the stop rules, the nodes and the
//! report read. Nodes receive `&mut RunState`; nothing lives outside it, so nothing can be
//! dropped between nodes.

use kotef_core::{Edge, LoopCounters, NodeName, Profile, StopRule, TerminalStatus};
use kotef_tools::FailureKind;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The planner's parsed proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannerDecision {
    pub next: NodeName,
    pub reason: String,
    pub plan: Vec<String>,
    pub query: Option<String>,
    pub task: Option<String>,
    /// A verification command the planner names (used only when none is configured or
    /// detected).
    #[serde(default)]
    pub verify: Option<String>,
}

impl PlannerDecision {
    /// A hop to the coder with `task`, chosen by a rule rather than the model.
    pub fn to_coder(reason: &str, task: String) -> Self {
        Self {
            next: NodeName::Coder,
            reason: reason.to_string(),
            plan: Vec::new(),
            query: None,
            task: Some(task),
            verify: None,
        }
    }
}

/// What the researcher has learned so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResearchState {
    pub last_query: Option<String>,
    /// Research calls that reached the model (repeated queries answered from memory don't count).
    pub attempts: u32,
    pub quality: f64,
    pub findings: String,
    /// sha256 of the findings text.
    pub results_hash: Option<String>,
    /// Every results hash seen, so an old answer coming back is not mistaken for news.
    pub seen_hashes: BTreeSet<String>,
    /// Notes such as `No new information; repeated query "..."`.
    pub reasons: Vec<String>,
    /// The state fingerprint when the last query was answered.
    pub fingerprint_at_last_query: Option<String>,
}

/// The last verification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub command: String,
    pub passed: bool,
    pub exit_code: Option<i32>,
    pub kind: Option<FailureKind>,
    pub summary: String,
    pub error_signature: Option<String>,
    /// Consecutive verifications that failed with this same signature.
    pub same_error_count: u32,
    /// The step that produced it.
    pub step: u32,
    /// Whether files had changed since the verification before it.
    pub after_code_change: bool,
    /// What the failure needs from outside the repository (`kotef_tools::outside_cause`).
    #[serde(default)]
    pub outside_cause: Option<String>,
    /// Whether the command was killed at its timeout (a test that never ends).
    #[serde(default)]
    pub timed_out: bool,
    /// The failure read once (key line, severity, a missing name, the failing tests); empty
    /// for a pass.
    #[serde(default)]
    pub report: crate::graph::memory::failure::FailureReport,
}

/// One failing command, kept for the planner, the snitch and the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureEntry {
    pub step: u32,
    pub command: String,
    pub exit_code: Option<i32>,
    pub kind: FailureKind,
    pub summary: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FailureHistory {
    /// Failing verifications after code changes (the fix cycles used).
    pub attempts: u32,
    pub entries: Vec<FailureEntry>,
}

/// One model call, for the report's `calls`. A call the provider retried is still one call:
/// its retried attempts' tokens are in its figures and its attempts and waits are counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub node: NodeName,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Wall-clock time of the call, retries inside the provider included.
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
    /// The step the call was made in.
    #[serde(default)]
    pub step: u32,
    /// HTTP attempts the provider made for this call (1 without retries; 0 when unknown).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts: u32,
    /// Time spent waiting between those attempts.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub retry_wait_ms: u64,
    /// The last provider error seen during the call (secrets redacted), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// The reply's tool calls were written as text and parsed from it (small local models).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub calls_from_text: bool,
    /// The server's own timing (prompt tokens it processed and reused, prompt and generation
    /// milliseconds), when it reports one (llama.cpp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<kotef_model::ServerTimings>,
}

impl CallRecord {
    /// A call of `node` with nothing counted yet.
    pub fn new(node: NodeName) -> Self {
        CallRecord {
            node,
            prompt_tokens: 0,
            completion_tokens: 0,
            latency_ms: 0,
            failed: false,
            step: 0,
            attempts: 0,
            retry_wait_ms: 0,
            last_error: None,
            calls_from_text: false,
            timings: None,
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// Why a coder step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoderEnd {
    /// The coder called `done`.
    Done,
    /// It made no tool call for the turns allowed, or asked for done and kept going.
    TurnsUsed,
    /// The budget review's hard cap.
    ReviewCap,
    /// The same failing tool call (same tool, arguments and error) three times.
    RepeatedFailingCall,
    /// The same successful tool call (same tool and arguments) three times with no file
    /// changed in between: its result could not change.
    RepeatedCall,
    /// Replies with neither a tool call nor `done`, after one corrective message.
    NoToolCalls,
    /// The step's hard cap on model calls (`coder_step_calls`).
    CallCap,
    /// A stop rule ended the run during the step.
    RunStopped,
}

impl CoderEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::TurnsUsed => "turns used",
            Self::ReviewCap => "budget review cap",
            Self::RepeatedFailingCall => "repeated failing call",
            Self::RepeatedCall => "repeated call",
            Self::NoToolCalls => "no tool calls",
            Self::CallCap => "call cap",
            Self::RunStopped => "run stopped",
        }
    }
}

/// What one step decided, for the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The planner sent the run to this node.
    Route(NodeName),
    /// The planner proposed this node and a stop rule refused the hop.
    Refused {
        to: NodeName,
        rule: StopRule,
    },
    /// A stop rule ended the run in this step (`None`: the run ended without a rule).
    Stop(Option<StopRule>),
    /// The planner finished after a passing verification.
    Done,
    /// The planner finished without one.
    DonePartial,
    /// The planner said `done` before anything was changed or verified; refused once.
    DoneRefused,
    /// The planner gave up.
    GaveUp,
    /// The planner's replies could not be used.
    Malformed,
    /// The researcher answered.
    Findings,
    /// The same query on an unchanged state, answered from memory.
    RepeatedQuery,
    /// The coder's step, and why it ended.
    Code(CoderEnd),
    Pass,
    Fail,
    /// The snitch wrote its report.
    Report,
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Route(n) => write!(f, "{n}"),
            Self::Refused { to, rule } => write!(f, "{to} (refused: {rule})"),
            Self::Stop(Some(rule)) => write!(f, "stop: {rule}"),
            Self::Stop(None) => f.write_str("stop"),
            Self::Done => f.write_str("done"),
            Self::DonePartial => f.write_str("done (partial)"),
            Self::DoneRefused => f.write_str("done (refused: nothing changed or verified)"),
            Self::GaveUp => f.write_str("snitch"),
            Self::Malformed => f.write_str("malformed"),
            Self::Findings => f.write_str("findings"),
            Self::RepeatedQuery => f.write_str("repeated query"),
            Self::Code(CoderEnd::Done) => f.write_str("code"),
            Self::Code(end) => write!(f, "code (ended: {})", end.as_str()),
            Self::Pass => f.write_str("pass"),
            Self::Fail => f.write_str("fail"),
            Self::Report => f.write_str("report"),
        }
    }
}

/// Why a planner step sent the coder a task instead of the hop the model proposed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Redirect {
    /// A give-up before the coder had a fair try (refused once per run).
    GiveUpRefused,
    /// A verification of files whose verification already failed with `signature` (once per
    /// failure).
    Reverify { signature: String },
}

impl Redirect {
    /// What the step's reason says of it.
    pub fn note(&self) -> &'static str {
        match self {
            Self::GiveUpRefused => {
                "give-up refused once: nothing was changed yet, so the coder gets the failure first"
            }
            Self::Reverify { .. } => {
                "redirected to the coder: the verification already failed on these exact files"
            }
        }
    }
}

/// One executed step, for the report's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub step: u32,
    pub node: NodeName,
    pub decision: Decision,
    pub reason: String,
    pub progress: bool,
    /// The earlier step whose state this step returned to, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revisit_of: Option<u32>,
    /// A coder step whose only moves were changes to the protected tests (each refused).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub only_test_edits: bool,
    /// A planner step that sent the coder a task instead of the proposed hop, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect: Option<Redirect>,
    /// A coder step that refused a `done` with nothing changed while the tests failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused_empty_done: bool,
    /// Commands a coder step had denied as merely off the strict allow-list.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub off_list_denials: u32,
    /// A repair step that tested changes the run had not tested before, with line offers
    /// still left to make: new test results, not a loop, though the files are as they were.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub explored: bool,
}

/// Where the verifier's command came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandSource {
    /// `test_command` in the config, a flag or a scenario.
    Configured,
    /// Detected from the repository's files.
    Detected,
    /// Named by the planner (`"verify"`), checked against the profile's policy.
    Planner,
}

impl CommandSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Configured => "configured",
            Self::Detected => "detected",
            Self::Planner => "named by the planner",
        }
    }
}

/// Routing history per edge: the reasons given for the last few hops.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoutingHistory {
    pub reasons: BTreeMap<Edge, Vec<String>>,
}

impl RoutingHistory {
    const KEEP: usize = 5;

    pub fn push(&mut self, edge: Edge, reason: &str) {
        let list = self.reasons.entry(edge).or_default();
        list.push(reason.chars().take(200).collect());
        if list.len() > Self::KEEP {
            list.remove(0);
        }
    }
}

/// A fired rule and its one-sentence reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Fired {
    pub rule: StopRule,
    pub reason: String,
}

/// Why and how the run ended, once it has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ending {
    pub status: TerminalStatus,
    pub rule: Option<StopRule>,
    pub reason: String,
}

impl Ending {
    /// `done_success` because the verification (`command`) after the latest change passed,
    /// although something else was about to happen (`why`).
    pub fn verified_success(command: &str, why: &str) -> Self {
        Self {
            status: TerminalStatus::DoneSuccess,
            rule: None,
            reason: format!(
                "The verification after the latest change (`{command}`) passed; {why}, but verified success wins, so the run ended."
            ),
        }
    }
}

/// Everything a run knows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunState {
    pub goal: String,
    pub profile: Profile,
    pub test_command: Option<String>,
    /// Where `test_command` came from.
    pub test_command_source: Option<CommandSource>,
    pub loop_counters: LoopCounters,
    pub routing: RoutingHistory,
    pub total_steps: u32,
    pub last_progress_step: u32,
    pub research: ResearchState,
    /// path → sha256 of content, as of now.
    pub file_hashes: BTreeMap<String, String>,
    /// path → sha256 at the start of the run (to list what the run changed).
    pub initial_hashes: BTreeMap<String, String>,
    /// File hashes at the last verification (to tell whether code changed since).
    pub hashes_at_last_verification: Option<BTreeMap<String, String>>,
    pub test: Option<TestResult>,
    pub failures: FailureHistory,
    /// World fingerprint (files + verified outcome) → the first step that reached it (0: the
    /// start of the run).
    pub seen_states: BTreeMap<String, u32>,
    pub model_calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub calls: Vec<CallRecord>,
    pub plan: Vec<String>,
    pub last_decision: Option<PlannerDecision>,
    /// (fingerprint, decision key) → times seen; for the exact-repeat rule.
    pub decision_repeats: BTreeMap<String, u32>,
    pub timeline: Vec<StepRecord>,
    /// Edges walked, for the Mermaid diagram: (from, to) → count.
    pub path_edges: BTreeMap<(NodeName, NodeName), u32>,
    pub ending: Option<Ending>,
    /// The coder's last `done` summary.
    pub coder_summary: Option<String>,
    /// What a reviewer must check before trusting the change, one sentence each (a pass that
    /// holds values copied from the tests, kept because nothing passed without them).
    #[serde(default)]
    pub checks: Vec<String>,
    /// The spectrum of the failing tests for a test command, measured once a run (the traced
    /// run is slow; see `memory::spectrum`); `None` inside when it could not be had.
    #[serde(skip)]
    pub spectrum: Option<(String, Option<crate::graph::memory::spectrum::Spectrum>)>,
    /// What the repair steps of the run remember of their line attempts (offers made,
    /// branches left, changes tested), for the test command they were judged by.
    #[serde(skip)]
    pub lines: Option<crate::graph::memory::line_offers::LineMemory>,
    /// The failing tests' neighbours at the start (measured at the first pass): what a pass
    /// is checked against (`memory::neighbours`).
    #[serde(skip)]
    pub neighbours: Option<crate::graph::memory::neighbours::Neighbours>,
    /// Tool calls executed, by tool name (names clipped; a model may invent any).
    #[serde(default)]
    pub tools_run: BTreeMap<String, u32>,
    /// Last planner reason, for the snitch.
    pub last_planner_reason: String,
    /// What the run remembers of its calls for sizing the next one (`graph::memory::sent_calls`).
    #[serde(skip)]
    pub pacing: crate::graph::memory::sent_calls::CallPacing,
}

impl RunState {
    pub fn new(goal: &str, profile: Profile, initial_hashes: BTreeMap<String, String>) -> Self {
        Self {
            goal: goal.to_string(),
            profile,
            test_command: None,
            test_command_source: None,
            loop_counters: LoopCounters::default(),
            routing: RoutingHistory::default(),
            total_steps: 0,
            last_progress_step: 0,
            research: ResearchState::default(),
            file_hashes: initial_hashes.clone(),
            initial_hashes,
            hashes_at_last_verification: None,
            test: None,
            failures: FailureHistory::default(),
            seen_states: BTreeMap::new(),
            model_calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            calls: Vec::new(),
            plan: Vec::new(),
            last_decision: None,
            decision_repeats: BTreeMap::new(),
            timeline: Vec::new(),
            path_edges: BTreeMap::new(),
            ending: None,
            coder_summary: None,
            checks: Vec::new(),
            spectrum: None,
            lines: None,
            neighbours: None,
            tools_run: BTreeMap::new(),
            last_planner_reason: String::new(),
            pacing: Default::default(),
        }
    }

    pub fn tokens_used(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    /// Records one model call (failed calls count too; retried attempts are in its figures).
    pub fn record_call(&mut self, mut call: CallRecord) {
        self.model_calls += 1;
        self.prompt_tokens += call.prompt_tokens;
        self.completion_tokens += call.completion_tokens;
        call.step = self.total_steps + 1;
        self.calls.push(call);
    }

    /// Ends the run (first ending wins: a later rule never overwrites the cause).
    pub fn end(
        &mut self,
        status: TerminalStatus,
        rule: Option<StopRule>,
        reason: impl Into<String>,
    ) {
        if self.ending.is_none() {
            self.ending = Some(Ending {
                status,
                rule,
                reason: reason.into(),
            });
        }
    }

    /// Ends the run with an ending a rule decided (first ending wins).
    pub fn finish(&mut self, e: Ending) {
        self.end(e.status, e.rule, e.reason);
    }

    /// Ends the run by a stop rule, with the status the rule implies.
    pub fn stop(&mut self, rule: StopRule, reason: impl Into<String>) {
        self.end(rule.terminal_status(), Some(rule), reason);
    }

    /// Counts one executed tool call.
    pub fn count_tool(&mut self, name: &str) {
        let name: String = name.chars().take(40).collect();
        *self.tools_run.entry(name).or_insert(0) += 1;
    }

    /// Paths whose content differs from the start of the run (added, modified or deleted).
    pub fn files_changed(&self) -> Vec<String> {
        let mut out: BTreeSet<String> = BTreeSet::new();
        for (p, h) in &self.file_hashes {
            if self.initial_hashes.get(p) != Some(h) {
                out.insert(p.clone());
            }
        }
        for p in self.initial_hashes.keys() {
            if !self.file_hashes.contains_key(p) {
                out.insert(p.clone());
            }
        }
        out.into_iter().collect()
    }

    /// Whether the last verification passed and nothing changed after it.
    pub fn verified_after_last_change(&self) -> bool {
        match (&self.test, &self.hashes_at_last_verification) {
            (Some(t), Some(h)) => t.passed && *h == self.file_hashes,
            _ => false,
        }
    }
}
