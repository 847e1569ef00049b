//! The stages of one admitted job, in order: the restart check, the preparation (branches,
//! git token, work tree, the repository's config, the work branch, the effective settings
//! and the start comment), the run with its progress edits, and the publication with the final
//! comment. A stage that cannot go on returns one [`Halt`]; [`JobRun::halted`] is the one place
//! a failed stage's comment is written.

use super::config::{instruction_files, load_repo_config};
use super::intake::{resolve_branches, Branches, Resolved};
use super::publish::{Publish, Published};
use super::sticky::progress_updates;
use super::{effective_config, fail, goal_for, open_workspace, Effective, Sticky};
use super::{JobContext, JobResult, JobStatus, RunError, Stage};
use crate::inbound::trigger::Trigger;
use crate::outbound::render::{self, DiffStat, Links, Phase, RunHeader};
use crate::outbound::workspace::Workspace;
use crate::queue::job::Job;
use crate::secret::ExposeSecret;
use crate::RunExecutor;
use kotef_core::{KotefConfig, Limits, Redactor, RunOutcome, RunRequest, StepProgress};
use std::time::Duration;

/// Why a job stops before or instead of its run.
pub(super) enum Halt {
    /// The ending is decided and written already (a rejection, an ignored trigger, giving up
    /// after restarts).
    Ended(Box<JobResult>),
    /// A stage failed; its failure comment is still to be written.
    Failed { stage: Stage, error: String },
}

impl Halt {
    fn ended(result: JobResult) -> Self {
        Halt::Ended(Box::new(result))
    }
}

/// Names the stage of a failed step.
trait AtStage<T> {
    fn at(self, stage: Stage) -> Result<T, Halt>;
}

impl<T, E: std::fmt::Display> AtStage<T> for Result<T, E> {
    fn at(self, stage: Stage) -> Result<T, Halt> {
        self.map_err(|e| Halt::Failed {
            stage,
            error: e.to_string(),
        })
    }
}

/// What the run needs from the preparation.
pub(super) struct Prepared {
    ws: Workspace,
    clone_branch: String,
    work_branch: String,
    config: KotefConfig,
    settings_notes: Vec<String>,
    limits: Limits,
}

/// One admitted job on its way: the status comment, its header, the redactor (with the git
/// token once there is one) and the notes for the final comment.
pub(super) struct JobRun<'a> {
    ctx: &'a JobContext,
    job: &'a Job,
    trigger: &'a Trigger,
    sticky: Sticky<'a>,
    header: RunHeader,
    redactor: Redactor,
    notes: Vec<String>,
}

impl<'a> JobRun<'a> {
    pub(super) fn new(ctx: &'a JobContext, job: &'a Job, trigger: &'a Trigger) -> Self {
        let profile = job.profile.unwrap_or_default();
        let mut limits = Limits::for_profile(profile);
        limits.apply(&job.limits);
        let header = RunHeader {
            run_id: job.run_id.0.clone(),
            number: job.number().0,
            is_pull_request: trigger.is_pull_request(),
            branch: String::new(),
            profile,
            limits,
            model: ctx.model.clone(),
            requested_by: job.sender_login().to_string(),
            actions_run: ctx.actions_run_url.clone(),
        };
        JobRun {
            ctx,
            job,
            trigger,
            sticky: Sticky {
                ctx,
                repo: job.repo().clone(),
                number: job.number(),
                id: job.status_comment,
                redactor: ctx.redactor.clone(),
                last: None,
            },
            header,
            redactor: ctx.redactor.clone(),
            notes: Vec::new(),
        }
    }

    /// The job's result when it stopped at `halt`: a failed stage gets its failure comment here.
    pub(super) async fn halted(mut self, halt: Halt) -> JobResult {
        match halt {
            Halt::Ended(result) => *result,
            Halt::Failed { stage, error } => {
                fail(&mut self.sticky, &self.header, stage, &error, &self.notes).await
            }
        }
    }

    /// Waits while the installation's GitHub API budget is nearly spent, saying so first.
    pub(super) async fn wait_for_api_budget(&mut self) {
        super::sticky::wait_for_api_budget(&mut self.sticky, &self.header).await;
    }

