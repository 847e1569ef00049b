//! [`FakeGitHub`]: the running fake on loopback and the handle tests use to seed it
//! (repositories, permissions, issues, pulls, comments, files, workflows), inject faults and
//! read back or wait for what kotef did.

use crate::git::file_base_url;
use crate::payloads::user_json;
use crate::state::FAKE_TOKEN;
use crate::state::{
    FakeComment, FakeDispatch, FakePull, FakeReaction, FakeRepo, FakeState, Fault, FaultKind,
    LoggedRequest, Shared, St,
};
use axum::http::Method;
use chrono::{DateTime, Utc};
use kotef_github::{GitHub, GitHubAuth, RetryPolicy, Secret, ServeConfig};
use serde_json::json;
use std::net::SocketAddr;
use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// A running fake GitHub.
pub struct FakeGitHub {
    addr: SocketAddr,
    shared: St,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeGitHub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeGitHub {
    /// Starts the fake on `127.0.0.1:0`.
    pub async fn start() -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(FakeState {
                app_slug: "kotef-app".into(),
                ..FakeState::default()
            }),
            changed: Notify::new(),
        });
        let app = crate::routes::router(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fake GitHub");
        let addr = listener.local_addr().expect("local addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, shared, task }
    }

    /// The API base URL to give octocrab.
    pub fn api_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A kotef client for the fake, with its token and fast retries.
    pub fn client(&self) -> GitHub {
        GitHub::new(
            &self.api_url(),
            GitHubAuth::Token(Secret::from(FAKE_TOKEN)),
            RetryPolicy::fast(),
        )
        .expect("a GitHub client for the fake")
    }

    /// A server configuration against the fake: these webhook `secrets`, the fake's token, the
    /// bare repositories under `git_root` served as `file://`, state in `data_dir`, listening
    /// on `127.0.0.1:0`, fast retries. Tests set intervals and the model themselves.
    pub fn serve_config(
        &self,
        secrets: &[&str],
        git_root: &FsPath,
        data_dir: impl Into<PathBuf>,
    ) -> ServeConfig {
        let mut cfg = ServeConfig::new(
            secrets.iter().map(|s| Secret::from(*s)).collect(),
            GitHubAuth::Token(Secret::from(FAKE_TOKEN)),
            self.api_url(),
            file_base_url(git_root),
            data_dir,
        );
        cfg.listen = SocketAddr::from(([127, 0, 0, 1], 0));
        cfg.retry = RetryPolicy::fast();
        cfg
    }

    /// Reads the state.
    pub fn with_state<T>(&self, f: impl FnOnce(&FakeState) -> T) -> T {
        f(&self.shared.state.lock().unwrap())
    }

    /// Adds a repository.
    pub fn add_repo(&self, full_name: &str, default_branch: &str) {
        let mut s = self.shared.state.lock().unwrap();
        s.repos.insert(
            full_name.into(),
            FakeRepo {
                default_branch: default_branch.into(),
                ..FakeRepo::default()
            },
        );
    }

    /// The files of pull request `number`: (filename, additions, deletions, patch).
    pub fn set_pull_files(&self, repo: &str, number: u64, files: &[(&str, u64, u64, &str)]) {
        let list = files
            .iter()
            .map(|(f, a, d, p)| {
                json!({ "filename": f, "status": "modified", "additions": a, "deletions": d, "patch": p })
            })
            .collect();
        self.shared
            .state
            .lock()
            .unwrap()
            .pull_files
            .insert((repo.to_string(), number), list);
    }

    /// A review comment by `login` on `path` at `line` (`None`: outdated) of PR `number`.
    pub fn add_review_comment(
        &self,
        repo: &str,
        number: u64,
        (path, line): (&str, Option<u64>),
        body: &str,
        login: &str,
    ) {
        let mut s = self.shared.state.lock().unwrap();
        s.next_id += 1;
        let c = json!({ "id": s.next_id, "path": path, "line": line, "body": body,
                        "user": user_json(login, "User"), "author_association": "MEMBER" });
        s.review_comments
            .entry((repo.to_string(), number))
            .or_default()
            .push(c);
    }

    /// Serves `text` as `path` on `git_ref` through the contents API.
    pub fn set_file(&self, repo: &str, git_ref: &str, path: &str, text: &str) {
        let mut s = self.shared.state.lock().unwrap();
        let r = s.repos.get_mut(repo).expect("add_repo first");
        r.files
            .insert((git_ref.to_string(), path.to_string()), text.to_string());
    }

    /// Gives `login` a role (`admin`, `maintain`, `write`, `triage`, `read`) on a repository.
    pub fn set_permission(&self, repo: &str, login: &str, role: &str) {
        let mut s = self.shared.state.lock().unwrap();
        if let Some(r) = s.repos.get_mut(repo) {
            r.permissions
                .insert(login.to_ascii_lowercase(), role.into());
        }
    }

    /// Declares a workflow file with `workflow_dispatch` inputs (dispatches of undeclared
    /// workflows get 404, of undeclared inputs 422, as on GitHub).
    pub fn add_workflow(&self, repo: &str, file: &str, inputs: &[&str]) {
        let mut s = self.shared.state.lock().unwrap();
        if let Some(r) = s.repos.get_mut(repo) {
            r.workflows
                .insert(file.into(), inputs.iter().map(|i| i.to_string()).collect());
        }
    }

    /// Workflow dispatches accepted so far.
    pub fn dispatches(&self) -> Vec<FakeDispatch> {
        self.with_state(|s| s.dispatches.clone())
    }

    /// Closes an issue.
    pub fn close_issue(&self, repo: &str, number: u64) {
        let mut s = self.shared.state.lock().unwrap();
        if let Some(r) = s.repos.get_mut(repo) {
            r.closed.insert(number);
        }
    }

    /// Opens an issue; returns its number.
    pub fn add_issue(&self, repo: &str, title: &str, body: &str) -> u64 {
        let mut s = self.shared.state.lock().unwrap();
        let r = s.repos.get_mut(repo).expect("add_repo first");
        r.next_number += 1;
        let n = r.next_number;
        r.issues.insert(n, (title.into(), body.into()));
        n
    }

    /// Opens a pull request from `head` (of `head_repo`, e.g. a fork) into `base`.
    pub fn add_pull(
        &self,
        repo: &str,
        title: &str,
        head: &str,
        head_repo: &str,
        base: &str,
    ) -> u64 {
        let mut s = self.shared.state.lock().unwrap();
        let r = s.repos.get_mut(repo).expect("add_repo first");
        r.next_number += 1;
        let n = r.next_number;
        r.issues.insert(n, (title.into(), String::new()));
        s.pulls.entry(repo.into()).or_default().push(FakePull {
            number: n,
            title: title.into(),
            body: String::new(),
            head: head.into(),
            head_repo: head_repo.into(),
            base: base.into(),
            draft: false,
            state: "open".into(),
            updates: 0,
        });
        n
    }

    /// A comment written by a person; returns (id, created_at).
    pub fn add_comment(
        &self,
        repo: &str,
        number: u64,
        login: &str,
        body: &str,
    ) -> (u64, DateTime<Utc>) {
        let mut s = self.shared.state.lock().unwrap();
        let association = match s
            .repos
            .get(repo)
            .and_then(|r| r.permissions.get(login))
            .map(String::as_str)
        {
            Some("admin") => "OWNER",
            Some("write" | "maintain") => "MEMBER",
            _ => "NONE",
        }
        .to_string();
        s.next_id += 1;
        let id = s.next_id;
        // Whole seconds, like GitHub's timestamps.
        let now = Utc::now();
        let created_at = DateTime::from_timestamp(now.timestamp(), 0).unwrap_or(now);
        s.comments.push(FakeComment {
            id,
            repo: repo.into(),
            number,
            body: body.into(),
            login: login.into(),
            user_type: "User".into(),
            created_at,
            edits: 0,
            history: vec![body.into()],
            association,
        });
        (id, created_at)
    }

    /// Every answer from now on reports `remaining` API requests left until `reset_epoch_s`
    /// (`X-RateLimit-Remaining`, `X-RateLimit-Reset`).
    pub fn set_rate_limit(&self, remaining: u64, reset_epoch_s: u64) {
        self.shared.state.lock().unwrap().rate_limit = Some((remaining, reset_epoch_s));
    }

    /// The next `times` requests (matching `method` and a path containing `path_contains`)
    /// get this fault.
    pub fn inject(
        &self,
        method: Option<Method>,
        path_contains: Option<&str>,
        kind: FaultKind,
        times: u32,
    ) {
        if times == 0 {
            return;
        }
        self.shared.state.lock().unwrap().faults.push_back(Fault {
            method,
            path_contains: path_contains.map(str::to_string),
            kind,
            remaining: times,
        });
    }

    /// Comments on one issue/PR, oldest first.
    pub fn comments(&self, repo: &str, number: u64) -> Vec<FakeComment> {
        self.with_state(|s| {
            s.comments
                .iter()
                .filter(|c| c.repo == repo && c.number == number)
                .cloned()
                .collect()
        })
    }

    /// Comments written by kotef (they carry its marker).
    pub fn kotef_comments(&self, repo: &str, number: u64) -> Vec<FakeComment> {
        self.comments(repo, number)
            .into_iter()
            .filter(|c| {
                c.body
                    .contains(kotef_github::outbound::render::MARKER_PREFIX)
            })
            .collect()
    }

    pub fn pulls(&self, repo: &str) -> Vec<FakePull> {
        self.with_state(|s| s.pulls.get(repo).cloned().unwrap_or_default())
    }

    pub fn reactions(&self) -> Vec<FakeReaction> {
        self.with_state(|s| s.reactions.clone())
    }

    /// The bodies of the installation-token requests so far, in order (`null`: no body).
    pub fn token_requests(&self) -> Vec<serde_json::Value> {
        self.with_state(|s| s.token_requests.clone())
    }

    /// Requests answered so far whose path contains `path_contains`.
    pub fn requests(&self, path_contains: &str) -> Vec<LoggedRequest> {
        self.with_state(|s| {
            s.requests
                .iter()
                .filter(|r| r.path.contains(path_contains))
                .cloned()
                .collect()
        })
    }

    /// Waits (woken by every change, no polling) until `cond` holds; `false` on timeout.
    pub async fn wait_until(&self, timeout: Duration, cond: impl Fn(&FakeGitHub) -> bool) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.shared.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if cond(self) {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return cond(self);
            }
        }
    }

    /// Waits until kotef's comment on the issue shows a final state (ended or failed).
    pub async fn wait_final_comment(
        &self,
        repo: &str,
        number: u64,
        timeout: Duration,
    ) -> Option<FakeComment> {
        let done = |c: &FakeComment| {
            c.body.contains("kotef run ended")
                || c.body.contains("kotef run failed")
                || c.body.contains("will not run here")
        };
        self.wait_until(timeout, |g| g.kotef_comments(repo, number).iter().any(done))
            .await;
        self.kotef_comments(repo, number)
            .into_iter()
            .find(|c| done(c))
    }
}
