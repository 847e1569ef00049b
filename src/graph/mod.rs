//! The bounded agent graph: planner hub; researcher → planner; coder → verifier → planner;
//! snitch → end; done → end. With `verify_first` and a test command the run opens with the
//! verifier, and a failing opening verification goes straight to the coder. An iterative loop with a hard step cap — no recursion and no
//! framework limit that could fire first. Every ending, errors included, leaves a run report.

// The graph by role, in layers (scripts/module-cycles.py checks them): a module imports only
// from a lower layer; no guard imports another.
pub mod guards; // 4: every decision that ends, redirects or succeeds a run
pub mod memory; // 1: what the run remembers and the facts derived from it
pub mod nodes; // 5: the nodes and their one door to the model
pub mod prompt; // 2: what the model is shown
pub mod rules; // 3: the rules, as pure functions over the run's memory
pub mod stop_table; // 6, with this file (the loop): the stop-rule table, from the registries

use kotef_core::{Limits, NodeName, Redactor, RunId, SandboxMode, StepProgress, TerminalStatus};
use kotef_model::Model;
use kotef_tools::ToolBox;
use memory::state::{Decision, RunState, StepRecord};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tracing::Instrument;

/// What the nodes share for one run.
pub struct GraphContext {
    pub run_id: RunId,
    pub model: Arc<dyn Model>,
    pub tools: ToolBox,
    pub limits: Limits,
    pub sandbox: SandboxMode,
    /// Paths commands must not read inside the sandbox (the operator's files).
    pub hidden_paths: Vec<std::path::PathBuf>,
    /// Paths commands may read but not write inside the sandbox (the git directory).
    pub read_only_paths: Vec<std::path::PathBuf>,
    pub started: Instant,
    pub redactor: Redactor,
    pub progress: Option<UnboundedSender<StepProgress>>,
    /// Prices the run's tokens, for the dollar budget (`None`: unknown price).
    pub cost: Option<CostFn>,
    /// Where the snitch writes its entry for a human (the run wires in `.sdd/issues.md`); the
    /// graph renders nothing itself, so it depends on no report module.
    pub issue_writer: IssueWriter,
    /// Start with the verifier when a test command is known (see `rules::tasks::opening_task`).
    pub verify_first: bool,
    /// Whether, while the tests fail, the coder works as a generate-and-validate repair loop
    /// with fenced edit blocks (see [`nodes::repair`]) instead of the JSON tool loop: fixed by
    /// the config, or (`auto`) settled by what the server does ([`rules::edit_format`]).
    pub edit_format: rules::edit_format::EditChoice,
    /// Where the run's events go (the run wires in the transcript; see [`memory::events`]).
    pub events: memory::events::EventSink,
}

/// Estimated USD cost of (prompt tokens, completion tokens), when prices are known.
pub type CostFn = Arc<dyn Fn(u64, u64) -> Option<f64> + Send + Sync>;

/// Writes the snitch's entry for a finished state; the error is shown in the timeline.
pub type IssueWriter = Arc<dyn Fn(&RunState) -> Result<(), String> + Send + Sync>;

impl GraphContext {
    /// Records one event of the run (for the transcript).
    pub fn record(&self, event: memory::events::RunEvent) {
        (self.events)(&event);
    }

    /// Records a tool call of `node` in `step` and what it returned.
    pub fn record_tool(
        &self,
        step: u32,
        node: NodeName,
        call: &kotef_model::ToolCall,
        out: &kotef_tools::ToolOutcome,
    ) {
        self.record(memory::events::RunEvent::ToolCall {
            step,
            node,
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            output: memory::events::clip_output(&out.content),
            is_error: out.is_error,
        });
    }

    /// What the run has used so far, for the budget rules.
    pub fn spent(&self, state: &RunState) -> crate::graph::rules::budgets::Spent {
        crate::graph::rules::budgets::Spent {
            tokens: state.tokens_used(),
            elapsed_s: self.started.elapsed().as_secs(),
            model_calls: state.model_calls,
            cost_usd: self
                .cost
                .as_ref()
                .and_then(|f| f(state.prompt_tokens, state.completion_tokens)),
        }
    }

