//! The GitHub REST client kotef uses: octocrab (token or GitHub App auth, base URI for GitHub
//! Enterprise and tests) with kotef's own capped retry loop on top, and small serde types for
//! the handful of endpoints the pipeline needs. Permission look-ups are cached briefly.
//!
//! In App mode every installation token is scoped to the one repository of the job and to
//! the permissions its use needs ([`TokenScope`]): the API token (kept per repository until
//! shortly before it expires, in this process only) and the git token (minted per job, owned
//! by the job and zeroed when it ends; it is the one handed to git's environment).

use crate::outbound::retry::{classify, RetryPolicy, Verdict};
use crate::secret::{ExposeSecret, Secret};
pub use crate::wire::{
    CommentUser, IssueComment, IssueInfo, PullBranch, PullFile, PullInfo, PullRepo,
    PullReviewComment, RepoInfo,
};
use futures::future::BoxFuture;
use kotef_core::retry::Failure;
use kotef_core::{IssueNumber, RepoName};
use octocrab::models::AppId;
use octocrab::Octocrab;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    fn of(method: Method) -> Self {
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

#[derive(Debug, Deserialize)]
struct Created {
    id: u64,
    #[serde(default)]
    html_url: Option<String>,
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
    fn as_str(self) -> &'static str {
        match self {
            Self::Eyes => "eyes",
        }
    }
}

enum Mode {
    Token { crab: Octocrab, token: Secret },
    App { app: Octocrab },
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

/// How long a cached API token is used: installation tokens live an hour.
const API_TOKEN_TTL: Duration = Duration::from_secs(30 * 60);

struct Inner {
    mode: Mode,
    api_url: String,
    policy: RetryPolicy,
    permission_ttl: Duration,
    permissions: Mutex<HashMap<(RepoName, String), (Permission, Instant)>>,
    /// Installation ids by repository (not secret).
    installation_ids: tokio::sync::Mutex<HashMap<RepoName, u64>>,
    /// Clients holding a repository-scoped API token, by repository, with when it was minted.
    api_clients: tokio::sync::Mutex<HashMap<RepoName, (Octocrab, Instant)>>,
}

/// The client; cheap to clone.
#[derive(Clone)]
pub struct GitHub {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for GitHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitHub").finish_non_exhaustive()
    }
}

const MAX_PAGES: u32 = 20;

