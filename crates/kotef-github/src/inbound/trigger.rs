//! The edge's one domain event: what a delivery asks for ([`Admission`]), the [`Trigger`] that
//! starts a run and who and what it is about. The payloads come in through
//! [`super::payload`], are judged in [`super::decide`], and become the agent's goal in
//! [`super::goal`].

use chrono::{DateTime, Utc};
use kotef_core::{IssueNumber, RepoName};
use serde::{Deserialize, Serialize};

/// Who caused an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    pub login: String,
    pub id: u64,
}

/// The issue or pull request a trigger is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub repo: RepoName,
    /// The repository's default branch, as the payload reported it.
    pub default_branch: Option<String>,
    pub number: IssueNumber,
    /// Title, cleaned of invisible characters.
    pub title: String,
    /// Body, cleaned of HTML comments and invisible characters.
    pub body: String,
    pub sender: Actor,
    /// Who wrote the issue or PR (absent in jobs stored by older versions).
    #[serde(default)]
    pub author: Option<Author>,
}

/// The writer of an issue, PR or comment and their association with the repository
/// (`OWNER`, `MEMBER`, `COLLABORATOR`, `CONTRIBUTOR`, `NONE`, ...), so the agent can tell
/// maintainers from passers-by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    pub login: String,
    #[serde(default)]
    pub association: Option<String>,
}

impl Author {
    /// `@login (ASSOCIATION)`, or `@login` when the association is unknown.
    pub fn label(&self) -> String {
        match self.association.as_deref().filter(|a| !a.is_empty()) {
            Some(a) => format!("@{} ({a})", self.login),
            None => format!("@{}", self.login),
        }
    }
}

/// Something that asks for a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Trigger {
    /// `issues.labeled` with the trigger label, on an issue or (when `pull_request`) on a pull
    /// request whose branches are looked up when the run starts.
    IssueLabeled {
        target: Target,
        label: String,
        #[serde(default)]
        pull_request: bool,
    },
    /// `pull_request.labeled` with the trigger label on a same-repository pull request.
    PullRequestLabeled {
        target: Target,
        label: String,
        head_ref: String,
        base_ref: String,
    },
    /// `issue_comment.created` with `/kotef run [extra]` on an issue or a pull request.
    Command {
        target: Target,
        is_pull_request: bool,
        comment_id: u64,
        created_at: DateTime<Utc>,
        extra_goal: String,
    },
    /// `workflow_dispatch` of the kotef workflow (by a person, or by `kotef serve --executor
    /// actions`) naming an issue or pull request.
    Dispatch {
        target: Target,
        is_pull_request: bool,
    },
    /// `pull_request_review_comment.created` with `/kotef run [extra]` on a line of a
    /// same-repository pull request: the agent gets the file, the lines and the comment.
    ReviewComment {
        target: Target,
        head_ref: String,
        base_ref: String,
        comment_id: u64,
        extra_goal: String,
        code: Box<CodeComment>,
    },
    /// `pull_request_review.submitted` whose body holds `/kotef run [extra]`.
    Review {
        target: Target,
        head_ref: String,
        base_ref: String,
        review_id: u64,
        extra_goal: String,
        /// The review's visible text.
        body: String,
    },
    /// `issues.assigned` to the assignee kotef answers to.
    IssueAssigned { target: Target },
}

/// A review comment on lines of a pull request's diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeComment {
    pub path: String,
    pub start_line: Option<u64>,
    pub line: Option<u64>,
    /// The diff around the comment (capped).
    pub diff_hunk: String,
    /// The comment's visible text.
    pub body: String,
    pub author: Author,
}

impl CodeComment {
    /// `path` with its lines: `src/a.rs` line 7, or lines 3–7.
    pub fn location(&self) -> String {
        match (self.start_line, self.line) {
            (Some(a), Some(b)) if a != b => format!("`{}` lines {a}–{b}", self.path),
            (_, Some(b)) => format!("`{}` line {b}", self.path),
            _ => format!("`{}`", self.path),
        }
    }
}

