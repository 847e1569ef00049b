//! What a run hands back to whoever started it (CLI, server, Action): the contract summary plus
//! what a status comment or step summary shows. The graph fills it; publishers only read it.

use crate::config::KotefConfig;
use crate::ids::RunId;
use crate::status::NodeName;
use crate::summary::RunSummary;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything about a finished run that leaves the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    pub run_id: RunId,
    pub summary: RunSummary,
    /// Estimated cost in USD from the configured price table, when prices are known.
    pub cost_usd: Option<f64>,
    pub duration_ms: u64,
    /// The last failing command and its 1–3 line summary, when there is one.
    pub failure_summary: Option<String>,
    /// Mermaid flowchart of the path taken (without the ```mermaid fence).
    pub mermaid: String,
    /// Workspace-relative paths changed by the run (code only, not `.sdd/`).
    pub files_changed: Vec<String>,
    /// Workspace-relative path of the Markdown run report (`.sdd/runs/<ts>-<id>.md`).
    pub report_rel_path: String,
    /// Workspace-relative path of `.sdd/issues.md` when the snitch wrote to it.
    pub issues_rel_path: Option<String>,
    /// The model spec used (`scripted`, `openai:gpt-4o`, ...).
    pub model: String,
    /// What the coder said it changed (its last `done` summary), when it said anything.
    #[serde(default)]
    pub change_summary: Option<String>,
    /// The last verification: its command and whether it passed.
    #[serde(default)]
    pub verification: Option<Verification>,
    /// The sandbox the run's commands ran in (`bwrap`, or `none` for plain processes), when
    /// known.
    #[serde(default)]
    pub sandbox: Option<String>,
    /// What the repository's `setup` created in the work tree (`.venv/`, `src/pkg.egg-info/`):
    /// never committed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup_created: Vec<String>,
    /// What a reviewer must check before trusting the change, one sentence each: the tests
    /// pass with values copied from them, and nothing passed without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<String>,
}

/// A verification command and its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    pub command: String,
    pub passed: bool,
}

/// What a caller asks the graph to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub run_id: RunId,
    /// A git work tree; the run changes files here and never commits.
    pub workdir: PathBuf,
    pub goal: String,
    /// The repository's config (already loaded and validated by the caller).
    pub config: KotefConfig,
    /// What the operator's rules changed in the config (ignored fields, lowered limits), one
    /// sentence each, for the run report.
    pub settings_notes: Vec<String>,
    /// Paths the agent's commands must not read (the operator's data directory and secret
    /// files); hidden inside the sandbox.
    pub hidden_paths: Vec<PathBuf>,
    /// Paths the agent's commands may read but not write (the work tree's git directory):
    /// bound read-only inside the sandbox, also where they lie inside the workspace.
    pub protected_paths: Vec<PathBuf>,
}

/// One line of progress, sent after each graph step (for terminals and sticky comments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepProgress {
    pub step: u32,
    pub node: NodeName,
    pub decision: String,
    pub reason: String,
    pub progress: bool,
}