    /// A retried job finds the status comment of its earlier attempt, and a job the server
    /// stopped too often gives up with a comment that says so.
    pub(super) async fn check_restarts(&mut self) -> Result<(), Halt> {
        let job = self.job;
        if job.attempts > 1 && self.sticky.id.is_none() {
            self.sticky.adopt_existing(&job.run_id.0).await;
        }
        if job.attempts <= self.ctx.max_attempts {
            return Ok(());
        }
        let error = format!(
            "The server stopped during this run {} times, so kotef gave up. Add the label again or comment `/kotef run` to start a new run.",
            job.attempts - 1
        );
        let body = render::status_comment(
            &self.header,
            &Phase::Failed {
                stage: Stage::Restarts.as_str(),
                error: &error,
                links: &Links::default(),
                notes: &[],
            },
        );
        let posted = self.sticky.post(&body).await;
        Err(Halt::ended(
            self.sticky.result(
                JobStatus::GaveUp,
                posted
                    .err()
                    .unwrap_or_else(|| "gave up after restarts".into()),
            ),
        ))
    }

    /// Everything before the run: branches, token, work tree, config, work branch, settings,
    /// and the start comment.
    pub(super) async fn prepare(&mut self) -> Result<Prepared, Halt> {
        let (ctx, job) = (self.ctx, self.job);
        let repo = job.repo().clone();
        // Which branch to clone and which to work on.
        let Branches {
            clone: clone_branch,
            work: work_branch,
            trusted: trusted_branch,
        } = match resolve_branches(ctx, job, self.trigger)
            .await
            .at(Stage::LookingUpBranch)?
        {
            Resolved::Branches(b) => b,
            Resolved::Reject(reason) => {
                let body = render::rejection_comment(&job.run_id.0, job.number().0, &reason);
                let posted = self.sticky.post(&body).await;
                let message = posted.err().unwrap_or(reason);
                return Err(Halt::ended(
                    self.sticky.result(JobStatus::Rejected, message),
                ));
            }
            Resolved::Ignore(reason) => {
                return Err(Halt::ended(JobResult::simple(JobStatus::Ignored, reason)))
            }
        };
        self.header.branch = work_branch.clone();
        let token = ctx.github.git_token(&repo).await.at(Stage::GitToken)?;
        self.redactor.add(token.expose_secret());
        self.sticky.redactor = self.redactor.clone();
        let mut ws = open_workspace(ctx, &repo, &token, &clone_branch, &mut self.notes)
            .await
            .at(Stage::Cloning)?;
        // The config comes from the trusted branch (the base branch, also for pull requests),
        // read before the kotef branch, which earlier runs wrote to, is checked out.
        let mut repo_config = load_repo_config(ctx.config_path.as_ref(), &ws, &trusted_branch)
            .await
            .at(Stage::RepoConfig)?;
        repo_config.add_instruction_files(&instruction_files(&ws, &trusted_branch).await);
        ws.checkout_work_branch(&work_branch)
            .await
            .and_then(|()| ws.freeze_git_config())
            .at(Stage::PreparingBranch)?;
        let Effective {
            config,
            profile,
            limits,
            notes: settings_notes,
        } = effective_config(repo_config, job, &ctx.operator, ctx.model.as_deref());
        self.header.profile = profile;
        self.header.limits = limits;
        self.notes.extend(settings_notes.iter().cloned());
        let started = render::status_comment(&self.header, &Phase::Started);
        if let Err(e) = self.sticky.post(&started).await {
            tracing::warn!(error = %e, "the start comment is missing; continuing");
        }
        Ok(Prepared {
            ws,
            clone_branch,
            work_branch,
            config,
            settings_notes,
            limits,
        })
    }

