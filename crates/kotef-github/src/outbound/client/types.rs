//! The client's small public types: how it authenticates, how a call fails, the HTTP methods
//! it uses and whether a call may be replayed, a collaborator's permission, what a comment
//! returns, reactions, and an installation token's scope.

use super::*;

/// How kotef authenticates to GitHub.
#[derive(Clone, Debug)]
pub enum GitHubAuth {
    /// A token (`GITHUB_TOKEN` in Actions, or a personal access token).
    Token(Secret),
    /// A GitHub App: its id and RSA private key (PEM); installation tokens are minted per
    /// repository.
    App { app_id: u64, private_key: Secret },
}

/// An API call that failed for good.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GitHubError {
    #[error("GitHub answered {status} to {method} {path}: {message}")]
    Status {
        method: String,
        path: String,
        status: u16,
        message: String,
    },
    #[error("GitHub unreachable for {method} {path}: {message}")]
    Transport {
        method: String,
        path: String,
        message: String,
    },
    #[error("unexpected GitHub response to {method} {path}: {message}")]
    Decode {
        method: String,
        path: String,
        message: String,
    },
    #[error("GitHub authentication failed: {0}")]
    Auth(String),
}

impl GitHubError {
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether GitHub may have applied the request although kotef saw an error: the response
    /// was lost (a transport error) or the server failed after the fact (5xx).
    pub fn maybe_applied(&self) -> bool {
        match self {
            Self::Transport { .. } => true,
            Self::Status { status, .. } => *status >= 500,
            _ => false,
        }
    }
}

/// An HTTP method of the REST API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Patch,
    Put,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Patch => "PATCH",
            Self::Put => "PUT",
            Self::Delete => "DELETE",
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a call may be sent again after a lost response or a 5xx: reads and idempotent
/// writes may; a POST that creates something may not (its caller checks whether it exists
/// first). A rate-limit refusal is always retried: GitHub did not apply the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    Safe,
    OnlyAfterRefusal,
}

impl Replay {
    pub(super) fn of(method: Method) -> Self {
        match method {
            Method::Post => Self::OnlyAfterRefusal,
            _ => Self::Safe,
        }
    }
}

/// A collaborator's role on a repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    Admin,
    Maintain,
    Write,
    Triage,
    Read,
    None,
}

impl Permission {
    /// `role_name` (preferred, knows maintain/triage) or `permission` of the REST answer.
    pub fn parse(role: &str) -> Self {
        match role {
            "admin" => Self::Admin,
            "maintain" => Self::Maintain,
            "write" | "push" => Self::Write,
            "triage" => Self::Triage,
            "read" | "pull" => Self::Read,
            _ => Self::None,
        }
    }

    /// Whether this role may start a run (write, maintain or admin).
    pub fn may_run(self) -> bool {
        matches!(self, Self::Admin | Self::Maintain | Self::Write)
    }
}

/// What `create_comment` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentRef {
    pub id: u64,
    pub html_url: Option<String>,
}

/// Reaction kinds kotef uses.
#[derive(Debug, Clone, Copy)]
pub enum Reaction {
    Eyes,
}

impl Reaction {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Eyes => "eyes",
        }
    }
}

/// What an installation token is for, which decides the permissions it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenScope {
    /// kotef's own API calls: read the contents (config files), comment and react on issues
    /// and pull requests, open and update pull requests, read collaborator permissions.
    Api,
    /// git's clone, fetch and push: the contents only.
    Git,
    /// Starting a workflow run (the server's Actions executor).
    Dispatch,
}

impl TokenScope {
    /// The `permissions` object of the token request.
    pub fn permissions(self) -> serde_json::Value {
        match self {
            Self::Api => serde_json::json!({
                "contents": "read",
                "issues": "write",
                "pull_requests": "write",
                "metadata": "read",
            }),
            Self::Git => serde_json::json!({ "contents": "write", "metadata": "read" }),
            Self::Dispatch => serde_json::json!({ "actions": "write", "metadata": "read" }),
        }
    }
}

/// The body of `POST /app/installations/{id}/access_tokens` for `repo` and `scope`: that one
/// repository, that scope's permissions.
pub fn token_request(repo: &RepoName, scope: TokenScope) -> serde_json::Value {
    serde_json::json!({
        "repositories": [repo.name],
        "permissions": scope.permissions(),
    })
}
