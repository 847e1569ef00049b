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
//! `ending` (the panic guard, and finishing the comment of a job that could not end itself).

mod config;
mod context;
mod ending;
mod intake;
mod publish;
mod sticky;

pub use config::{effective_config, Effective};
pub use context::{JobContext, JobResult, JobStatus, OperatorSettings};
pub use ending::INTERNAL_ERROR;
pub(crate) use ending::{end_abandoned, finish_comment, panic_text};
pub(crate) use intake::{admit, goal_for, react};
pub(crate) use sticky::{fail, Sticky};

use crate::outbound::render::{self, Links, Phase, RunHeader};
use crate::outbound::workspace::{GitError, Workspace};
use crate::queue::job::Job;
use crate::secret::{ExposeSecret, Secret};
use crate::RunExecutor;
use config::{instruction_files, load_repo_config};
use intake::{resolve_branches, Branches, Resolved};
use kotef_core::{Limits, RepoName, RunRequest, StepProgress};
use publish::{Publish, Published};
use std::time::{Duration, Instant};
use sticky::progress_updates;
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
    let repo = job.repo().clone();
    let number = job.number();
    let sender = job.sender_login().to_string();

    let trigger = match admit(ctx, job).await {
        Ok(t) => t,
        Err(result) => return result,
    };

    let mut redactor = ctx.redactor.clone();
    let mut sticky = Sticky {
        ctx,
        repo: repo.clone(),
        number,
        id: job.status_comment,
        redactor: redactor.clone(),
        last: None,
    };
    let default_profile = job.profile.unwrap_or_default();
    let mut default_limits = Limits::for_profile(default_profile);
    default_limits.apply(&job.limits);
    let mut header = RunHeader {
        run_id: job.run_id.0.clone(),
        number: number.0,
        is_pull_request: trigger.is_pull_request(),
        branch: String::new(),
        profile: default_profile,
        limits: default_limits,
        model: ctx.model.clone(),
        requested_by: sender.clone(),
        actions_run: ctx.actions_run_url.clone(),
    };

    if job.attempts > 1 && sticky.id.is_none() {
        sticky.adopt_existing(&job.run_id.0).await;
    }
    if job.attempts > ctx.max_attempts {
        let error = format!(
            "The server stopped during this run {} times, so kotef gave up. Add the label again or comment `/kotef run` to start a new run.",
            job.attempts - 1
        );
        let body = render::status_comment(
            &header,
            &Phase::Failed {
                stage: "interrupted by server restarts",
                error: &error,
                links: &Links::default(),
                notes: &[],
            },
        );
        let posted = sticky.post(&body).await;
        return sticky.result(
            JobStatus::GaveUp,
            posted
                .err()
                .unwrap_or_else(|| "gave up after restarts".into()),
        );
    }

    // 👀 on what asked for the run (a dispatching server already did).
    if job.status_comment.is_none() {
        react(ctx, &repo, number, trigger).await;
    }

    // Which branch to clone and which to work on.
    let Branches {
        clone: clone_branch,
        work: work_branch,
        trusted: trusted_branch,
    } = match resolve_branches(ctx, &repo, trigger).await {
        Ok(Resolved::Branches(b)) => b,
        Ok(Resolved::Reject(reason)) => {
            let body = render::rejection_comment(&job.run_id.0, number.0, &reason);
            let posted = sticky.post(&body).await;
            return sticky.result(JobStatus::Rejected, posted.err().unwrap_or(reason));
        }
        Ok(Resolved::Ignore(reason)) => return JobResult::simple(JobStatus::Ignored, reason),
        Err(e) => return fail(&mut sticky, &header, "looking up the branch", &e, &[]).await,
    };
    header.branch = work_branch.clone();

    let token = match ctx.github.git_token(&repo).await {
        Ok(t) => t,
        Err(e) => {
            return fail(
                &mut sticky,
                &header,
                "getting a token for git",
                &e.to_string(),
                &[],
            )
            .await
        }
    };
    redactor.add(token.expose_secret());
    sticky.redactor = redactor.clone();

    let mut notes = Vec::new();
    let mut ws = match open_workspace(ctx, &repo, &token, &clone_branch, &mut notes).await {
        Ok(ws) => ws,
        Err(e) => {
            return fail(
                &mut sticky,
                &header,
                "cloning the repository",
                &e.to_string(),
                &notes,
            )
            .await
        }
    };
    // The config comes from the trusted branch (the base branch, also for pull requests), read
    // before the kotef branch, which earlier runs wrote to, is checked out.
    let repo_config = match load_repo_config(ctx.config_path.as_ref(), &ws, &trusted_branch).await {
        Ok(mut c) => {
            c.add_instruction_files(&instruction_files(&ws, &trusted_branch).await);
            c
        }
        Err(e) => {
            return fail(
                &mut sticky,
                &header,
                "reading the repository's kotef config",
                &e,
                &notes,
            )
            .await
        }
    };
    let prepared = match ws.checkout_work_branch(&work_branch).await {
        Ok(()) => ws.freeze_git_config(),
        Err(e) => Err(e),
    };
    if let Err(e) = prepared {
        return fail(
            &mut sticky,
            &header,
            "preparing the branch",
            &e.to_string(),
            &notes,
        )
        .await;
    }
    let Effective {
        config,
        profile,
        limits,
        notes: settings_notes,
    } = effective_config(repo_config, job, &ctx.operator, ctx.model.as_deref());
    header.profile = profile;
    header.limits = limits;
    notes.extend(settings_notes.iter().cloned());
    if let Err(e) = sticky
        .post(&render::status_comment(&header, &Phase::Started))
        .await
    {
        tracing::warn!(error = %e, "the start comment is missing; continuing");
    }

    let goal = goal_for(ctx, job, trigger).await;

    // The run, with throttled progress edits.
    let request = RunRequest {
        run_id: job.run_id.clone(),
        workdir: ws.path().to_path_buf(),
        goal,
        config,
        settings_notes,
        hidden_paths: ctx.operator.hidden_paths.clone(),
        // The git directory kotef's own git uses after the run: readable (`git status`,
        // `git diff` in tests) but never writable by the agent's commands.
        protected_paths: vec![ws.git_dir().to_path_buf()],
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<StepProgress>();
    let progress = tokio::spawn(progress_updates(
        ctx.github.clone(),
        repo.clone(),
        sticky.id,
        header.clone(),
        redactor.clone(),
        ctx.progress_interval,
        rx,
    ));
    let budget = Duration::from_secs(limits.time_budget_s).saturating_add(ctx.run_grace);
    let guarded = futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(
        executor.execute(request, tx),
    ));
    let run = match tokio::time::timeout(budget, guarded).await {
        Ok(Ok(Ok(outcome))) => Ok(outcome),
        Ok(Ok(Err(e))) => Err(format!("{e:#}")),
        Ok(Err(_)) => Err("the agent crashed (internal error); see the server log".to_string()),
        Err(_) => Err(format!(
            "the run did not end within its time budget ({}s) plus {}s grace and was stopped",
            limits.time_budget_s,
            ctx.run_grace.as_secs()
        )),
    };
    // The executor has dropped its sender; wait for the last progress edit before the final one
    // (bounded: a sender the executor leaked must not hold the job).
    let mut progress = progress;
    let last_edit = ctx
        .progress_interval
        .saturating_add(Duration::from_secs(10));
    if tokio::time::timeout(last_edit, &mut progress)
        .await
        .is_err()
    {
        progress.abort();
    }

    // Commit and push whatever changed on every ending, then the pull request.
    let Published {
        branch: pushed_branch,
        pull,
        links,
        diff_stat,
    } = Publish {
        ctx,
        job,
        trigger,
        header: &header,
        clone_branch: &clone_branch,
        work_branch: &work_branch,
        redactor: &redactor,
    }
    .publish(&ws, &run, &mut notes)
    .await;
    drop(ws); // removes the clone

    let (body, status, summary) = match &run {
        Ok(outcome) => (
            render::status_comment(
                &header,
                &Phase::Finished {
                    outcome,
                    links: &links,
                    notes: &notes,
                    diff_stat: diff_stat.as_deref(),
                },
            ),
            JobStatus::Finished,
            format!(
                "{} ({})",
                outcome.summary.terminal_status,
                outcome
                    .summary
                    .stop_rule
                    .map(|r| r.as_str())
                    .unwrap_or("no stop rule")
            ),
        ),
        Err(e) => (
            render::status_comment(
                &header,
                &Phase::Failed {
                    stage: "the agent run",
                    error: e,
                    links: &links,
                    notes: &notes,
                },
            ),
            JobStatus::Failed,
            redactor.redact(e),
        ),
    };
    let posted = sticky.post(&body).await;
    JobResult {
        status,
        outcome: run.ok(),
        branch: pushed_branch,
        pull,
        pull_url: links.pull.as_ref().map(|(_, u)| u.clone()),
        comment_id: sticky.id,
        comment: sticky.last.clone(),
        message: match posted {
            Ok(()) => summary,
            Err(e) => format!("{summary}; the final comment failed: {e}"),
        },
    }
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
