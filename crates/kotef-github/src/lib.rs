//! kotef's GitHub edge: webhooks in (verified, parsed into one [`Trigger`], stored once in a
//! durable queue), runs out (a git workspace, the agent through [`RunExecutor`], a commit and
//! push, a draft PR and one sticky status comment). The agent graph itself lives elsewhere;
//! this crate reaches it only through [`RunExecutor`].
//!
//! The folders follow the data path: `inbound/` (server, signatures, triggers, visible text)
//! → `queue/` (jobs, the store) → `pipeline/` (one job from admission to the final comment) →
//! `outbound/` (GitHub client, rendering, git workspace); `entry/` holds the Action and the
//! dispatcher. Below them sit the leaves every layer may use: `text`, `secret`, `marker`
//! (kotef's own comments) and `wire` (GitHub's response bodies). `inbound/` and `outbound/`
//! never import each other, and nothing imports a folder above its own;
//! `scripts/module-cycles.py` checks it. Only the main types are re-exported at the root, for
//! the binary; code inside this crate names the folder.

pub mod config;
pub mod entry;
pub mod inbound;
pub mod marker;
pub mod metrics;
pub mod outbound;
pub mod pipeline;
pub mod queue;
pub mod secret;
pub mod text;
pub mod wire;

pub use config::{ExecutorMode, ServeConfig};
pub use entry::dispatch::dispatch_job;
pub use entry::server::{serve, start, RunningServer};
pub use inbound::decide::decide;
pub use inbound::trigger::{Admission, AdmissionConfig, Trigger};
pub use outbound::client::{GitHub, GitHubAuth, GitHubError, Permission};
pub use outbound::retry::RetryPolicy;
pub use outbound::workspace::{BranchFile, GitSettings, Workspace};
pub use pipeline::{process_job, JobContext, JobResult, JobStatus, OperatorSettings};
pub use queue::job::{Asked, Job, Work};
pub use queue::store::JobStore;
pub use secret::{ExposeSecret, Secret};

/// The label that triggers a run unless configured otherwise.
pub const DEFAULT_TRIGGER_LABEL: &str = "kotef";

/// Runs the agent graph; implemented by the root crate (and by fakes in tests).
#[async_trait::async_trait]
pub trait RunExecutor: Send + Sync + 'static {
    /// Runs the agent graph in `req.workdir` (an already cloned git work tree on the kotef
    /// branch). Changes files, writes `.sdd/runs/*.md|json` and maybe `.sdd/issues.md`, never
    /// commits. Progress lines are sent as steps go by (for throttled comment updates).
    async fn execute(
        &self,
        req: kotef_core::RunRequest,
        progress: tokio::sync::mpsc::UnboundedSender<kotef_core::StepProgress>,
    ) -> anyhow::Result<kotef_core::RunOutcome>;

    /// After the run, before kotef commits: the text of the run's transcript at `rel` (relative
    /// to `workdir`), taken out of the work tree so that it is not committed, or only read
    /// when `keep` (the repository opted in with `[report] commit_transcript`). The work tree
    /// is hostile: no link is followed. Default: there is none (fakes write no transcript).
    fn take_transcript(
        &self,
        _workdir: &std::path::Path,
        _rel: &str,
        _keep: bool,
    ) -> Result<Option<String>, String> {
        Ok(None)
    }

    /// The transcript's one-page HTML view (`kotef report --html`); default: none.
    fn transcript_page(&self, _transcript: &str, _title: &str) -> Option<String> {
        None
    }
}