impl Trigger {
    pub fn target(&self) -> &Target {
        match self {
            Self::IssueLabeled { target, .. }
            | Self::PullRequestLabeled { target, .. }
            | Self::Command { target, .. }
            | Self::Dispatch { target, .. }
            | Self::ReviewComment { target, .. }
            | Self::Review { target, .. }
            | Self::IssueAssigned { target } => target,
        }
    }

    pub fn is_pull_request(&self) -> bool {
        match self {
            Self::IssueLabeled { pull_request, .. } => *pull_request,
            Self::IssueAssigned { .. } => false,
            Self::PullRequestLabeled { .. } | Self::ReviewComment { .. } | Self::Review { .. } => {
                true
            }
            Self::Command {
                is_pull_request, ..
            }
            | Self::Dispatch {
                is_pull_request, ..
            } => *is_pull_request,
        }
    }

    /// Short name for logs and metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::IssueLabeled { .. } => "issue_labeled",
            Self::PullRequestLabeled { .. } => "pull_request_labeled",
            Self::Command { .. } => "command",
            Self::Dispatch { .. } => "dispatch",
            Self::ReviewComment { .. } => "review_comment",
            Self::Review { .. } => "review",
            Self::IssueAssigned { .. } => "issue_assigned",
        }
    }

    /// The label a labeled trigger carries.
    pub fn label(&self) -> Option<&str> {
        match self {
            Self::IssueLabeled { label, .. } | Self::PullRequestLabeled { label, .. } => {
                Some(label)
            }
            _ => None,
        }
    }

    /// A pull request's (head, base) branches when the trigger carries them.
    pub fn pull_branches(&self) -> Option<(&str, &str)> {
        match self {
            Self::PullRequestLabeled {
                head_ref, base_ref, ..
            }
            | Self::ReviewComment {
                head_ref, base_ref, ..
            }
            | Self::Review {
                head_ref, base_ref, ..
            } => Some((head_ref, base_ref)),
            _ => None,
        }
    }
}

/// A trigger kotef will not run, answered with a comment (`reason`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    pub repo: RepoName,
    pub number: IssueNumber,
    pub sender: Actor,
    pub reason: String,
}

/// What to do with one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// `ping`: answer 200.
    Ping,
    Run(Trigger),
    /// Not for kotef; answered 2xx with the reason.
    Ignore(String),
    /// Asked for a run kotef cannot do; the reason becomes a comment.
    Reject(Rejection),
}

/// What the decision depends on besides the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmissionConfig {
    /// The label that triggers a run (default `kotef`).
    pub trigger_label: String,
    /// kotef's own login (its events are ignored), when known.
    pub bot_login: Option<String>,
    /// The login whose assignment starts a run (the Action's `assignee-trigger`); kotef's own
    /// login when unset.
    pub assignee: Option<String>,
    /// The phrase at the start of a comment's line that starts a run (default `/kotef run`).
    pub trigger_phrase: String,
    /// kotef's GitHub App id (comments made through it are ignored), when running as an App.
    pub app_id: Option<u64>,
    /// Other labels become runs too, for the admission step to check against the
    /// repository's own `trigger_label` (a server; the Action knows its label).
    pub repository_labels: bool,
}

impl Default for AdmissionConfig {
    fn default() -> Self {
        Self {
            trigger_label: crate::DEFAULT_TRIGGER_LABEL.to_string(),
            bot_login: None,
            assignee: None,
            trigger_phrase: crate::inbound::sanitize::DEFAULT_TRIGGER_PHRASE.to_string(),
            app_id: None,
            repository_labels: false,
        }
    }
}

/// A payload that does not have the shape its event promises; names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {event} payload at `{path}`: {message}")]
pub struct PayloadError {
    pub event: String,
    pub path: String,
    pub message: String,
}

/// Whether `label` starts a run: it is the server's trigger label, or the repository's own
/// (`trigger_label` in its trusted `kotef.toml`). Case does not matter, as on GitHub.
pub fn label_triggers(label: &str, server_label: &str, repository_label: Option<&str>) -> bool {
    label.eq_ignore_ascii_case(server_label)
        || repository_label.is_some_and(|own| own.eq_ignore_ascii_case(label))
}
