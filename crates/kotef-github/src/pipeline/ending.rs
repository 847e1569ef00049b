//! Ending a job that could not end itself — it panicked, outlived its deadline, or its stored
//! form no longer reads — so its status comment never stays at "working": the comment (the one
//! the job names, else the one whose marker carries the run id) is finished with one short
//! failure text, unless it already shows an ending. Also the panic guard around a whole job.

use super::{JobContext, JobResult, JobStatus, Sticky};
use crate::outbound::render;
use crate::queue::job::Job;
use kotef_core::{IssueNumber, RepoName};
use std::future::Future;

/// What a job's comment says when kotef itself failed.
pub const INTERNAL_ERROR: &str =
    "kotef hit an internal error and stopped this run; see the server log. Comment `/kotef run` to try again.";

/// Runs `work` (a whole job); a panic anywhere in it ends the job failed with its status
/// comment finished instead of unwinding into the caller.
pub(crate) async fn guarded(
    ctx: &JobContext,
    job: &Job,
    work: impl Future<Output = JobResult>,
) -> JobResult {
    match futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(work)).await {
        Ok(result) => result,
        Err(panic) => {
            tracing::error!(panic = %panic_text(panic.as_ref()), "the job panicked");
            end_abandoned(ctx, job, INTERNAL_ERROR).await
        }
    }
}

/// The message of a panic payload.
pub(crate) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Ends `job` failed for `reason`, finishing its status comment if it has one going.
pub(crate) async fn end_abandoned(ctx: &JobContext, job: &Job, reason: &str) -> JobResult {
    finish_comment(
        ctx,
        job.repo(),
        job.number(),
        Some(&job.run_id.0),
        job.status_comment,
        reason,
    )
    .await
}

/// Finishes the status comment of a run on `repo`#`number` — comment `comment` when known,
/// else the one whose marker names `run_id` — with `reason`, when it still shows the run as
/// going; the job's result is [`JobStatus::Failed`] either way.
pub(crate) async fn finish_comment(
    ctx: &JobContext,
    repo: &RepoName,
    number: IssueNumber,
    run_id: Option<&str>,
    comment: Option<u64>,
    reason: &str,
) -> JobResult {
    let failed = JobResult::simple(JobStatus::Failed, reason);
    if comment.is_none() && run_id.is_none() {
        return failed;
    }
    let comments = match ctx.github.list_comments(repo, number).await {
        Ok(list) => list,
        Err(e) => {
            tracing::warn!(error = %e, "cannot list comments to finish the status comment");
            return failed;
        }
    };
    // The oldest comment with the run's marker: the run id is public only once kotef's own
    // comment shows it, so a copy someone else posts always comes later.
    let found = comments.iter().find(|c| {
        let body = c.body.as_deref().unwrap_or_default();
        match comment {
            Some(id) => c.id == id,
            None => render::parse_marker(body).is_some_and(|m| Some(m.run_id.as_str()) == run_id),
        }
    });
    let Some(found) = found else {
        return failed;
    };
    let body = found.body.as_deref().unwrap_or_default();
    if !render::shows_working(body) {
        return failed;
    }
    let run_id = render::parse_marker(body)
        .map(|m| m.run_id)
        .or(run_id.map(str::to_string))
        .unwrap_or_default();
    let mut sticky = Sticky {
        ctx,
        repo: repo.clone(),
        number,
        id: Some(found.id),
        redactor: ctx.redactor.clone(),
        last: None,
    };
    match sticky
        .post(&render::ended_comment(&run_id, number.0, reason))
        .await
    {
        Ok(()) => sticky.result(JobStatus::Failed, reason),
        Err(e) => sticky.result(
            JobStatus::Failed,
            format!("{reason}; the final comment failed: {e}"),
        ),
    }
}