    /// The workspace's content hashes within the time left in the run (`fallback`, the hashes
    /// known before, when the deadline comes first: the run's budget ends it next).
    pub async fn hashes_or(&self, fallback: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let root = self.tools.workdir().root();
        workspace_hashes(root, self.time_left())
            .await
            .unwrap_or_else(|| fallback.clone())
    }

    /// The repository listing for prompts, made within the time left in the run (empty when
    /// the deadline comes first).
    pub async fn snapshot(&self) -> kotef_tools::RepoSnapshot {
        let root = self.tools.workdir().root();
        kotef_tools::snapshot_within(root, prompt::context::SNAPSHOT_FILES, self.time_left())
            .await
            .unwrap_or(kotef_tools::RepoSnapshot {
                files: Vec::new(),
                total_files: 0,
                truncated: true,
                backlog_bytes: None,
            })
    }

    /// Time left in the run's time budget.
    pub fn time_left(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.limits.time_budget_s)
            .saturating_sub(self.started.elapsed())
    }

    /// The runner of the test command: the sandbox and the hidden and read-only paths of every
    /// command, and a timeout that never outlasts the run's time budget nor takes more than a
    /// third of it, so a test that never ends leaves the agent time to act on it.
    pub fn test_runner(&self) -> kotef_tools::CommandRunner {
        // The agent's runner (sandbox, hidden and read-only paths, the operator's binds, the
        // commands' variables, the job's disk quota), with the test command's timeout.
        kotef_tools::CommandRunner::new(kotef_tools::RunnerConfig {
            timeout: test_timeout(&self.limits, self.time_left()),
            ..self.tools.runner().config().clone()
        })
    }
}

/// The test command's timeout: its configured one, but at most a third of the run's time
/// budget and never past the time left (at least a second).
pub fn test_timeout(limits: &Limits, time_left: std::time::Duration) -> std::time::Duration {
    std::time::Duration::from_secs(limits.command_timeout_s)
        .min(std::time::Duration::from_secs(limits.time_budget_s / 3))
        .min(time_left)
        .max(std::time::Duration::from_secs(1))
}

/// What one node execution decided.
#[derive(Debug, Clone, PartialEq)]
pub struct StepResult {
    pub next: NodeName,
    pub decision: Decision,
    pub reason: String,
    pub progress: bool,
    /// A coder step whose only moves were refused changes to the protected tests.
    pub only_test_edits: bool,
    /// A planner step that sent the coder a task instead of the proposed hop.
    pub redirect: Option<memory::state::Redirect>,
    /// A coder step that refused an empty `done`.
    pub refused_empty_done: bool,
    /// Commands a coder step had denied as off the strict allow-list.
    pub off_list_denials: u32,
    /// A repair step that tested changes the run had not tested before, with line offers
    /// still left to make ([`memory::state::StepRecord::explored`]).
    pub explored: bool,
}

impl StepResult {
    /// The step that saw a stop rule fire: on to the snitch, with the ending's reason.
    pub fn stopped(state: &RunState, progress: bool) -> Self {
        let (rule, reason) = state
            .ending
            .as_ref()
            .map(|e| (e.rule, e.reason.clone()))
            .unwrap_or_default();
        Self::to(NodeName::Snitch, Decision::Stop(rule), reason, progress)
    }

    /// Marks a coder step whose only moves were refused changes to the protected tests.
    pub fn with_only_test_edits(self, only_test_edits: bool) -> Self {
        Self {
            only_test_edits,
            ..self
        }
    }

    pub fn to(next: NodeName, decision: Decision, reason: String, progress: bool) -> Self {
        Self {
            next,
            decision,
            reason,
            progress,
            only_test_edits: false,
            redirect: None,
            refused_empty_done: false,
            off_list_denials: 0,
            explored: false,
        }
    }

    /// Marks a repair step that tested changes new to the run with line offers left.
    pub fn with_explored(self, explored: bool) -> Self {
        Self { explored, ..self }
    }

    /// Records what a coder step refused and had denied, for the counts later checks read.
    pub fn with_coder_counts(self, refused_empty_done: bool, off_list_denials: u32) -> Self {
        Self {
            refused_empty_done,
            off_list_denials,
            ..self
        }
    }

    /// Marks a planner step that sent the coder a task instead of the proposed hop.
    pub fn with_redirect(self, redirect: Option<memory::state::Redirect>) -> Self {
        Self { redirect, ..self }
    }
}

