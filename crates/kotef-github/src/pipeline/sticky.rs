//! The sticky status comment of one run: created on first post and edited afterwards
//! ([`Sticky`]), throttled progress edits while the executor runs ([`progress_updates`]), and
//! the final failure comment that ends a job which could not finish ([`fail`]), and the note
//! that a run waits for its installation's GitHub API budget ([`budget_wait_comment`]).

use super::{JobContext, JobResult, JobStatus};
use crate::outbound::client::{GitHub, GitHubError};
use crate::outbound::render::{self, Links, Phase, RunHeader};
use kotef_core::{IssueNumber, Redactor, RepoName, StepProgress};
use std::time::{Duration, Instant};

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

    /// A job's result that names this comment and its last body.
    pub(crate) fn result(&self, status: JobStatus, message: impl Into<String>) -> JobResult {
        JobResult {
            comment_id: self.id,
            comment: self.last.clone(),
            ..JobResult::simple(status, message)
        }
    }

    /// Finds this run's comment from an earlier attempt.
    pub(super) async fn adopt_existing(&mut self, run_id: &str) {
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

/// Ends a job that could not finish: the status comment says which `stage` failed and why
/// (with `notes`), and the result is [`JobStatus::Failed`].
pub(crate) async fn fail(
    sticky: &mut Sticky<'_>,
    header: &RunHeader,
    stage: super::Stage,
    error: &str,
    notes: &[String],
) -> JobResult {
    let body = render::status_comment(
        header,
        &Phase::Failed {
            stage: stage.as_str(),
            error,
            links: &Links::default(),
            notes,
        },
    );
    let posted = sticky.post(&body).await;
    let mut message = format!("{stage}: {}", sticky.redactor.redact(error));
    if let Err(e) = posted {
        message.push_str(&format!("; the final comment failed: {e}"));
    }
    sticky.result(JobStatus::Failed, message)
}

/// Edits the status comment as steps arrive, at most once per `interval`; ends when the
/// executor drops its sender.
pub(super) async fn progress_updates(
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

/// Waits while the installation's GitHub API budget is nearly spent (or a secondary limit
/// asked to wait), saying so in the run's status comment first.
pub(crate) async fn wait_for_api_budget(sticky: &mut Sticky<'_>, header: &RunHeader) {
    let Some((wait, budget)) = sticky.ctx.github.budget_wait(&sticky.repo) else {
        return;
    };
    if let Err(e) = sticky
        .post(&budget_wait_comment(header, wait, &budget))
        .await
    {
        tracing::warn!(error = %e, "cannot say that the run waits for the API budget");
    }
    tracing::info!(
        wait_s = wait.as_secs(),
        ?budget,
        "waiting for the installation's GitHub API budget"
    );
    tokio::time::sleep(wait).await;
}

/// The status comment of a run waiting `wait` for its installation's API `budget`.
pub(crate) fn budget_wait_comment(
    header: &RunHeader,
    wait: Duration,
    budget: &crate::outbound::client::RateBudget,
) -> String {
    let why = match budget.remaining {
        Some(left) if left < crate::outbound::client::budget::RESERVE => {
            format!("this installation has {left} GitHub API requests left until its limit resets")
        }
        _ => "GitHub asked this installation to slow down (a secondary rate limit)".to_string(),
    };
    format!(
        "{}\n### ⏳ kotef is waiting for GitHub's API budget\n\nThe run starts in about {}s: {why}.\n",
        crate::marker::marker(&crate::marker::MarkerData {
            run_id: header.run_id.clone(),
            number: header.number,
            ended: false,
        }),
        wait.as_secs().max(1)
    )
}
