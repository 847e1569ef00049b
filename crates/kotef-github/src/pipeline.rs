//! One job from start to end, usable by the server's workers and by a GitHub Action entry
//! point alike: permission check, 👀 reaction, clone, the repository's config, the sticky
//! status comment (created, throttled progress edits, final edit), the executor, commit and
//! push on every ending, the draft PR, and a final comment for every accepted trigger — also
//! when the executor fails, the config is invalid or the push is rejected. In Action mode the
//! work happens in the runner's checkout (see [`JobContext::checkout`]) and the comment links
//! to the Actions run.

use crate::client::{GitHub, GitHubError, Reaction};
use crate::job::{Job, Work};
use crate::metrics::Metrics;
use crate::render::{self, Links, Phase, RunHeader};
use crate::trigger::{build_goal, fork_reason, ThreadComment, Trigger};
use crate::workspace::{co_author_trailer, issue_branch, GitSettings, Workspace};
use crate::RunExecutor;
use kotef_core::{
    IssueNumber, KotefConfig, Limits, Profile, Redactor, RepoName, RunOutcome, RunRequest,
    StepProgress, TerminalStatus,
};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracing::Instrument;

/// What every job needs, shared by all jobs of a server (or the one job of an Action).
#[derive(Clone)]
pub struct JobContext {
    pub github: GitHub,
    pub git: GitSettings,
    /// Where workspaces are cloned (temporary directories, removed after each job).
    pub work_dir: PathBuf,
    /// The model spec (`KOTEF_MODEL`) given to the executor through the run's config; it wins
    /// over the repository's `[model] name`.
    pub model: Option<String>,
    /// Least time between two progress edits of the status comment.
    pub progress_interval: Duration,
    /// Starts of one job before it is ended with a comment instead (crash recovery).
    pub max_attempts: u32,
    /// Extra time past the run's `time_budget_s` before the executor is cancelled.
    pub run_grace: Duration,
    /// Base of web links (`{web}/{owner}/{repo}/tree/{branch}`); usually the git base URL.
    pub web_base_url: String,
    /// Secrets removed from everything kotef posts.
    pub redactor: Redactor,
    pub metrics: Option<Arc<Metrics>>,
    /// An existing checkout of the repository to work in instead of a fresh clone (the
    /// Action's `GITHUB_WORKSPACE`); a fresh clone is used when it is not usable.
    pub checkout: Option<PathBuf>,
    /// A config file used instead of the repository's `kotef.toml` / `.github/kotef.toml`;
    /// a relative path is read inside the work tree.
    pub config_path: Option<PathBuf>,
    /// The GitHub Actions run doing the work, linked from the status comment.
    pub actions_run_url: Option<String>,
}

impl std::fmt::Debug for JobContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobContext")
            .field("work_dir", &self.work_dir)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl JobContext {
    /// A context with defaults for everything but the client, git settings and directory.
    pub fn new(github: GitHub, git: GitSettings, work_dir: PathBuf) -> Self {
        let web_base_url = git.base_url.trim_end_matches('/').to_string();
        Self {
            github,
            git,
            work_dir,
            model: None,
            progress_interval: Duration::from_secs(10),
            max_attempts: 2,
            run_grace: Duration::from_secs(600),
            web_base_url,
            redactor: Redactor::new(),
            metrics: None,
            checkout: None,
            config_path: None,
            actions_run_url: None,
        }
    }
}

/// How a job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    /// The executor returned an outcome (see `terminal_status`).
    Finished,
    /// Something failed before or instead of an outcome; a final comment says what.
    Failed,
    /// Not run: the sender lacks permission, or the target is closed. No comment.
    Ignored,
    /// Not run, answered with a comment (fork PR, ...).
    Rejected,
    /// Interrupted too many times by server restarts; ended with a comment.
    GaveUp,
    /// Handed to a GitHub Actions workflow (`kotef serve --executor actions`).
    Dispatched,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Finished => "finished",
            Self::Failed => "failed",
            Self::Ignored => "ignored",
            Self::Rejected => "rejected",
            Self::GaveUp => "gave_up",
            Self::Dispatched => "dispatched",
        }
    }
}

