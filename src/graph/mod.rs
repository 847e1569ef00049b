//! The bounded agent graph: planner hub; researcher → planner; coder → verifier → planner;
//! snitch → end; done → end. An iterative loop with a hard step cap — no recursion and no
//! framework limit that could fire first. Every ending, errors included, leaves a run report.

pub mod coder;
pub mod context;
pub mod llm;
pub mod planner;
pub mod researcher;
pub mod rules;
pub mod snitch;
pub mod state;
pub mod verifier;

use kotef_core::{Limits, NodeName, Redactor, RunId, SandboxMode, StepProgress, TerminalStatus};
use kotef_model::Model;
use kotef_tools::ToolBox;
use state::{RunState, StepRecord};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;

/// What the nodes share for one run.
pub struct GraphContext {
    pub run_id: RunId,
    pub model: Arc<dyn Model>,
    pub tools: ToolBox,
    pub limits: Limits,
    pub sandbox: SandboxMode,
    pub started: Instant,
    pub redactor: Redactor,
    pub progress: Option<UnboundedSender<StepProgress>>,
}

/// What one node execution decided.
#[derive(Debug, Clone, PartialEq)]
pub struct StepResult {
    pub next: NodeName,
    pub decision: String,
    pub reason: String,
    pub progress: bool,
}

impl StepResult {
    /// The step that saw a stop rule fire: on to the snitch, with the ending's reason.
    pub fn stopped(state: &RunState, progress: bool) -> Self {
        let reason = state
            .ending
            .as_ref()
            .map(|e| e.reason.clone())
            .unwrap_or_default();
        Self::to(NodeName::Snitch, "stop".into(), reason, progress)
    }

    pub fn to(next: NodeName, decision: String, reason: String, progress: bool) -> Self {
        Self {
            next,
            decision,
            reason,
            progress,
        }
    }
}

/// Paths that builds and test runs create; their churn is not progress.
pub fn is_build_artifact(path: &str) -> bool {
    path.split('/').any(|c| {
        matches!(
            c,
            "__pycache__"
                | ".pytest_cache"
                | "target"
                | "node_modules"
                | ".mypy_cache"
                | ".ruff_cache"
                | ".venv"
        )
    }) || path.ends_with(".pyc")
}

/// Content hashes of the workspace's source files (no `.git/`, `.sdd/` or build artifacts).
pub fn workspace_hashes(root: &Path) -> BTreeMap<String, String> {
    kotef_tools::content_hashes(root)
        .into_iter()
        .filter(|(p, _)| !is_build_artifact(p))
        .collect()
}

/// Runs the graph to its end and returns the final state. Never panics on model output and
/// never loops: every iteration executes one step, and the step cap ends the run.
pub async fn run_graph(ctx: &GraphContext, mut state: RunState) -> RunState {
    let span = tracing::info_span!("run", run_id = %ctx.run_id);
    let _enter = span.enter();
    let mut next = NodeName::Planner;
    let mut prev: Option<NodeName> = None;
    loop {
        if let Some(ending) = &state.ending {
            // Success ends here; every other ending goes through the snitch once.
            if ending.status == TerminalStatus::DoneSuccess || prev == Some(NodeName::Snitch) {
                break;
            }
            next = NodeName::Snitch;
        }
        if next == NodeName::Done {
            // The planner ended the run (success handled above); make sure it is recorded.
            if state.ending.is_none() {
                state.end(
                    TerminalStatus::DonePartial,
                    None,
                    "The run ended without a verdict.",
                );
            }
            continue;
        }
        if next != NodeName::Snitch {
            let budget = rules::budget_stop(
                state.tokens_used(),
                ctx.started.elapsed().as_secs(),
                &ctx.limits,
            )
            .or_else(|| rules::step_cap_reached(state.total_steps, &ctx.limits));
            if let Some(f) = budget {
                state.stop(f.rule, f.reason);
                continue;
            }
        }
        let node = next;
        let result = match node {
            NodeName::Planner => planner::step(ctx, &mut state).await,
            NodeName::Researcher => researcher::step(ctx, &mut state).await,
            NodeName::Coder => coder::step(ctx, &mut state).await,
            NodeName::Verifier => verifier::step(ctx, &mut state).await,
            NodeName::Snitch => snitch::step(ctx, &mut state),
            NodeName::Done => unreachable!("handled above"),
        };
        state.total_steps += 1;
        if result.progress {
            state.last_progress_step = state.total_steps;
            match node {
                NodeName::Researcher => state.loop_counters.planner_to_researcher = 0,
                NodeName::Coder => state.loop_counters.planner_to_coder = 0,
                NodeName::Verifier => state.loop_counters.planner_to_verifier = 0,
                _ => {}
            }
        }
        if let Some(p) = prev {
            *state.path_edges.entry((p, node)).or_insert(0) += 1;
        }
        let record = StepRecord {
            step: state.total_steps,
            node,
            decision: result.decision.clone(),
            reason: ctx.redactor.redact(&result.reason),
            progress: result.progress,
        };
        tracing::info!(step = record.step, node = node.as_str(), decision = %record.decision, progress = record.progress, "step");
        if let Some(tx) = &ctx.progress {
            let _ = tx.send(StepProgress {
                step: record.step,
                node: node.as_str().into(),
                decision: record.decision.clone(),
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
