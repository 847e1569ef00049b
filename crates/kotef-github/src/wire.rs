//! The bodies of GitHub's REST responses that kotef reads (repositories, issues, comments, pull
//! requests, their files and review comments): plain serde types, shared by the client that
//! fetches them (`outbound::client`) and the code that turns them into a goal
//! (`inbound::trigger`), so neither layer imports the other.

use serde::{Deserialize, Serialize};

/// The repository facts the pipeline needs.
#[derive(Debug, Clone, Deserialize)]
pub struct RepoInfo {
    pub default_branch: String,
    #[serde(default)]
    pub html_url: Option<String>,
}

/// A comment as listed.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct IssueComment {
    pub id: u64,
    #[serde(default)]
    pub body: Option<String>,
    pub user: CommentUser,
    /// The writer's association with the repository (`OWNER`, `MEMBER`, `NONE`, ...).
    #[serde(default)]
    pub author_association: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
    #[serde(default)]
    pub html_url: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct CommentUser {
    pub login: String,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
}

/// A pull request as the pipeline sees it.
#[derive(Debug, Clone, Deserialize)]
pub struct PullInfo {
    pub number: u64,
    #[serde(default)]
    pub html_url: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    pub head: PullBranch,
    pub base: PullBranch,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullBranch {
    #[serde(rename = "ref")]
    pub name: String,
    #[serde(default)]
    pub repo: Option<PullRepo>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullRepo {
    pub full_name: String,
}

/// One file of a pull request's diff.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct PullFile {
    pub filename: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub additions: u64,
    #[serde(default)]
    pub deletions: u64,
    /// The unified diff; absent for binary or very large files.
    #[serde(default)]
    pub patch: Option<String>,
}

/// A review comment on a pull request's diff.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct PullReviewComment {
    pub id: u64,
    pub path: String,
    /// The line in the current diff; `None` when the code it was about has changed since
    /// (GitHub calls such a comment outdated).
    #[serde(default)]
    pub line: Option<u64>,
    #[serde(default)]
    pub body: Option<String>,
    pub user: CommentUser,
    #[serde(default)]
    pub author_association: Option<String>,
}

/// An issue (or a pull request seen through the issues API) as the Action's
/// `workflow_dispatch` entry reads it.
#[derive(Debug, Clone, Deserialize)]
pub struct IssueInfo {
    pub number: u64,
    pub title: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<CommentUser>,
    #[serde(default)]
    pub author_association: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    /// Present when the issue is a pull request.
    #[serde(default)]
    pub pull_request: Option<serde_json::Value>,
}
