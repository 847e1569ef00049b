//! One job from start to end, usable by the server's workers and by a GitHub Action entry
//! point alike: permission check, 👀 reaction, clone, the repository's config, the sticky
//! status comment (created, throttled progress edits, final edit), the executor, commit and
//! push on every ending, the draft PR, and a final comment for every accepted trigger — also
//! when the executor fails, the config is invalid or the push is rejected. In Action mode the
//! work happens in the runner's checkout (see [`JobContext::checkout`]) and the comment links
//! to the Actions run.
//!
//! This module is the orchestration of one job; its parts live in `context` (the shared
//! context and the result), `config` (the effective config), `intake` (permission, reaction,
//! goal, branches), `sticky` (the status comment), `publish` (commit, push, pull request) and
//! `ending` (the panic guard, and finishing the comment of a job that could not end itself);
//! `stages` runs them in order for one admitted job, and writes a failed stage's comment.

mod config;
mod context;
mod ending;
mod errors;
mod intake;
mod publish;
mod record;
mod stages;
mod sticky;

pub use config::{effective_config, Effective};
pub use context::{JobContext, JobResult, JobStatus, OperatorSettings};
pub use ending::INTERNAL_ERROR;
pub(crate) use ending::{end_abandoned, finish_comment, panic_text};
pub use errors::{RunError, Stage};
pub(crate) use intake::{admit, goal_for, react};
pub use record::TranscriptStore;
pub(crate) use sticky::{fail, wait_for_api_budget, Sticky};

use crate::outbound::workspace::{GitError, Workspace};
use crate::queue::job::Job;
use crate::secret::Secret;
use crate::RunExecutor;
use kotef_core::RepoName;
use stages::JobRun;
use std::time::Instant;
use tracing::Instrument;

/// Runs one job to its end. Never panics: a panic anywhere in the job ends it failed with its
/// status comment finished; every failure after the permission check ends in a comment on the
/// issue or PR.
pub async fn process_job(ctx: &JobContext, job: &Job, executor: &dyn RunExecutor) -> JobResult {
    let span = tracing::info_span!(
        "job",
        run_id = %job.run_id,
        delivery = %job.delivery,
        repo = %job.repo(),
        issue = %job.number(),
    );
    traced(
        ctx,
        span,
        ending::guarded(ctx, job, run_job(ctx, job, executor)),
    )
    .await
}

/// Does a job's `work` inside its `span`, then logs how the job ended and counts it in the
/// metrics; shared by the local pipeline and the dispatcher.
pub(crate) async fn traced(
    ctx: &JobContext,
    span: tracing::Span,
    work: impl std::future::Future<Output = JobResult>,
) -> JobResult {
    let started = Instant::now();
    let result = work.instrument(span.clone()).await;
    span.in_scope(
        || tracing::info!(status = result.status.as_str(), message = %result.message, "job ended"),
    );
    if let Some(m) = &ctx.metrics {
        let (p, c) = result
            .outcome
            .as_ref()
            .map(|o| (o.summary.prompt_tokens, o.summary.completion_tokens))
            .unwrap_or((0, 0));
        m.job_finished(result.metric_status(), started.elapsed(), p, c);
    }
    result
}

async fn run_job(ctx: &JobContext, job: &Job, executor: &dyn RunExecutor) -> JobResult {
    let trigger = match admit(ctx, job).await {
        Ok(t) => t,
        Err(result) => return result,
    };
    let mut stages = JobRun::new(ctx, job, trigger);
    if let Err(halt) = stages.check_restarts().await {
        return stages.halted(halt).await;
    }
    stages.wait_for_api_budget().await;
    // 👀 on what asked for the run (a dispatching server already did).
    if job.status_comment.is_none() {
        react(ctx, job.repo(), job.number(), trigger).await;
    }
    let prepared = match stages.prepare().await {
        Ok(p) => p,
        Err(halt) => return stages.halted(halt).await,
    };
    let run = stages.run(&prepared, executor).await;
    stages.finish(prepared, run, executor).await
}

/// The work tree of a job: the runner's checkout when [`JobContext::checkout`] is set and
/// usable (else a note says why not), otherwise a fresh clone of `clone_branch`.
async fn open_workspace(
    ctx: &JobContext,
    repo: &RepoName,
    token: &Secret,
    clone_branch: &str,
    notes: &mut Vec<String>,
) -> Result<Workspace, GitError> {
    if let Some(dir) = &ctx.checkout {
        match Workspace::adopt(dir, &ctx.git, repo, Some(token), clone_branch).await {
            Ok(ws) => return Ok(ws),
            Err(e) => {
                tracing::warn!(error = %e, "the checked-out workspace is not usable; cloning");
                notes.push(format!(
                    "the checked-out workspace was not used ({e}); kotef worked in a fresh clone"
                ));
            }
        }
    }
    Workspace::clone(&ctx.work_dir, &ctx.git, repo, Some(token), clone_branch).await
}
