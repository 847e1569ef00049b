//! The fake GitHub's shared state: what it stores (repositories, issues, comments, pulls,
//! reactions, dispatches, the request log), the faults queued for injection, and the token and
//! login it accepts.

use axum::http::Method;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

pub const FAKE_TOKEN: &str = "ghp_fake_test_token_0123456789";
/// The login the fake's token belongs to.
pub const FAKE_BOT_LOGIN: &str = "kotef-bot";

/// A comment stored by the fake.
#[derive(Debug, Clone)]
pub struct FakeComment {
    pub id: u64,
    pub repo: String,
    pub number: u64,
    pub body: String,
    pub login: String,
    pub user_type: String,
    pub created_at: DateTime<Utc>,
    /// How many times it was edited.
    pub edits: u32,
    /// Every body it had, oldest first (the current one last).
    pub history: Vec<String>,
    /// The writer's `author_association` (`OWNER` for admins, `MEMBER` for writers, `NONE`).
    pub association: String,
}

/// A pull request stored by the fake.
#[derive(Debug, Clone)]
pub struct FakePull {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub head: String,
    pub head_repo: String,
    pub base: String,
    pub draft: bool,
    pub state: String,
    pub updates: u32,
}

/// A reaction stored by the fake: (repo, issue number or comment id, on a comment?, content).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeReaction {
    pub repo: String,
    pub target: u64,
    pub on_comment: bool,
    pub content: String,
}

/// A `workflow_dispatch` the fake accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeDispatch {
    pub repo: String,
    pub workflow: String,
    pub git_ref: String,
    pub inputs: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct FakeRepo {
    pub(crate) default_branch: String,
    pub(crate) permissions: HashMap<String, String>,
    pub(crate) issues: BTreeMap<u64, (String, String)>,
    pub(crate) closed: std::collections::BTreeSet<u64>,
    pub(crate) next_number: u64,
    /// Workflow file → the `workflow_dispatch` inputs it declares.
    pub(crate) workflows: HashMap<String, Vec<String>>,
    /// (ref, path) → text, served by the contents API.
    pub(crate) files: HashMap<(String, String), String>,
}

/// What an injected fault answers.
#[derive(Debug, Clone)]
pub enum FaultKind {
    /// This status with a small JSON body.
    Status(u16),
    /// 403 "secondary rate limit" with `Retry-After`.
    SecondaryRateLimit { retry_after_s: u64 },
    /// The request is applied, then answered with this status: a lost response.
    AppliedThenStatus(u16),
}

#[derive(Debug, Clone)]
pub(crate) struct Fault {
    pub(crate) method: Option<Method>,
    pub(crate) path_contains: Option<String>,
    pub(crate) kind: FaultKind,
    pub(crate) remaining: u32,
}

/// One request the fake answered.
#[derive(Debug, Clone)]
pub struct LoggedRequest {
    pub method: String,
    pub path: String,
    pub status: u16,
}

/// Everything the fake holds; tests read it through [`FakeGitHub`].
#[derive(Debug, Default)]
pub struct FakeState {
    pub(crate) repos: BTreeMap<String, FakeRepo>,
    pub comments: Vec<FakeComment>,
    pub pulls: BTreeMap<String, Vec<FakePull>>,
    pub reactions: Vec<FakeReaction>,
    pub dispatches: Vec<FakeDispatch>,
    pub requests: Vec<LoggedRequest>,
    pub(crate) faults: VecDeque<Fault>,
    pub(crate) next_id: u64,
    pub(crate) installation_tokens: Vec<String>,
    /// The body of every installation-token request, in order (`null` when it had none).
    pub token_requests: Vec<Value>,
    pub(crate) app_slug: String,
    /// (repo, PR number) → its files as the API lists them.
    pub(crate) pull_files: HashMap<(String, u64), Vec<Value>>,
    /// (repo, PR number) → its review comments as the API lists them.
    pub(crate) review_comments: HashMap<(String, u64), Vec<Value>>,
    /// `X-RateLimit-Remaining` and `X-RateLimit-Reset` sent with every answer, when set.
    pub(crate) rate_limit: Option<(u64, u64)>,
}

pub(crate) struct Shared {
    pub(crate) state: Mutex<FakeState>,
    pub(crate) changed: Notify,
}

pub(crate) type St = Arc<Shared>;
