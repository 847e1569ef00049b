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

/// One model call, for the report's `calls`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub node: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Wall-clock time of the call, retries inside the provider included.
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
}

/// One executed step, for the report's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub step: u32,
    pub node: NodeName,
    pub decision: String,
    pub reason: String,
    pub progress: bool,
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

/// Why and how the run ended, once it has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ending {
    pub status: TerminalStatus,
    pub rule: Option<StopRule>,
    pub reason: String,
}

/// Everything a run knows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunState {
    pub goal: String,
    pub profile: Profile,
    pub test_command: Option<String>,
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
    /// Consecutive coder steps that changed nothing.
    pub coder_noop_count: u32,
    pub model_calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub calls: Vec<CallRecord>,
    /// Consecutive failed model calls (any node).
    pub consecutive_model_failures: u32,
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
    /// Last planner reason, for the snitch.
    pub last_planner_reason: String,
}

impl RunState {
    pub fn new(goal: &str, profile: Profile, initial_hashes: BTreeMap<String, String>) -> Self {
        Self {
            goal: goal.to_string(),
            profile,
            test_command: None,
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
            coder_noop_count: 0,
            model_calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            calls: Vec::new(),
            consecutive_model_failures: 0,
            plan: Vec::new(),
            last_decision: None,
            decision_repeats: BTreeMap::new(),
            timeline: Vec::new(),
            path_edges: BTreeMap::new(),
            ending: None,
            coder_summary: None,
            last_planner_reason: String::new(),
        }
    }

    pub fn tokens_used(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    /// Records one model call's tokens (failed calls count too).
    pub fn record_call(
        &mut self,
        node: NodeName,
        prompt: u64,
        completion: u64,
        latency_ms: u64,
        failed: bool,
    ) {
        self.model_calls += 1;
        self.prompt_tokens += prompt;
        self.completion_tokens += completion;
        self.calls.push(CallRecord {
            node: node.as_str().to_string(),
            prompt_tokens: prompt,
            completion_tokens: completion,
            latency_ms,
            failed,
        });
        if failed {
            self.consecutive_model_failures += 1;
        } else {
            self.consecutive_model_failures = 0;
        }
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

    /// Ends the run by a stop rule, with the status the rule implies.
    pub fn stop(&mut self, rule: StopRule, reason: impl Into<String>) {
        self.end(rule.terminal_status(), Some(rule), reason);
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