/// What `process_job` did.
#[derive(Debug, Clone)]
pub struct JobResult {
    pub status: JobStatus,
    pub outcome: Option<RunOutcome>,
    /// The branch the work was pushed to.
    pub branch: Option<String>,
    pub pull: Option<u64>,
    /// The pull request's web URL.
    pub pull_url: Option<String>,
    pub comment_id: Option<u64>,
    /// The last body kotef wrote to the status comment (redacted), e.g. for a step summary.
    pub comment: Option<String>,
    /// One line for logs and the job store.
    pub message: String,
}

impl JobResult {
    pub(crate) fn simple(status: JobStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            outcome: None,
            branch: None,
            pull: None,
            pull_url: None,
            comment_id: None,
            comment: None,
            message: message.into(),
        }
    }

    pub fn terminal_status(&self) -> Option<TerminalStatus> {
        self.outcome.as_ref().map(|o| o.summary.terminal_status)
    }

    /// The label for metrics: the terminal status, or the job status.
    pub fn metric_status(&self) -> &'static str {
        self.terminal_status()
            .map(|t| t.as_str())
            .unwrap_or(self.status.as_str())
    }
}

/// The config the run gets: the repository's file, then the job's profile and limits, then the
/// server's model.
pub fn effective_config(
    repo_config: KotefConfig,
    job: &Job,
    model: Option<&str>,
) -> (KotefConfig, Profile, Limits) {
    let mut config = repo_config;
    let profile = job.profile.or(config.profile).unwrap_or_default();
    config.profile = Some(profile);
    config.limits = job.limits.over(&config.limits);
    if let Some(m) = model {
        config.model.name = Some(m.to_string());
    }
    if let Some(t) = job.test_command.as_deref().filter(|t| !t.trim().is_empty()) {
        config.test_command = Some(t.to_string());
    }
    let limits = config.limits(profile);
    (config, profile, limits)
}

/// The sticky status comment of one run: created on first post, edited afterwards.
pub(crate) struct Sticky<'a> {
    pub(crate) ctx: &'a JobContext,
    pub(crate) repo: RepoName,
    pub(crate) number: IssueNumber,
    pub(crate) id: Option<u64>,
    pub(crate) redactor: Redactor,
    /// The last body written.
    pub(crate) last: Option<String>,
}

impl Sticky<'_> {
    pub(crate) async fn post(&mut self, body: &str) -> Result<(), String> {
        let body = self.redactor.redact(body);
        let mut r = match self.id {
            Some(id) => self.ctx.github.update_comment(&self.repo, id, &body).await,
            None => Err(GitHubError::Status {
                method: "PATCH".into(),
                path: String::new(),
                status: 404,
                message: "no comment yet".into(),
            }),
        };
        // No comment yet, or it was deleted: write a new one.
        if matches!(&r, Err(e) if e.status() == Some(404)) {
            r = self
                .ctx
                .github
                .create_comment(&self.repo, self.number, &body)
                .await
                .map(|c| {
                    self.id = Some(c.id);
                });
        }
        if r.is_ok() {
            self.last = Some(body);
        }
        r.map_err(|e| {
            tracing::error!(error = %e, "cannot write the status comment");
            self.redactor.redact(&e.to_string())
        })
    }

    /// Finds this run's comment from an earlier attempt.
    async fn adopt_existing(&mut self, run_id: &str) {
        match self.ctx.github.list_comments(&self.repo, self.number).await {
            Ok(list) => {
                self.id = list.iter().rev().find_map(|c| {
                    let m = render::parse_marker(c.body.as_deref().unwrap_or_default())?;
                    (m.run_id == run_id).then_some(c.id)
                });
            }
            Err(e) => tracing::warn!(error = %e, "cannot list comments to find the status comment"),
        }
    }
}

