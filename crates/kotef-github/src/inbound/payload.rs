//! The subset of GitHub's webhook payloads kotef reads, as the JSON arrives (wire DTOs), and
//! the one parser that names the field a malformed payload lacks.

use super::trigger::PayloadError;
use chrono::{DateTime, Utc};
use kotef_core::RepoName;
use serde::de::DeserializeOwned;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub(super) struct User {
    pub(super) login: String,
    pub(super) id: u64,
    #[serde(rename = "type", default)]
    pub(super) kind: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct RepoPayload {
    pub(super) full_name: String,
    #[serde(default)]
    pub(super) default_branch: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct LabelPayload {
    pub(super) name: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct IssuePayload {
    pub(super) number: u64,
    pub(super) title: String,
    #[serde(default)]
    pub(super) body: Option<String>,
    #[serde(default)]
    pub(super) user: Option<User>,
    #[serde(default)]
    pub(super) author_association: Option<String>,
    #[serde(default)]
    pub(super) state: Option<String>,
    #[serde(default)]
    pub(super) pull_request: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub(super) struct AppRef {
    pub(super) id: u64,
}

#[derive(Debug, Deserialize)]
pub(super) struct CommentPayload {
    pub(super) id: u64,
    #[serde(default)]
    pub(super) body: Option<String>,
    pub(super) created_at: DateTime<Utc>,
    #[serde(default)]
    pub(super) performed_via_github_app: Option<AppRef>,
}

#[derive(Debug, Deserialize)]
pub(super) struct BranchRepo {
    pub(super) full_name: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct BranchRef {
    #[serde(rename = "ref")]
    pub(super) name: String,
    #[serde(default)]
    pub(super) repo: Option<BranchRepo>,
}

#[derive(Debug, Deserialize)]
pub(super) struct PullPayload {
    pub(super) number: u64,
    pub(super) title: String,
    #[serde(default)]
    pub(super) body: Option<String>,
    #[serde(default)]
    pub(super) user: Option<User>,
    #[serde(default)]
    pub(super) author_association: Option<String>,
    #[serde(default)]
    pub(super) state: Option<String>,
    pub(super) head: BranchRef,
    pub(super) base: BranchRef,
}

#[derive(Debug, Deserialize)]
pub(super) struct ReviewCommentPayload {
    pub(super) id: u64,
    #[serde(default)]
    pub(super) body: Option<String>,
    pub(super) path: String,
    #[serde(default)]
    pub(super) line: Option<u64>,
    #[serde(default)]
    pub(super) start_line: Option<u64>,
    #[serde(default)]
    pub(super) original_line: Option<u64>,
    #[serde(default)]
    pub(super) original_start_line: Option<u64>,
    #[serde(default)]
    pub(super) diff_hunk: Option<String>,
    #[serde(default)]
    pub(super) user: Option<User>,
    #[serde(default)]
    pub(super) author_association: Option<String>,
    #[serde(default)]
    pub(super) performed_via_github_app: Option<AppRef>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ReviewCommentEvent {
    pub(super) comment: ReviewCommentPayload,
    pub(super) pull_request: PullPayload,
    pub(super) repository: RepoPayload,
    pub(super) sender: User,
}

#[derive(Debug, Deserialize)]
pub(super) struct ReviewPayload {
    pub(super) id: u64,
    #[serde(default)]
    pub(super) body: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ReviewEvent {
    pub(super) review: ReviewPayload,
    pub(super) pull_request: PullPayload,
    pub(super) repository: RepoPayload,
    pub(super) sender: User,
}

#[derive(Debug, Deserialize)]
pub(super) struct AssignedEvent {
    #[serde(default)]
    pub(super) assignee: Option<User>,
    pub(super) issue: IssuePayload,
    pub(super) repository: RepoPayload,
    pub(super) sender: User,
}

#[derive(Debug, Deserialize)]
pub(super) struct ActionOnly {
    #[serde(default)]
    pub(super) action: Option<String>,
    #[serde(default)]
    pub(super) sender: Option<User>,
}

#[derive(Debug, Deserialize)]
pub(super) struct IssuesEvent {
    pub(super) issue: IssuePayload,
    #[serde(default)]
    pub(super) label: Option<LabelPayload>,
    pub(super) repository: RepoPayload,
    pub(super) sender: User,
}

#[derive(Debug, Deserialize)]
pub(super) struct IssueCommentEvent {
    pub(super) issue: IssuePayload,
    pub(super) comment: CommentPayload,
    pub(super) repository: RepoPayload,
    pub(super) sender: User,
}

#[derive(Debug, Deserialize)]
pub(super) struct PullRequestEvent {
    pub(super) pull_request: PullPayload,
    #[serde(default)]
    pub(super) label: Option<LabelPayload>,
    pub(super) repository: RepoPayload,
    pub(super) sender: User,
}

pub(super) fn parse<T: DeserializeOwned>(event: &str, body: &[u8]) -> Result<T, PayloadError> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        PayloadError {
            event: event.to_string(),
            path: if path.is_empty() { ".".into() } else { path },
            message: e.into_inner().to_string(),
        }
    })
}

pub(super) fn repo_name(event: &str, r: &RepoPayload) -> Result<RepoName, PayloadError> {
    RepoName::parse(&r.full_name).ok_or_else(|| PayloadError {
        event: event.to_string(),
        path: "repository.full_name".into(),
        message: format!("`{}` is not owner/name", r.full_name),
    })
}
