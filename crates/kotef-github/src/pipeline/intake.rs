//! What a job runs on, before any work: the permission check and the answer to a rejected
//! trigger ([`admit`]), the 👀 reaction ([`react`]), the goal ([`goal_for`]) and which branch
//! to clone and which to work on ([`resolve_branches`]). Shared by the local pipeline and the
//! dispatcher.

use super::{JobContext, JobResult, JobStatus};
use crate::inbound::decide::fork_reason;
use crate::inbound::goal::{build_goal, PullContext, ThreadComment};
use crate::inbound::trigger::Trigger;
use crate::outbound::client::Reaction;
use crate::outbound::render;
use crate::outbound::workspace::{prefixed_issue_branch, DEFAULT_BRANCH_PREFIX};
use crate::queue::job::{Job, Work};
use kotef_core::{IssueNumber, RepoName};

/// The permission check and the answer to a rejected trigger, shared by the local pipeline
/// and the dispatcher: `Ok(trigger)` when the job should run, else the job's result.
pub(crate) async fn admit<'j>(ctx: &JobContext, job: &'j Job) -> Result<&'j Trigger, JobResult> {
    let repo = job.repo();
    let number = job.number();
    let sender = job.sender_login();
    if let Work::Run { trigger } = &job.work {
        if let Some(label) = trigger.label() {
            if !label.eq_ignore_ascii_case(&job.trigger_label) {
                match repository_label(ctx, trigger).await {
                    Some(own) if own.eq_ignore_ascii_case(label) => {}
                    own => {
                        return Err(JobResult::simple(
                            JobStatus::Ignored,
                            format!(
                                "label `{label}` is neither the server's trigger label `{}` nor the repository's ({})",
                                job.trigger_label,
                                own.map(|l| format!("`{l}`")).unwrap_or_else(|| "none set".into())
                            ),
                        ))
                    }
                }
            }
        }
    }
    match ctx.github.permission(repo, sender).await {
        Ok(p) if p.may_run() => {}
        Ok(p) => {
            let why =
                format!("`{sender}` has {p:?} permission; write, maintain or admin is needed");
            let replied = reply_to_refusal(ctx, repo, number, sender, &format!("{p:?}")).await;
            return Err(JobResult::simple(
                JobStatus::Ignored,
                format!("{why} ({replied})"),
            ));
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

/// One short reply on the issue saying why a trigger was refused, unless one was posted there
/// within the last hour (a refusal is visible, never a flood). Returns what happened, for the
/// job's result.
async fn reply_to_refusal(
    ctx: &JobContext,
    repo: &RepoName,
    number: IssueNumber,
    sender: &str,
    permission: &str,
) -> &'static str {
    let comments = match ctx.github.list_comments(repo, number).await {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the comments to rate-limit a refusal reply");
            return "no reply: the comments could not be read";
        }
    };
    let seen: Vec<_> = comments
        .into_iter()
        .map(|c| (c.body.unwrap_or_default(), c.created_at))
        .collect();
    if render::refused_recently(&seen, chrono::Utc::now()) {
        return "a refusal was answered here within the hour";
    }
    let body = render::refusal_comment(sender, &permission.to_ascii_lowercase());
    match ctx.github.create_comment(repo, number, &body).await {
        Ok(_) => "replied on the issue",
        Err(e) => {
            tracing::warn!(error = %e, "cannot post the refusal reply");
            "the refusal reply failed"
        }
    }
}

/// The repository's own `trigger_label`, read from its default branch through the contents
/// API (nothing is cloned for a label that is not kotef's).
async fn repository_label(ctx: &JobContext, trigger: &Trigger) -> Option<String> {
    let target = trigger.target();
    let branch = match &target.default_branch {
        Some(b) => b.clone(),
        None => {
            ctx.github
                .repository(&target.repo)
                .await
                .ok()?
                .default_branch
        }
    };
    for path in kotef_core::config::CONFIG_FILES {
        match ctx.github.file_content(&target.repo, path, &branch).await {
            Ok(Some(text)) => {
                return kotef_core::KotefConfig::parse(&text, std::path::Path::new(path))
                    .ok()?
                    .trigger_label
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the repository's config for its trigger label");
                return None;
            }
        }
    }
    None
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
        Trigger::ReviewComment { comment_id, .. } => {
            ctx.github
                .react_to_review_comment(repo, *comment_id, Reaction::Eyes)
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
        return crate::text::truncate_chars(
            &crate::inbound::sanitize::visible_text(g),
            crate::inbound::goal::MAX_GOAL_CHARS,
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
                    association: c.author_association,
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
    let pull = match trigger.is_pull_request() {
        true => Some(pull_context(ctx, job).await),
        false => None,
    };
    build_goal(trigger, &thread, pull.as_ref())
}

/// The diff and review comments of the job's pull request (what could not be read is left
/// out, with a warning in the log).
async fn pull_context(ctx: &JobContext, job: &Job) -> PullContext {
    let (files, comments) = tokio::join!(
        ctx.github.pull_files(job.repo(), job.number()),
        ctx.github.pull_review_comments(job.repo(), job.number())
    );
    PullContext {
        files: files.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "cannot read the pull request's diff");
            Vec::new()
        }),
        review_comments: comments.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "cannot read the pull request's review comments");
            Vec::new()
        }),
    }
}

/// The branches of a job.
pub(super) struct Branches {
    /// The branch cloned (a PR's head, else the base branch).
    pub clone: String,
    /// The branch work is committed to.
    pub work: String,
    /// The branch the config and instructions are read from: the base branch, never a
    /// PR's head.
    pub trusted: String,
}

/// Where a job works, or why it does not run.
pub(super) enum Resolved {
    Branches(Branches),
    Reject(String),
    Ignore(String),
}

/// Which branch to clone, which to work on and which to trust: the PR's own head for PR runs
/// (closed PRs are ignored, fork PRs rejected) with its base trusted, else the base branch (the
/// job's `base_branch`, else the repository's default) and kotef's issue branch (under the
/// job's `branch_prefix`).
pub(super) async fn resolve_branches(
    ctx: &JobContext,
    job: &Job,
    trigger: &Trigger,
) -> Result<Resolved, String> {
    let repo = job.repo();
    let target = trigger.target();
    if let Some((head, base)) = trigger.pull_branches() {
        return Ok(Resolved::Branches(Branches {
            clone: head.to_string(),
            work: head.to_string(),
            trusted: base.to_string(),
        }));
    }
    match trigger {
        Trigger::Command {
            is_pull_request: true,
            ..
        }
        | Trigger::Dispatch {
            is_pull_request: true,
            ..
        }
        | Trigger::IssueLabeled {
            pull_request: true, ..
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
            Ok(Resolved::Branches(Branches {
                clone: pr.head.name.clone(),
                work: pr.head.name,
                trusted: pr.base.name,
            }))
        }
        _ => {
            let base = match job.base_branch.as_ref().or(target.default_branch.as_ref()) {
                Some(b) => b.clone(),
                None => {
                    ctx.github
                        .repository(repo)
                        .await
                        .map_err(|e| e.to_string())?
                        .default_branch
                }
            };
            Ok(Resolved::Branches(Branches {
                clone: base.clone(),
                work: prefixed_issue_branch(
                    job.branch_prefix
                        .as_deref()
                        .or(ctx.operator.branch_prefix.as_deref())
                        .unwrap_or(DEFAULT_BRANCH_PREFIX),
                    target.number,
                ),
                trusted: base,
            }))
        }
    }
}