/// Runs one job to its end. Never panics on bad input; every failure after the permission
/// check ends in a comment on the issue or PR.
pub async fn process_job(ctx: &JobContext, job: &Job, executor: &dyn RunExecutor) -> JobResult {
    let span = tracing::info_span!(
        "job",
        run_id = %job.run_id,
        delivery = %job.delivery,
        repo = %job.repo(),
        issue = %job.number(),
    );
    let started = Instant::now();
    let result = run_job(ctx, job, executor).instrument(span.clone()).await;
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

/// The permission check and the answer to a rejected trigger, shared by the local pipeline
/// and the dispatcher: `Ok(trigger)` when the job should run, else the job's result.
pub(crate) async fn admit<'j>(ctx: &JobContext, job: &'j Job) -> Result<&'j Trigger, JobResult> {
    let repo = job.repo();
    let number = job.number();
    let sender = job.sender_login();
    match ctx.github.permission(repo, sender).await {
        Ok(p) if p.may_run() => {}
        Ok(p) => {
            return Err(JobResult::simple(
                JobStatus::Ignored,
                format!("`{sender}` has {p:?} permission; write, maintain or admin is needed"),
            ))
        }
        Err(e) => {
            return Err(JobResult::simple(
                JobStatus::Failed,
                format!(
                    "permission check failed: {}",
                    ctx.redactor.redact(&e.to_string())
                ),
            ))
        }
    }
    match &job.work {
        Work::Reject { rejection } => {
            let body = render::rejection_comment(&job.run_id.0, number.0, &rejection.reason);
            let posted = match job.status_comment {
                Some(id) => ctx.github.update_comment(repo, id, &body).await.map(|_| id),
                None => ctx
                    .github
                    .create_comment(repo, number, &body)
                    .await
                    .map(|c| c.id),
            };
            Err(match posted {
                Ok(id) => JobResult {
                    comment_id: Some(id),
                    comment: Some(body),
                    ..JobResult::simple(JobStatus::Rejected, rejection.reason.clone())
                },
                Err(e) => {
                    JobResult::simple(JobStatus::Failed, format!("cannot post the rejection: {e}"))
                }
            })
        }
        Work::Run { trigger } => Ok(trigger),
    }
}

/// Adds 👀 to what asked for the run.
pub(crate) async fn react(
    ctx: &JobContext,
    repo: &RepoName,
    number: IssueNumber,
    trigger: &Trigger,
) {
    let reaction = match trigger {
        Trigger::Command { comment_id, .. } => {
            ctx.github
                .react_to_comment(repo, *comment_id, Reaction::Eyes)
                .await
        }
        _ => {
            ctx.github
                .react_to_issue(repo, number, Reaction::Eyes)
                .await
        }
    };
    if let Err(e) = reaction {
        tracing::warn!(error = %e, "cannot add the reaction");
    }
}

