//! kotef's GitHub edge: webhooks in (verified, parsed into one [`Trigger`], stored once in a
//! durable queue), runs out (a git workspace, the agent through [`RunExecutor`], a commit and
//! push, a draft PR and one sticky status comment). The agent graph itself lives elsewhere;
//! this crate reaches it only through [`RunExecutor`].

pub mod action;
pub mod client;
pub mod config;
pub mod dispatch;
pub mod job;
pub mod metrics;
pub mod pipeline;
pub mod render;
pub mod retry;
pub mod sanitize;
pub mod secret;
pub mod server;
pub mod signature;
pub mod store;
pub mod trigger;
pub mod visible;
pub mod workspace;

#[cfg(feature = "testing")]
pub mod testing;

pub use client::{GitHub, GitHubAuth, GitHubError, Permission};
pub use config::{ExecutorMode, ServeArgs, ServeConfig};
pub use dispatch::dispatch_job;
pub use job::{Job, Work};
pub use pipeline::{process_job, JobContext, JobResult, JobStatus, OperatorSettings};
pub use retry::RetryPolicy;
pub use secret::Secret;
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
