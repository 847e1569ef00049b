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

pub mod budget;
mod comments;
mod conditional;
mod pulls;
mod repos;
mod types;
pub use budget::{budget_wait, RateBudget};
pub use conditional::FileRead;
pub use types::*;

enum Mode {
    Token { crab: Octocrab, token: Secret },
    App { app: Octocrab },
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
    /// What GitHub last said of each installation's API budget, by owner (lower case).
    budgets: Mutex<HashMap<String, RateBudget>>,
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
                budgets: Mutex::new(HashMap::new()),
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
        self.note_budget(path, status, &headers);
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

    fn repo_path(repo: &RepoName) -> String {
        format!(
            "/repos/{}/{}",
            path_segment(&repo.owner),
            path_segment(&repo.name)
        )
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