/// The goal of a run: the job's override, else the issue or PR text (with the discussion up
/// to the trigger for `/kotef run`).
pub(crate) async fn goal_for(ctx: &JobContext, job: &Job, trigger: &Trigger) -> String {
    if let Some(g) = job.goal.as_deref().filter(|g| !g.trim().is_empty()) {
        return crate::sanitize::truncate_chars(
            &crate::sanitize::clean_text(g),
            crate::trigger::MAX_GOAL_CHARS,
        );
    }
    let thread = match trigger {
        Trigger::Command { .. } => match ctx.github.list_comments(job.repo(), job.number()).await {
            Ok(list) => list
                .into_iter()
                .map(|c| ThreadComment {
                    id: c.id,
                    login: c.user.login,
                    user_type: c.user.kind,
                    body: c.body.unwrap_or_default(),
                    created_at: c.created_at,
                })
                .collect(),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the discussion; the goal has the issue text only");
                Vec::new()
            }
        },
        _ => Vec::new(),
    };
    build_goal(trigger, &thread)
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
        return JobResult {
            comment_id: sticky.id,
            comment: sticky.last.clone(),
            ..JobResult::simple(
                JobStatus::GaveUp,
                posted
                    .err()
                    .unwrap_or_else(|| "gave up after restarts".into()),
            )
        };
    }

    // 👀 on what asked for the run (a dispatching server already did).
    if job.status_comment.is_none() {
        react(ctx, &repo, number, trigger).await;
    }

    // Which branch to clone and which to work on.
    let (clone_branch, work_branch) = match resolve_branches(ctx, &repo, trigger).await {
        Ok(Resolved::Branches(c, w)) => (c, w),
        Ok(Resolved::Reject(reason)) => {
            let body = render::rejection_comment(&job.run_id.0, number.0, &reason);
            let posted = sticky.post(&body).await;
            return JobResult {
                comment_id: sticky.id,
                comment: sticky.last.clone(),
                ..JobResult::simple(JobStatus::Rejected, posted.err().unwrap_or(reason))
            };
        }
        Ok(Resolved::Ignore(reason)) => return JobResult::simple(JobStatus::Ignored, reason),
        Err(e) => {
            return fail(
                &mut sticky,
                &header,
                "looking up the branch",
                &e,
                &Links::default(),
                &[],
            )
            .await
        }
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
                &Links::default(),
                &[],
            )
            .await
        }
    };
    redactor.add(token.expose());
    sticky.redactor = redactor.clone();

    let mut notes = Vec::new();
    let adopted = match &ctx.checkout {
        Some(dir) => {
            match Workspace::adopt(dir, &ctx.git, &repo, Some(&token), &clone_branch).await {
                Ok(ws) => Some(ws),
                Err(e) => {
                    tracing::warn!(error = %e, "the checked-out workspace is not usable; cloning");
                    notes.push(format!(
                        "the checked-out workspace was not used ({e}); kotef worked in a fresh clone"
                    ));
                    None
                }
            }
        }
        None => None,
    };
    let ws = match adopted {
        Some(ws) => Ok(ws),
        None => Workspace::clone(&ctx.work_dir, &ctx.git, &repo, Some(&token), &clone_branch).await,
    };
    let mut ws = match ws {
        Ok(ws) => ws,
        Err(e) => {
            return fail(
                &mut sticky,
                &header,
                "cloning the repository",
                &e.to_string(),
                &Links::default(),
                &notes,
            )
            .await
        }
    };
    // The config comes from the cloned branch (the base branch for issues), read before the
    // kotef branch, which earlier runs wrote to, is checked out.
    let loaded = match &ctx.config_path {
        Some(p) => {
            let full = if p.is_absolute() {
                p.clone()
            } else {
                ws.path().join(p)
            };
            std::fs::read_to_string(&full)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))
                .and_then(|text| KotefConfig::parse(&text, p).map_err(|e| e.to_string()))
        }
        None => KotefConfig::load_from_repo(ws.path())
            .map(|(c, _)| c)
            .map_err(|e| e.to_string()),
    };
    let repo_config = match loaded {
        Ok(c) => c,
        Err(e) => {
            return fail(
                &mut sticky,
                &header,
                "reading the repository's kotef config",
                &e,
                &Links::default(),
                &notes,
            )
            .await
        }
    };
    if let Err(e) = ws.checkout_work_branch(&work_branch).await {
        return fail(
            &mut sticky,
            &header,
            "preparing the branch",
            &e.to_string(),
            &Links::default(),
            &notes,
        )
        .await;
    }
    if let Err(e) = ws.freeze_git_config() {
        return fail(
            &mut sticky,
            &header,
            "preparing the branch",
            &e.to_string(),
            &Links::default(),
            &notes,
        )
        .await;
    }
    let (config, profile, limits) = effective_config(repo_config, job, ctx.model.as_deref());
    header.profile = profile;
    header.limits = limits;
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
    // The executor has dropped its sender; wait for the last progress edit before the final one.
    let _ = progress.await;

    // Commit and push whatever changed, on every ending.
    let target = trigger.target();
    let mut message = format!(
        "kotef: {} (#{})\n\n",
        target.title.replace(['\r', '\n'], " "),
        number
    );
    match &run {
        Ok(o) => message.push_str(&format!(
            "Run {} ended {}{}.\n",
            job.run_id,
            o.summary.terminal_status,
            o.summary
                .stop_rule
                .map(|r| format!(" (stop rule {r})"))
                .unwrap_or_default()
        )),
        Err(_) => message.push_str(&format!(
            "Run {} failed before it could finish.\n",
            job.run_id
        )),
    }
    message.push_str(&format!(
        "\n{}\n",
        co_author_trailer(&target.sender.login, target.sender.id)
    ));
    let mut links = Links::default();
    let mut pushed_branch = None;
    match push_work(&ws, &work_branch, &job.run_id.0, &message).await {
        Ok(Some(p)) => {
            if p.retried {
                notes.push(if p.branch == work_branch {
                    "the first push was rejected; kotef fetched, rebased and pushed again".to_string()
                } else {
                    format!("the push to `{work_branch}` was rejected and could not be rebased; the work is on `{}`", p.branch)
                });
            }
            pushed_branch = Some(p.branch);
        }
        Ok(None) => notes.push("the run changed nothing, so nothing was pushed".into()),
        Err(e) => notes.push(format!("pushing the work failed: {e}")),
    }
    let web = format!("{}/{}/{}", ctx.web_base_url, repo.owner, repo.name);
    if let Some(b) = &pushed_branch {
        links.branch = Some((b.clone(), format!("{web}/tree/{b}")));
        if let Ok(o) = &run {
            if !o.report_rel_path.is_empty() {
                links.report = Some((
                    o.report_rel_path.clone(),
                    format!("{web}/blob/{b}/{}", o.report_rel_path),
                ));
            }
        }
    }

    // The draft PR (issue runs) or the PR itself (PR runs).
    let mut pull = None;
    if trigger.is_pull_request() {
        pull = Some(number.0);
        links.pull = Some((number.0, format!("{web}/pull/{number}")));
    } else if let (Some(branch), Ok(outcome)) = (&pushed_branch, &run) {
        match open_or_update_pull(
            ctx,
            &repo,
            &header,
            target.title.as_str(),
            branch,
            &clone_branch,
            outcome,
            &links,
            &redactor,
        )
        .await
        {
            Ok((n, url)) => {
                pull = Some(n);
                links.pull = Some((n, url));
            }
            Err(e) => notes.push(format!("opening the pull request failed: {e}")),
        }
    }
    drop(ws); // removes the clone

    let (body, status, summary) = match &run {
        Ok(outcome) => (
            render::status_comment(
                &header,
                &Phase::Finished {
                    outcome,
                    links: &links,
                    notes: &notes,
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

async fn fail(
    sticky: &mut Sticky<'_>,
    header: &RunHeader,
    stage: &str,
    error: &str,
    links: &Links,
    notes: &[String],
) -> JobResult {
    let body = render::status_comment(
        header,
        &Phase::Failed {
            stage,
            error,
            links,
            notes,
        },
    );
    let posted = sticky.post(&body).await;
    let mut message = format!("{stage}: {}", sticky.redactor.redact(error));
    if let Err(e) = posted {
        message.push_str(&format!("; the final comment failed: {e}"));
    }
    JobResult {
        comment_id: sticky.id,
        comment: sticky.last.clone(),
        ..JobResult::simple(JobStatus::Failed, message)
    }
}

enum Resolved {
    /// (branch to clone, branch to work on)
    Branches(String, String),
    Reject(String),
    Ignore(String),
}

async fn resolve_branches(
    ctx: &JobContext,
    repo: &RepoName,
    trigger: &Trigger,
) -> Result<Resolved, String> {
    let target = trigger.target();
    match trigger {
        Trigger::PullRequestLabeled { head_ref, .. } => {
            Ok(Resolved::Branches(head_ref.clone(), head_ref.clone()))
        }
        Trigger::Command {
            is_pull_request: true,
            ..
        }
        | Trigger::Dispatch {
            is_pull_request: true,
            ..
        } => {
            let pr = ctx
                .github
                .pull(repo, target.number)
                .await
                .map_err(|e| e.to_string())?;
            if pr.state.as_deref() == Some("closed") {
                return Ok(Resolved::Ignore("the pull request is closed".into()));
            }
            let head_repo = pr.head.repo.as_ref().map(|r| r.full_name.as_str());
            if head_repo != Some(repo.to_string().as_str()) {
                return Ok(Resolved::Reject(fork_reason(head_repo)));
            }
            Ok(Resolved::Branches(pr.head.name.clone(), pr.head.name))
        }
        _ => {
            let base = match &target.default_branch {
                Some(b) => b.clone(),
                None => {
                    ctx.github
                        .repository(repo)
                        .await
                        .map_err(|e| e.to_string())?
                        .default_branch
                }
            };
            Ok(Resolved::Branches(base, issue_branch(target.number)))
        }
    }
}

async fn push_work(
    ws: &Workspace,
    work_branch: &str,
    run_id: &str,
    message: &str,
) -> Result<Option<crate::workspace::Pushed>, String> {
    let committed = ws.commit_all(message).await.map_err(|e| e.to_string())?;
    if !committed
        && ws
            .commits_ahead_of_base()
            .await
            .map_err(|e| e.to_string())?
            == 0
    {
        return Ok(None);
    }
    let fallback = format!("{work_branch}-{run_id}");
    ws.push(&fallback)
        .await
        .map(Some)
        .map_err(|e| e.to_string())
}

#[allow(clippy::too_many_arguments)]
async fn open_or_update_pull(
    ctx: &JobContext,
    repo: &RepoName,
    header: &RunHeader,
    title: &str,
    branch: &str,
    base: &str,
    outcome: &RunOutcome,
    links: &Links,
    redactor: &Redactor,
) -> Result<(u64, String), String> {
    let title = render::pull_title(header.number, title);
    let body = redactor.redact(&render::pull_body(header, outcome, links));
    let existing = ctx
        .github
        .find_pull_by_head(repo, branch)
        .await
        .map_err(|e| e.to_string())?;
    let web = format!("{}/{}/{}", ctx.web_base_url, repo.owner, repo.name);
    if let Some(pr) = existing {
        ctx.github
            .update_pull(repo, pr.number, &title, &body)
            .await
            .map_err(|e| e.to_string())?;
        let url = pr
            .html_url
            .unwrap_or_else(|| format!("{web}/pull/{}", pr.number));
        return Ok((pr.number, url));
    }
    let pr = ctx
        .github
        .create_draft_pull(repo, branch, base, &title, &body)
        .await
        .map_err(|e| e.to_string())?;
    let url = pr
        .html_url
        .unwrap_or_else(|| format!("{web}/pull/{}", pr.number));
    Ok((pr.number, url))
}

/// Edits the status comment as steps arrive, at most once per `interval`; ends when the
/// executor drops its sender.
async fn progress_updates(
    github: GitHub,
    repo: RepoName,
    comment_id: Option<u64>,
    header: RunHeader,
    redactor: Redactor,
    interval: Duration,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<StepProgress>,
) {
    let mut steps: Vec<StepProgress> = Vec::new();
    let mut last_edit: Option<Instant> = None;
    let mut dirty = false;
    loop {
        let wait = match (dirty, last_edit) {
            (true, Some(t)) => interval.saturating_sub(t.elapsed()),
            (true, None) => Duration::ZERO,
            (false, _) => Duration::from_secs(3600),
        };
        tokio::select! {
            msg = rx.recv() => match msg {
                Some(s) => {
                    steps.push(s);
                    if steps.len() > 2 * render::PROGRESS_LINES {
                        steps.drain(..steps.len() - render::PROGRESS_LINES);
                    }
                    dirty = true;
                }
                None => return,
            },
            _ = tokio::time::sleep(wait), if dirty => {
                if let Some(id) = comment_id {
                    let body = redactor.redact(&render::status_comment(&header, &Phase::Progress { steps: &steps }));
                    if let Err(e) = github.update_comment(&repo, id, &body).await {
                        tracing::warn!(error = %e, "cannot update the progress comment");
                    }
                }
                last_edit = Some(Instant::now());
                dirty = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trigger::{Actor, Target};
    use kotef_core::DeliveryId;

    #[test]
    fn job_settings_win_over_the_repository_config() {
        let target = Target {
            repo: RepoName::new("o", "r"),
            default_branch: None,
            number: IssueNumber(1),
            title: "t".into(),
            body: "b".into(),
            sender: Actor {
                login: "u".into(),
                id: 1,
            },
        };
        let mut job = Job::new(
            DeliveryId("d".into()),
            Work::Run {
                trigger: Trigger::IssueLabeled {
                    target,
                    label: "kotef".into(),
                },
            },
            "kotef",
        );
        job.limits.max_steps = Some(9);
        let repo_config = KotefConfig::parse(
            "profile = \"yolo\"\n[limits]\nmax_steps = 50\nfix_attempts = 1\n[model]\nname = \"openai:x\"\n",
            std::path::Path::new("kotef.toml"),
        )
        .unwrap();
        let (c, p, l) = effective_config(repo_config, &job, Some("scripted:/s.json"));
        assert_eq!(p, Profile::Yolo);
        assert_eq!(l.max_steps, 9);
        assert_eq!(l.fix_attempts, 1);
        assert_eq!(c.model.name.as_deref(), Some("scripted:/s.json"));
        job.profile = Some(Profile::Strict);
        let (_, p, _) = effective_config(KotefConfig::default(), &job, None);
        assert_eq!(p, Profile::Strict);
    }
}
