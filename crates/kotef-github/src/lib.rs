//! kotef's GitHub edge: webhooks in (verified, parsed into one [`Trigger`], stored once in a
//! durable queue), runs out (a git workspace, the agent through [`RunExecutor`], a commit and
//! push, a draft PR and one sticky status comment). The agent graph itself lives elsewhere;
//! this crate reaches it only through [`RunExecutor`].
//!
//! The folders follow the data path: `inbound/` (server, signatures, triggers, visible text)
//! → `queue/` (jobs, the store) → `pipeline/` (one job from admission to the final comment) →
//! `outbound/` (GitHub client, rendering, git workspace); `entry/` holds the Action and the
//! dispatcher. The modules are also re-exported at the crate root under their own names.

pub mod config;
pub mod entry;
pub mod inbound;
pub mod metrics;
pub mod outbound;
pub mod pipeline;
pub mod queue;
pub mod text;

pub use entry::{action, dispatch, server};
pub use inbound::{sanitize, signature, trigger, visible};
pub use outbound::{client, render, retry, secret, workspace};
pub use queue::{job, store};

pub use client::{GitHub, GitHubAuth, GitHubError, Permission};
pub use config::{ExecutorMode, ServeConfig};
pub use dispatch::dispatch_job;
pub use job::{Job, Work};
pub use pipeline::{process_job, JobContext, JobResult, JobStatus, OperatorSettings};
pub use retry::RetryPolicy;
pub use secret::{ExposeSecret, Secret};
pub use server::{serve, start, RunningServer};
pub use store::JobStore;
pub use trigger::{decide, Decision, DecisionConfig, Trigger};
pub use workspace::{GitSettings, Workspace};

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
}