pub use kotef_tools::is_build_artifact;

/// Content hashes of the workspace's source files (no `.git/`, `.sdd/` or build artifacts),
/// hashed on a blocking thread (bounded in bytes, see `kotef_tools::snapshot`); `None` when
/// that takes longer than `time` (the hashing is then cancelled).
pub async fn workspace_hashes(root: &Path, time: Duration) -> Option<BTreeMap<String, String>> {
    let all = kotef_tools::content_hashes_within(root, time).await?;
    Some(
        all.into_iter()
            .filter(|(p, _)| !is_build_artifact(p))
            .collect(),
    )
}

/// Applies the state-revisit rule to a finished step: a coder or verifier step that claims
/// progress but brings the run back to a world it has been in is not progress (its reason says
/// which step it repeats; research progress is judged by its own rule). Returns the step
/// repeated, for the step's record (the guards read their streaks from the records).
fn judge_revisit(state: &mut RunState, node: NodeName, result: &mut StepResult) -> Option<u32> {
    let world_changing = matches!(node, NodeName::Coder | NodeName::Verifier);
    let revisit = crate::graph::memory::progress::revisit_of(state).filter(|_| world_changing);
    let step = state.total_steps;
    state
        .seen_states
        .entry(crate::graph::memory::progress::world_fingerprint(state))
        .or_insert(step);
    let repeated = if result.progress { revisit } else { None };
    if let Some(earlier) = repeated {
        result.progress = false;
        result.reason = format!("{} (state of step {earlier} again)", result.reason);
    }
    repeated
}

/// Marks the step the run last moved at, and resets the loop counter of a node that made
/// progress. A step that tested changes new to the run is not idle (new test results), though
/// it resets no loop counter: the coder's own count of such steps bounds them.
fn note_progress(state: &mut RunState, node: NodeName, result: &StepResult) {
    if result.progress || result.explored {
        state.last_progress_step = state.total_steps;
    }
    if result.progress {
        match node {
            NodeName::Researcher => state.loop_counters.planner_to_researcher = 0,
            NodeName::Coder => state.loop_counters.planner_to_coder = 0,
            NodeName::Verifier => state.loop_counters.planner_to_verifier = 0,
            _ => {}
        }
    }
}

/// Runs the graph to its end and returns the final state. Never panics on model output and
/// never loops: every iteration executes one step, and the step cap ends the run.
pub async fn run_graph(ctx: &GraphContext, state: RunState) -> RunState {
    let span = tracing::info_span!("run", run_id = %ctx.run_id);
    let mut state = drive(ctx, state).instrument(span).await;
    doubt_tests_touched(&mut state);
    state
}

/// A run whose tests pass after it changed the tests' own code leaves a check for the
/// reviewer ([`rules::tests_touched`]).
fn doubt_tests_touched(state: &mut RunState) {
    let passed = state.test.as_ref().is_some_and(|t| t.passed);
    let found = rules::tests_touched::finding(
        &state.goal,
        &state.initial_hashes,
        &state.file_hashes,
        passed,
        &state.checks,
    );
    state.checks.extend(found);
}