    /// The agent's run, with throttled progress edits, bounded by its time budget plus grace;
    /// a crash or an overrun is an error, not a panic.
    pub(super) async fn run(
        &self,
        p: &Prepared,
        executor: &dyn RunExecutor,
    ) -> Result<RunOutcome, RunError> {
        let ctx = self.ctx;
        let request = RunRequest {
            run_id: self.job.run_id.clone(),
            workdir: p.ws.path().to_path_buf(),
            goal: goal_for(ctx, self.job, self.trigger).await,
            config: p.config.clone(),
            settings_notes: p.settings_notes.clone(),
            hidden_paths: ctx.operator.hidden_paths.clone(),
            // The git directory kotef's own git uses after the run: readable (`git status`,
            // `git diff` in tests) but never writable by the agent's commands.
            protected_paths: vec![p.ws.git_dir().to_path_buf()],
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<StepProgress>();
        let mut progress = tokio::spawn(progress_updates(
            ctx.github.clone(),
            self.job.repo().clone(),
            self.sticky.id,
            self.header.clone(),
            self.redactor.clone(),
            ctx.progress_interval,
            rx,
        ));
        let budget = Duration::from_secs(p.limits.time_budget_s).saturating_add(ctx.run_grace);
        let guarded = futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(
            executor.execute(request, tx),
        ));
        let run = match tokio::time::timeout(budget, guarded).await {
            Err(_elapsed) => Err(RunError::Overran {
                budget_s: p.limits.time_budget_s,
                grace_s: ctx.run_grace.as_secs(),
            }),
            Ok(Err(_panic)) => Err(RunError::Crashed),
            Ok(Ok(ran)) => ran.map_err(|e| RunError::Failed(format!("{e:#}"))),
        };
        // The executor has dropped its sender; wait for the last progress edit before the final
        // one (bounded: a sender the executor leaked must not hold the job).
        let last_edit = ctx
            .progress_interval
            .saturating_add(Duration::from_secs(10));
        if tokio::time::timeout(last_edit, &mut progress)
            .await
            .is_err()
        {
            progress.abort();
        }
        run
    }

    /// Commits and pushes whatever changed on every ending, opens or updates the pull request,
    /// removes the clone and writes the final comment.
    pub(super) async fn finish(
        mut self,
        p: Prepared,
        run: Result<RunOutcome, RunError>,
        executor: &dyn RunExecutor,
    ) -> JobResult {
        let commit_transcript = p.config.report.commit_transcript.unwrap_or(false);
        let transcript = super::record::take(
            p.ws.path(),
            &run,
            commit_transcript,
            executor,
            &mut self.notes,
        );
        let Published {
            branch: pushed_branch,
            pull,
            links,
            diff_stat,
            sdd_files,
            diff,
            not_pushed,
        } = Publish {
            ctx: self.ctx,
            job: self.job,
            trigger: self.trigger,
            header: &self.header,
            clone_branch: &p.clone_branch,
            work_branch: &p.work_branch,
            redactor: &self.redactor,
            transcript: transcript.as_ref(),
        }
        .publish(&p.ws, &run, &mut self.notes)
        .await;
        drop(p); // removes the clone
        if let Some(t) = transcript {
            let record = diff_stat.as_deref().map(|stat| {
                super::record::diff_record(stat, sdd_files, diff.as_deref().unwrap_or(""))
            });
            super::record::keep(self.ctx, t, record.as_slice(), executor, &mut self.notes);
        }
        if let (Some(why), Err(_)) = (&not_pushed, &run) {
            self.notes.push(format!("pushing the work failed: {why}"));
        }
        let (body, status, summary) = match &run {
            Ok(outcome) => (
                render::status_comment(
                    &self.header,
                    &Phase::Finished {
                        outcome,
                        links: &links,
                        notes: &self.notes,
                        diff_stat: diff_stat
                            .as_deref()
                            .map(|code| DiffStat { code, sdd_files }),
                        not_pushed: not_pushed.as_deref(),
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
                    &self.header,
                    &Phase::Failed {
                        stage: Stage::AgentRun.as_str(),
                        error: &e.to_string(),
                        links: &links,
                        notes: &self.notes,
                    },
                ),
                JobStatus::Failed,
                self.redactor.redact(&e.to_string()),
            ),
        };
        let not_pushed = not_pushed.map(|why| self.redactor.redact(&why));
        let summary = match (&not_pushed, &run) {
            (Some(why), Ok(_)) => format!("{summary}; the changes were not pushed: {why}"),
            _ => summary,
        };
        let posted = self.sticky.post(&body).await;
        JobResult {
            status,
            outcome: run.ok(),
            branch: pushed_branch,
            pull,
            pull_url: links.pull.as_ref().map(|(_, u)| u.clone()),
            comment_id: self.sticky.id,
            comment: self.sticky.last.clone(),
            not_pushed,
            message: match posted {
                Ok(()) => summary,
                Err(e) => format!("{summary}; the final comment failed: {e}"),
            },
        }
    }
}