/// Whether `theirs` is the comment `ours` would create: the same kotef marker line (the run's
/// id) when `ours` has one, else the same body.
fn same_comment(ours: &str, theirs: &str) -> bool {
    let first = |t: &str| {
        t.trim_start()
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    if first(ours).starts_with(crate::outbound::render::MARKER_PREFIX) {
        first(ours) == first(theirs)
    } else {
        ours == theirs
    }
}

/// What [`encode_query`] escapes: everything but unreserved characters, `/` and `:`.
const QUERY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/')
    .remove(b':');

/// What [`path_segment`] escapes: the same, and `/` too.
const SEGMENT: &AsciiSet = &QUERY.add(b'/');

/// Percent-encodes a query value (branch names may hold `#`, `&`, `+`, ...).
pub fn encode_query(value: &str) -> String {
    utf8_percent_encode(value, QUERY).to_string()
}

fn path_segment(value: &str) -> String {
    utf8_percent_encode(value, SEGMENT).to_string()
}

impl GitHub {
    /// A client for `api_url` (e.g. `https://api.github.com` or a test server). Must be
    /// called inside a Tokio runtime (octocrab spawns its connection worker).
    pub fn new(api_url: &str, auth: GitHubAuth, policy: RetryPolicy) -> anyhow::Result<Self> {
        use anyhow::Context;
        tokio::runtime::Handle::try_current()
            .map_err(|_| anyhow::anyhow!("the GitHub client needs a Tokio runtime"))?;
        let builder = || -> anyhow::Result<_> {
            Ok(Octocrab::builder()
                .base_uri(api_url)
                .with_context(|| format!("invalid GitHub API URL `{api_url}`"))?
                // kotef's own loop retries, honouring Retry-After and caps.
                .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
                .set_connect_timeout(Some(Duration::from_secs(10)))
                .set_read_timeout(Some(Duration::from_secs(30))))
        };
        let mode = match auth {
            GitHubAuth::Token(token) => Mode::Token {
                crab: builder()?
                    .personal_token(token.expose_secret().to_string())
                    .build()
                    .context("building the GitHub client")?,
                token,
            },
            GitHubAuth::App {
                app_id,
                private_key,
            } => {
                let key =
                    octocrab::EncodingKey::from_rsa_pem(private_key.expose_secret().as_bytes())
                        .map_err(|_| {
                            anyhow::anyhow!("the GitHub App private key is not a valid RSA PEM key")
                        })?;
                Mode::App {
                    app: builder()?
                        .app(AppId(app_id), key)
                        .build()
                        .context("building the GitHub App client")?,
                }
            }
        };
        Ok(Self {
            inner: Arc::new(Inner {
                mode,
                api_url: api_url.to_string(),
                policy,
                permission_ttl: Duration::from_secs(60),
                permissions: Mutex::new(HashMap::new()),
                installation_ids: tokio::sync::Mutex::new(HashMap::new()),
                api_clients: tokio::sync::Mutex::new(HashMap::new()),
            }),
        })
    }

    pub fn retry_policy(&self) -> RetryPolicy {
        self.inner.policy
    }

    async fn crab_for(&self, repo: Option<&RepoName>) -> Result<Octocrab, GitHubError> {
        match (&self.inner.mode, repo) {
            (Mode::Token { crab, .. }, _) => Ok(crab.clone()),
            (Mode::App { app }, None) => Ok(app.clone()),
            (Mode::App { .. }, Some(repo)) => {
                let mut clients = self.inner.api_clients.lock().await;
                clients.retain(|_, (_, at)| at.elapsed() < API_TOKEN_TTL);
                if let Some((c, _)) = clients.get(repo) {
                    return Ok(c.clone());
                }
                let token = self.installation_token(repo, TokenScope::Api).await?;
                let crab = self.token_client(&token)?;
                clients.insert(repo.clone(), (crab.clone(), Instant::now()));
                Ok(crab)
            }
        }
    }

    /// The id of the App's installation on `repo` (looked up once per repository).
    async fn installation_id(&self, app: &Octocrab, repo: &RepoName) -> Result<u64, GitHubError> {
        if let Some(id) = self.inner.installation_ids.lock().await.get(repo) {
            return Ok(*id);
        }
        #[derive(Deserialize)]
        struct Installation {
            id: u64,
        }
        let path = format!("{}/installation", Self::repo_path(repo));
        let inst: Installation = self
            .send_with(app, Method::Get, Replay::Safe, &path, None)
            .await?;
        self.inner
            .installation_ids
            .lock()
            .await
            .insert(repo.clone(), inst.id);
        Ok(inst.id)
    }

    /// A new installation token for `repo` only, with `scope`'s permissions (App mode).
    async fn installation_token(
        &self,
        repo: &RepoName,
        scope: TokenScope,
    ) -> Result<Secret, GitHubError> {
        let Mode::App { app } = &self.inner.mode else {
            return Err(GitHubError::Auth(
                "installation tokens need GitHub App auth".into(),
            ));
        };
        #[derive(Deserialize)]
        struct Minted {
            token: String,
        }
        let id = self.installation_id(app, repo).await?;
        let path = format!("/app/installations/{id}/access_tokens");
        let minted: Minted = self
            .send_with(
                app,
                Method::Post,
                Replay::Safe,
                &path,
                Some(&token_request(repo, scope)),
            )
            .await
            .map_err(|e| GitHubError::Auth(format!("installation token for {repo}: {e}")))?;
        Ok(Secret::from(minted.token))
    }

    /// A client that authenticates with `token` (an installation token).
    fn token_client(&self, token: &Secret) -> Result<Octocrab, GitHubError> {
        Octocrab::builder()
            .base_uri(self.inner.api_url.as_str())
            .map_err(|e| GitHubError::Auth(format!("installation client: {e}")))?
            .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
            .set_connect_timeout(Some(Duration::from_secs(10)))
            .set_read_timeout(Some(Duration::from_secs(30)))
            .personal_token(token.expose_secret().to_string())
            .build()
            .map_err(|e| GitHubError::Auth(format!("installation client: {e}")))
    }

    /// The token git uses to clone and push `repo`: in App mode a new installation token for
    /// that repository only, with `contents: write` (and `metadata: read`) and nothing else,
    /// not kept here — the job owns it and it is zeroed when the job drops it.
    pub async fn git_token(&self, repo: &RepoName) -> Result<Secret, GitHubError> {
        match &self.inner.mode {
            Mode::Token { token, .. } => Ok(token.clone()),
            Mode::App { .. } => self.installation_token(repo, TokenScope::Git).await,
        }
    }

    async fn send<T: DeserializeOwned>(
        &self,
        repo: Option<&RepoName>,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<T, GitHubError> {
        self.send_replay(repo, method, Replay::of(method), path, body)
            .await
    }

    async fn send_replay<T: DeserializeOwned>(
        &self,
        repo: Option<&RepoName>,
        method: Method,
        replay: Replay,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<T, GitHubError> {
        let crab = self.crab_for(repo).await?;
        self.send_with(&crab, method, replay, path, body).await
    }

    /// One call with retries (the shared engine, [`kotef_core::retry::run`]).
    /// `T = serde_json::Value` accepts any (or an empty) body.
    async fn send_with<T: DeserializeOwned>(
        &self,
        crab: &Octocrab,
        method: Method,
        replay: Replay,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<T, GitHubError> {
        let policy = self.inner.policy;
        let what = format!("GitHub {method} {path}");
        kotef_core::retry::run(&policy, &what, |_| {
            self.attempt(crab, method, replay, path, body)
        })
        .await
    }

    /// One attempt of a call, its failure classified for the retry engine.
    async fn attempt<T: DeserializeOwned>(
        &self,
        crab: &Octocrab,
        method: Method,
        replay: Replay,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<T, Failure<GitHubError>> {
        let method_name = method.as_str();
        let result = match method {
            Method::Get => crab._get(path).await,
            Method::Post => crab._post(path, body).await,
            Method::Patch => crab._patch(path, body).await,
            Method::Put => crab._put(path, body).await,
            Method::Delete => crab._delete(path, body).await,
        };
        let resp = match result {
            Ok(resp) => resp,
            Err(e) => {
                let error = GitHubError::Transport {
                    method: method_name.into(),
                    path: path.into(),
                    message: e.to_string(),
                };
                // A lost response may have been applied: only replay-safe calls go again.
                return Err(match replay {
                    Replay::Safe => Failure::retry(error, None),
                    Replay::OnlyAfterRefusal => Failure::fatal(error),
                });
            }
        };
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = crab.body_to_string(resp).await.unwrap_or_default();
        if (200..300).contains(&status) {
            let text = if text.trim().is_empty() {
                "null"
            } else {
                &text
            };
            return serde_json::from_str(text).map_err(|e| {
                Failure::fatal(GitHubError::Decode {
                    method: method_name.into(),
                    path: path.into(),
                    message: e.to_string(),
                })
            });
        }
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("message")?.as_str().map(str::to_string))
            .unwrap_or_else(|| crate::text::truncate_chars(&text, 300));
        let rate_hint = text.to_ascii_lowercase().contains("rate limit");
        let error = GitHubError::Status {
            method: method_name.into(),
            path: path.into(),
            status,
            message,
        };
        let now = chrono::Utc::now().timestamp().max(0) as u64;
        Err(
            match (replay, status, classify(status, &headers, rate_hint, now)) {
                // The server may have applied it: the caller checks before a resend.
                (Replay::OnlyAfterRefusal, 500..=599, _) => Failure::fatal(error),
                (_, _, Verdict::Retry(hint)) => Failure::retry(error, hint),
                (_, _, Verdict::Stop) => Failure::fatal(error),
            },
        )
    }

    /// The login kotef acts as: `GET /user` for a token, `<slug>[bot]` for an App.
    pub async fn own_login(&self) -> Result<String, GitHubError> {
        #[derive(Deserialize)]
        struct Me {
            #[serde(default)]
            login: Option<String>,
            #[serde(default)]
            slug: Option<String>,
        }
        match &self.inner.mode {
            Mode::Token { .. } => {
                let me: Me = self.send(None, Method::Get, "/user", None).await?;
                Ok(me.login.unwrap_or_default())
            }
            Mode::App { .. } => {
                let me: Me = self.send(None, Method::Get, "/app", None).await?;
                Ok(format!("{}[bot]", me.slug.unwrap_or_default()))
            }
        }
    }

    fn repo_path(repo: &RepoName) -> String {
        format!(
            "/repos/{}/{}",
            path_segment(&repo.owner),
            path_segment(&repo.name)
        )
    }

    pub async fn repository(&self, repo: &RepoName) -> Result<RepoInfo, GitHubError> {
        self.send(Some(repo), Method::Get, &Self::repo_path(repo), None)
            .await
    }

    /// `login`'s role on `repo` (cached for a minute); a 404 means no access.
    pub async fn permission(
        &self,
        repo: &RepoName,
        login: &str,
    ) -> Result<Permission, GitHubError> {
        let key = (repo.clone(), login.to_ascii_lowercase());
        if let Ok(cache) = self.inner.permissions.lock() {
            if let Some((p, at)) = cache.get(&key) {
                if at.elapsed() < self.inner.permission_ttl {
                    return Ok(*p);
                }
            }
        }
        #[derive(Deserialize)]
        struct Answer {
            #[serde(default)]
            permission: Option<String>,
            #[serde(default)]
            role_name: Option<String>,
        }
        let path = format!(
            "{}/collaborators/{}/permission",
            Self::repo_path(repo),
            path_segment(login)
        );
        let p = match self
            .send::<Answer>(Some(repo), Method::Get, &path, None)
            .await
        {
            Ok(a) => {
                let by_role = a.role_name.as_deref().map(Permission::parse);
                let by_perm = a.permission.as_deref().map(Permission::parse);
                match (by_role, by_perm) {
                    (Some(r), _) if r != Permission::None => r,
                    (_, Some(p)) => p,
                    _ => Permission::None,
                }
            }
            Err(e) if e.status() == Some(404) => Permission::None,
            Err(e) => return Err(e),
        };
        if let Ok(mut cache) = self.inner.permissions.lock() {
            if cache.len() > 10_000 {
                cache.clear();
            }
            cache.insert(key, (p, Instant::now()));
        }
        Ok(p)
    }

    /// Creates a comment once: when the response to the POST is lost, the comment is looked
    /// for (by its kotef marker line, else its whole body) before the POST is sent again.
    pub async fn create_comment(
        &self,
        repo: &RepoName,
        number: IssueNumber,
        body: &str,
    ) -> Result<CommentRef, GitHubError> {
        let path = format!("{}/issues/{}/comments", Self::repo_path(repo), number);
        let request = serde_json::json!({ "body": body });
        let (path, request) = (&path, &request);
        self.create_once(
            move || {
                Box::pin(async move {
                    let c: Created = self
                        .send(Some(repo), Method::Post, path, Some(request))
                        .await?;
                    Ok(CommentRef {
                        id: c.id,
                        html_url: c.html_url,
                    })
                })
            },
            move || {
                Box::pin(async move {
                    let list = self.list_comments(repo, number).await?;
                    Ok(list
                        .into_iter()
                        .rev()
                        .find(|c| same_comment(body, c.body.as_deref().unwrap_or_default()))
                        .map(|c| CommentRef {
                            id: c.id,
                            html_url: c.html_url,
                        }))
                })
            },
        )
        .await
    }

    /// Sends a POST that creates something, once. After an error that GitHub may have applied
    /// anyway (a lost response, a 5xx), `existing` looks for the thing; only when it is not
    /// there is the POST sent again (within the retry policy).
    async fn create_once<'a, T: 'a>(
        &'a self,
        post: impl Fn() -> BoxFuture<'a, Result<T, GitHubError>>,
        existing: impl Fn() -> BoxFuture<'a, Result<Option<T>, GitHubError>>,
    ) -> Result<T, GitHubError> {
        let policy = self.inner.policy;
        kotef_core::retry::run(&policy, "GitHub create", |_| async {
            match post().await {
                Err(e) if e.maybe_applied() => match existing().await {
                    Ok(Some(found)) => {
                        tracing::info!(error = %e, "the create was applied although its response was lost; adopting it");
                        Ok(found)
                    }
                    // Not applied: safe to send again.
                    Ok(None) => Err(Failure::retry(e, None)),
                    Err(look) => Err(Failure::fatal(look)),
                },
                other => other.map_err(Failure::fatal),
            }
        })
        .await
    }

    pub async fn update_comment(
        &self,
        repo: &RepoName,
        comment_id: u64,
        body: &str,
    ) -> Result<(), GitHubError> {
        let path = format!("{}/issues/comments/{}", Self::repo_path(repo), comment_id);
        self.send::<serde_json::Value>(
            Some(repo),
            Method::Patch,
            &path,
            Some(&serde_json::json!({ "body": body })),
        )
        .await?;
        Ok(())
    }

    /// Every comment of an issue or pull request, oldest first (at most 2000).
    pub async fn list_comments(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<Vec<IssueComment>, GitHubError> {
        let path = format!("{}/issues/{}/comments", Self::repo_path(repo), number);
        self.pages(repo, &path, MAX_PAGES).await
    }

    pub async fn react_to_issue(
        &self,
        repo: &RepoName,
        number: IssueNumber,
        reaction: Reaction,
    ) -> Result<(), GitHubError> {
        let path = format!("{}/issues/{}/reactions", Self::repo_path(repo), number);
        self.react(repo, &path, reaction).await
    }

    pub async fn react_to_comment(
        &self,
        repo: &RepoName,
        comment_id: u64,
        reaction: Reaction,
    ) -> Result<(), GitHubError> {
        let path = format!(
            "{}/issues/comments/{}/reactions",
            Self::repo_path(repo),
            comment_id
        );
        self.react(repo, &path, reaction).await
    }

    /// Adds a reaction to a review comment on a pull request's diff.
    pub async fn react_to_review_comment(
        &self,
        repo: &RepoName,
        comment_id: u64,
        reaction: Reaction,
    ) -> Result<(), GitHubError> {
        let path = format!(
            "{}/pulls/comments/{}/reactions",
            Self::repo_path(repo),
            comment_id
        );
        self.react(repo, &path, reaction).await
    }

    /// POSTs a reaction to `path`. GitHub answers a repeated reaction with the existing one,
    /// so it is safe to send again.
    async fn react(
        &self,
        repo: &RepoName,
        path: &str,
        reaction: Reaction,
    ) -> Result<(), GitHubError> {
        self.send_replay::<serde_json::Value>(
            Some(repo),
            Method::Post,
            Replay::Safe,
            path,
            Some(&serde_json::json!({ "content": reaction.as_str() })),
        )
        .await?;
        Ok(())
    }

    /// The text of `path` on `git_ref` through the contents API, `None` when it is not there.
    pub async fn file_content(
        &self,
        repo: &RepoName,
        path: &str,
        git_ref: &str,
    ) -> Result<Option<String>, GitHubError> {
        #[derive(Deserialize)]
        struct Content {
            #[serde(default)]
            content: String,
            #[serde(default)]
            encoding: String,
        }
        let url = format!(
            "{}/contents/{}?ref={}",
            Self::repo_path(repo),
            encode_query(path),
            encode_query(git_ref)
        );
        let c: Content = match self.send(Some(repo), Method::Get, &url, None).await {
            Ok(c) => c,
            Err(e) if e.status() == Some(404) => return Ok(None),
            Err(e) => return Err(e),
        };
        if c.encoding != "base64" {
            return Err(GitHubError::Decode {
                method: "GET".into(),
                path: url,
                message: format!("content encoded as `{}`, not base64", c.encoding),
            });
        }
        use base64::Engine as _;
        let compact: String = c.content.split_whitespace().collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(compact)
            .map_err(|e| GitHubError::Decode {
                method: "GET".into(),
                path: url.clone(),
                message: e.to_string(),
            })?;
        Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// The files of a pull request's diff (at most 300).
    pub async fn pull_files(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<Vec<PullFile>, GitHubError> {
        let path = format!("{}/pulls/{}/files", Self::repo_path(repo), number);
        self.pages(repo, &path, 3).await
    }

    /// The review comments of a pull request, oldest first (at most 300).
    pub async fn pull_review_comments(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<Vec<PullReviewComment>, GitHubError> {
        let path = format!("{}/pulls/{}/comments", Self::repo_path(repo), number);
        self.pages(repo, &path, 3).await
    }

    /// Up to `max_pages` pages of 100 items of the list at `path`.
    async fn pages<T: DeserializeOwned>(
        &self,
        repo: &RepoName,
        path: &str,
        max_pages: u32,
    ) -> Result<Vec<T>, GitHubError> {
        let mut all = Vec::new();
        for page in 1..=max_pages {
            let url = format!("{path}?per_page=100&page={page}");
            let batch: Vec<T> = self.send(Some(repo), Method::Get, &url, None).await?;
            let n = batch.len();
            all.extend(batch);
            if n < 100 {
                break;
            }
        }
        Ok(all)
    }

    /// An issue or pull request by number.
    pub async fn issue(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<IssueInfo, GitHubError> {
        let path = format!("{}/issues/{}", Self::repo_path(repo), number);
        self.send(Some(repo), Method::Get, &path, None).await
    }

    /// Starts a `workflow_dispatch` run of `workflow` (a file name such as `kotef.yml`, or
    /// its numeric id) on `git_ref` with string `inputs`.
    pub async fn dispatch_workflow(
        &self,
        repo: &RepoName,
        workflow: &str,
        git_ref: &str,
        inputs: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), GitHubError> {
        let path = format!(
            "{}/actions/workflows/{}/dispatches",
            Self::repo_path(repo),
            path_segment(workflow)
        );
        let body = serde_json::json!({ "ref": git_ref, "inputs": inputs });
        match &self.inner.mode {
            // Its own short-lived token: the API token has no `actions` permission.
            Mode::App { .. } => {
                let token = self.installation_token(repo, TokenScope::Dispatch).await?;
                let crab = self.token_client(&token)?;
                self.send_with::<serde_json::Value>(
                    &crab,
                    Method::Post,
                    Replay::of(Method::Post),
                    &path,
                    Some(&body),
                )
                .await?;
            }
            Mode::Token { .. } => {
                self.send::<serde_json::Value>(Some(repo), Method::Post, &path, Some(&body))
                    .await?;
            }
        }
        Ok(())
    }

    pub async fn pull(
        &self,
        repo: &RepoName,
        number: IssueNumber,
    ) -> Result<PullInfo, GitHubError> {
        let path = format!("{}/pulls/{}", Self::repo_path(repo), number);
        self.send(Some(repo), Method::Get, &path, None).await
    }

    /// The open pull request whose head is `branch` of `repo`, if any.
    pub async fn find_pull_by_head(
        &self,
        repo: &RepoName,
        branch: &str,
    ) -> Result<Option<PullInfo>, GitHubError> {
        let path = format!(
            "{}/pulls?state=open&head={}",
            Self::repo_path(repo),
            encode_query(&format!("{}:{}", repo.owner, branch))
        );
        let pulls: Vec<PullInfo> = self.send(Some(repo), Method::Get, &path, None).await?;
        Ok(pulls.into_iter().find(|p| p.head.name == branch))
    }

    /// Opens a draft pull request from `head` into `base`, once: when the response is lost or
    /// GitHub answers that one already exists (422), the open pull request of `head` is
    /// adopted.
    pub async fn create_draft_pull(
        &self,
        repo: &RepoName,
        head: &str,
        base: &str,
        title: &str,
        body: &str,
    ) -> Result<PullInfo, GitHubError> {
        let path = format!("{}/pulls", Self::repo_path(repo));
        let req = serde_json::json!({
            "title": title, "head": head, "base": base, "body": body, "draft": true,
        });
        let (path, req) = (&path, &req);
        self.create_once(
            move || {
                Box::pin(async move {
                    match self
                        .send::<PullInfo>(Some(repo), Method::Post, path, Some(req))
                        .await
                    {
                        Err(e) if e.status() == Some(422) => {
                            match self.find_pull_by_head(repo, head).await? {
                                Some(pr) => Ok(pr),
                                None => Err(e),
                            }
                        }
                        other => other,
                    }
                })
            },
            move || Box::pin(async move { self.find_pull_by_head(repo, head).await }),
        )
        .await
    }

    pub async fn update_pull(
        &self,
        repo: &RepoName,
        number: u64,
        title: &str,
        body: &str,
    ) -> Result<(), GitHubError> {
        let path = format!("{}/pulls/{}", Self::repo_path(repo), number);
        self.send::<serde_json::Value>(
            Some(repo),
            Method::Patch,
            &path,
            Some(&serde_json::json!({ "title": title, "body": body })),
        )
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_that_may_run() {
        assert!(Permission::parse("admin").may_run());
        assert!(Permission::parse("maintain").may_run());
        assert!(Permission::parse("write").may_run());
        assert!(!Permission::parse("triage").may_run());
        assert!(!Permission::parse("read").may_run());
        assert!(!Permission::parse("none").may_run());
        assert!(!Permission::parse("???").may_run());
    }

    #[test]
    fn query_values_are_encoded() {
        assert_eq!(encode_query("o:kotef/issue-1"), "o:kotef/issue-1");
        assert_eq!(encode_query("a b&c#d+e"), "a%20b%26c%23d%2Be");
        assert_eq!(path_segment("we/ird"), "we%2Fird");
    }

    #[tokio::test]
    async fn debug_does_not_show_the_token() {
        let gh = GitHub::new(
            "http://127.0.0.1:9",
            GitHubAuth::Token(Secret::from("ghp_supersecret123")),
            RetryPolicy::fast(),
        )
        .unwrap();
        assert!(!format!("{gh:?}").contains("supersecret"));
        let auth = GitHubAuth::Token(Secret::from("ghp_supersecret123"));
        assert!(!format!("{auth:?}").contains("supersecret"));
    }
}