/// The loop itself: one node per step until an ending.
async fn drive(ctx: &GraphContext, mut state: RunState) -> RunState {
    let mut next = if ctx.verify_first && state.test_command.is_some() {
        NodeName::Verifier
    } else {
        NodeName::Planner
    };
    let mut prev: Option<NodeName> = None;
    let mut handoff = memory::handoff::Handoff::default();
    state
        .seen_states
        .insert(crate::graph::memory::progress::world_fingerprint(&state), 0);
    loop {
        if let Some(ending) = &state.ending {
            // Success ends here; every other ending goes through the snitch once.
            if ending.status == TerminalStatus::DoneSuccess || prev == Some(NodeName::Snitch) {
                break;
            }
            if let Some(reason) = crate::graph::rules::endings::reason_with_failure(&state) {
                if let Some(e) = state.ending.as_mut() {
                    e.reason = reason;
                }
            }
            next = NodeName::Snitch;
        }
        if next == NodeName::Done {
            // The planner ended the run (success handled above); make sure it is recorded.
            if state.ending.is_none() {
                state.finish(crate::graph::rules::endings::no_verdict());
            }
            continue;
        }
        if next != NodeName::Snitch {
            let facts = guards::budget::RunFacts {
                limits: &ctx.limits,
                spent: ctx.spent(&state),
                total_steps: state.total_steps,
            };
            if guards::runner::ask(&mut state, guards::budget::BEFORE_STEP, &facts).is_some() {
                continue;
            }
        }
        let node = next;
        ctx.record(memory::events::RunEvent::Step {
            step: state.total_steps + 1,
            node,
        });
        let mut result = match node {
            NodeName::Planner => nodes::planner::step(ctx, &mut state, &mut handoff).await,
            NodeName::Researcher => nodes::researcher::step(ctx, &mut state).await,
            NodeName::Coder => nodes::coder::step(ctx, &mut state, &mut handoff).await,
            NodeName::Verifier => nodes::verifier::step(ctx, &mut state, &mut handoff).await,
            NodeName::Snitch => nodes::snitch::step(ctx, &mut state),
            NodeName::Done => unreachable!("handled above"),
        };
        state.total_steps += 1;
        let revisit_of = judge_revisit(&mut state, node, &mut result);
        note_progress(&mut state, node, &result);
        if let Some(p) = prev {
            *state.path_edges.entry((p, node)).or_insert(0) += 1;
        }
        let record = StepRecord {
            step: state.total_steps,
            node,
            decision: result.decision,
            reason: ctx.redactor.redact(&result.reason),
            progress: result.progress,
            revisit_of,
            only_test_edits: result.only_test_edits,
            redirect: result.redirect.clone(),
            refused_empty_done: result.refused_empty_done,
            off_list_denials: result.off_list_denials,
            explored: result.explored,
        };
        tracing::info!(step = record.step, node = node.as_str(), decision = %record.decision, progress = record.progress, "step");
        ctx.record(memory::events::RunEvent::StepDone {
            step: record.step,
            node,
            decision: record.decision.to_string(),
            reason: record.reason.clone(),
            progress: record.progress,
        });
        if let Some(tx) = &ctx.progress {
            let _ = tx.send(StepProgress {
                step: record.step,
                node,
                decision: record.decision.to_string(),
                reason: record.reason.clone(),
                progress: record.progress,
            });
        }
        state.timeline.push(record);
        prev = Some(node);
        next = result.next;
        if node == NodeName::Snitch {
            break;
        }
        if next == NodeName::Done
            && state.ending.as_ref().map(|e| e.status) == Some(TerminalStatus::DoneSuccess)
        {
            *state.path_edges.entry((node, NodeName::Done)).or_insert(0) += 1;
            break;
        }
    }
    if prev == Some(NodeName::Snitch) {
        *state
            .path_edges
            .entry((NodeName::Snitch, NodeName::Done))
            .or_insert(0) += 1;
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::Profile;

    #[test]
    fn a_test_run_gets_at_most_a_third_of_the_budget_and_never_more_than_is_left() {
        let limits = Limits {
            time_budget_s: 180,
            command_timeout_s: 600,
            ..Limits::for_profile(Profile::Strict)
        };
        let secs =
            |left: u64| test_timeout(&limits, std::time::Duration::from_secs(left)).as_secs();
        assert_eq!([secs(180), secs(40), secs(0)], [60, 40, 1]);
    }

    fn revisited_state() -> RunState {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        s.seen_states
            .insert(crate::graph::memory::progress::world_fingerprint(&s), 2);
        s.total_steps = 8;
        s
    }

    fn claimed(next: NodeName) -> StepResult {
        StepResult::to(next, Decision::Pass, "did it".into(), true)
    }

    #[test]
    fn a_coder_step_back_to_an_earlier_state_is_not_progress() {
        let mut s = revisited_state();
        let mut r = claimed(NodeName::Verifier);
        assert_eq!(judge_revisit(&mut s, NodeName::Coder, &mut r), Some(2));
        assert!(!r.progress);
        assert_eq!(r.reason, "did it (state of step 2 again)");
    }

    #[test]
    fn research_progress_is_not_judged_by_the_world() {
        let mut s = revisited_state();
        let mut r = claimed(NodeName::Planner);
        assert_eq!(judge_revisit(&mut s, NodeName::Researcher, &mut r), None);
        assert!(r.progress);
    }
}
