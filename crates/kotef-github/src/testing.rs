//! Test support (cargo feature `testing`): a stateful fake GitHub REST API (repositories,
//! issues, comments, reactions, collaborator permissions, pulls, App installation tokens,
//! workflow dispatches checked against the workflow's declared inputs) with
//! fault injection, served by axum on loopback for the real octocrab client; bare git
//! repositories on disk; signed webhook payloads; and a fake [`RunExecutor`].
//!
//! A typical end-to-end test:
//!
//! ```text
//! let gh = FakeGitHub::start().await;
//! gh.add_repo("acme/widgets", "main");
//! gh.set_permission("acme/widgets", "alice", "admin");
//! let root = tempfile::tempdir()?;
//! init_bare_repo(root.path(), "acme/widgets", &[("README.md", "hi\n")]);
//! let mut cfg = ServeConfig::new(vec![Secret::new("s")], GitHubAuth::Token(Secret::new(FAKE_TOKEN)),
//!     gh.api_url(), file_base_url(root.path()), data_dir);
//! cfg.listen = "127.0.0.1:0".parse()?;
//! let server = kotef_github::start(cfg, executor).await?;
//! let n = gh.add_issue("acme/widgets", "Title", "Body");
//! send_webhook(&client, &format!("http://{}/webhook", server.addr()), "s", "issues", "d1",
//!     &issues_labeled("acme/widgets", n, "Title", "Body", "kotef", "alice")).await?;
//! let comment = gh.wait_final_comment("acme/widgets", n, Duration::from_secs(30)).await;
//! ```

use crate::signature::sign;
use crate::RunExecutor;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use kotef_core::{
    LoopCounters, RunId, RunOutcome, RunRequest, RunSummary, StepProgress, StopRule, TerminalStatus,
};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// The token the fake accepts.
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
struct FakeRepo {
    default_branch: String,
    permissions: HashMap<String, String>,
    issues: BTreeMap<u64, (String, String)>,
    closed: std::collections::BTreeSet<u64>,
    next_number: u64,
    /// Workflow file → the `workflow_dispatch` inputs it declares.
    workflows: HashMap<String, Vec<String>>,
    /// (ref, path) → text, served by the contents API.
    files: HashMap<(String, String), String>,
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
struct Fault {
    method: Option<Method>,
    path_contains: Option<String>,
    kind: FaultKind,
    remaining: u32,
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
    repos: BTreeMap<String, FakeRepo>,
    pub comments: Vec<FakeComment>,
    pub pulls: BTreeMap<String, Vec<FakePull>>,
    pub reactions: Vec<FakeReaction>,
    pub dispatches: Vec<FakeDispatch>,
    pub requests: Vec<LoggedRequest>,
    faults: VecDeque<Fault>,
    next_id: u64,
    installation_tokens: Vec<String>,
    app_slug: String,
    /// (repo, PR number) → its files as the API lists them.
    pull_files: HashMap<(String, u64), Vec<Value>>,
    /// (repo, PR number) → its review comments as the API lists them.
    review_comments: HashMap<(String, u64), Vec<Value>>,
}

struct Shared {
    state: Mutex<FakeState>,
    changed: Notify,
}

type St = Arc<Shared>;

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

fn err(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "message": message }))).into_response()
}

fn user_json(login: &str, kind: &str) -> Value {
    let id = login
        .bytes()
        .fold(1000u64, |a, b| a.wrapping_mul(31).wrapping_add(b as u64))
        % 1_000_000;
    json!({ "login": login, "id": id, "type": kind })
}

fn comment_json(c: &FakeComment) -> Value {
    json!({
        "id": c.id,
        "body": c.body,
        "user": user_json(&c.login, &c.user_type),
        "author_association": c.association,
        "created_at": c.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "updated_at": c.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "html_url": format!("https://github.test/{}/issues/{}#issuecomment-{}", c.repo, c.number, c.id),
    })
}

fn pull_json(repo: &str, p: &FakePull) -> Value {
    json!({
        "number": p.number,
        "title": p.title,
        "body": p.body,
        "state": p.state,
        "draft": p.draft,
        "html_url": format!("https://github.test/{repo}/pull/{}", p.number),
        "head": { "ref": p.head, "repo": { "full_name": p.head_repo } },
        "base": { "ref": p.base, "repo": { "full_name": repo } },
    })
}

/// Which identity a request carries.
enum Caller {
    Token(String),
    Jwt,
}

fn caller(headers: &HeaderMap, state: &FakeState) -> Option<Caller> {
    let v = headers.get("authorization")?.to_str().ok()?;
    let t = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("token "))?
        .trim();
    if t == FAKE_TOKEN {
        return Some(Caller::Token(FAKE_BOT_LOGIN.into()));
    }
    if state.installation_tokens.iter().any(|x| x == t) {
        return Some(Caller::Token(format!("{}[bot]", state.app_slug)));
    }
    (t.split('.').count() == 3).then_some(Caller::Jwt)
}

async fn gate(State(st): State<St>, req: axum::extract::Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let (fault, who) = {
        let mut s = st.state.lock().unwrap();
        let who = caller(req.headers(), &s);
        let idx = s.faults.iter().position(|f| {
            f.method.as_ref().is_none_or(|m| *m == method)
                && f.path_contains
                    .as_ref()
                    .is_none_or(|p| path.contains(p.as_str()))
        });
        let fault = idx.map(|i| {
            let f = &mut s.faults[i];
            f.remaining -= 1;
            let kind = f.kind.clone();
            if f.remaining == 0 {
                s.faults.remove(i);
            }
            kind
        });
        (fault, who)
    };
    let resp = match (fault, who) {
        (Some(FaultKind::Status(code)), _) => err(
            StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_GATEWAY),
            "injected fault",
        ),
        (Some(FaultKind::SecondaryRateLimit { retry_after_s }), _) => {
            let mut r = err(
                StatusCode::FORBIDDEN,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
            );
            r.headers_mut()
                .insert("retry-after", retry_after_s.to_string().parse().unwrap());
            r
        }
        (Some(FaultKind::AppliedThenStatus(code)), Some(_)) => {
            let _applied = next.run(req).await;
            err(
                StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_GATEWAY),
                "injected fault after applying the request",
            )
        }
        (None | Some(FaultKind::AppliedThenStatus(_)), None) => {
            err(StatusCode::UNAUTHORIZED, "Bad credentials")
        }
        (None, Some(Caller::Jwt))
            if !(path.starts_with("/app") || path.ends_with("/installation")) =>
        {
            err(StatusCode::FORBIDDEN, "a JWT cannot call this endpoint")
        }
        (None, Some(_)) => next.run(req).await,
    };
    let mut s = st.state.lock().unwrap();
    s.requests.push(LoggedRequest {
        method: method.to_string(),
        path,
        status: resp.status().as_u16(),
    });
    drop(s);
    st.changed.notify_waiters();
    resp
}

/// Runs `f` on an existing repository (404 otherwise); `f` answers with a response or an error
/// response.
fn with_repo(
    st: &St,
    owner: &str,
    name: &str,
    f: impl FnOnce(&mut FakeState, &str) -> Result<Response, Box<Response>>,
) -> Response {
    let key = format!("{owner}/{name}");
    let mut s = st.state.lock().unwrap();
    if !s.repos.contains_key(&key) {
        return err(StatusCode::NOT_FOUND, "Not Found");
    }
    f(&mut s, &key).unwrap_or_else(|e| *e)
}

fn not_found() -> Box<Response> {
    Box::new(err(StatusCode::NOT_FOUND, "Not Found"))
}

fn login_of(headers: &HeaderMap, st: &St) -> String {
    let s = st.state.lock().unwrap();
    match caller(headers, &s) {
        Some(Caller::Token(l)) => l,
        _ => "unknown".into(),
    }
}

async fn get_user(State(st): State<St>, headers: HeaderMap) -> Response {
    Json(user_json(&login_of(&headers, &st), "User")).into_response()
}

async fn get_app(State(st): State<St>) -> Response {
    let slug = st.state.lock().unwrap().app_slug.clone();
    Json(json!({ "id": 1, "slug": slug, "name": slug })).into_response()
}

async fn get_repo(State(st): State<St>, Path((o, r)): Path<(String, String)>) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        Ok(Json(json!({
            "full_name": key,
            "default_branch": s.repos[key].default_branch,
            "html_url": format!("https://github.test/{key}"),
        }))
        .into_response())
    })
}

async fn get_installation(State(st): State<St>, Path((o, r)): Path<(String, String)>) -> Response {
    with_repo(&st, &o, &r, |_, _| {
        Ok(Json(json!({ "id": 77 })).into_response())
    })
}

async fn post_access_token(State(st): State<St>, Path(id): Path<u64>) -> Response {
    let mut s = st.state.lock().unwrap();
    s.next_id += 1;
    let token = format!("ghs_installation_{id}_{}", s.next_id);
    s.installation_tokens.push(token.clone());
    let expires = (Utc::now() + chrono::Duration::hours(1))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    (
        StatusCode::CREATED,
        Json(json!({ "token": token, "expires_at": expires, "permissions": {} })),
    )
        .into_response()
}

async fn get_permission(
    State(st): State<St>,
    Path((o, r, u)): Path<(String, String, String)>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let role = s.repos[key]
            .permissions
            .get(&u.to_ascii_lowercase())
            .cloned()
            .unwrap_or_else(|| "none".into());
        let permission = match role.as_str() {
            "maintain" => "write",
            "triage" => "read",
            other => other,
        }
        .to_string();
        Ok(Json(
            json!({ "permission": permission, "role_name": role, "user": user_json(&u, "User") }),
        )
        .into_response())
    })
}

#[derive(serde::Deserialize)]
struct PageQuery {
    #[serde(default)]
    page: Option<usize>,
    #[serde(default)]
    per_page: Option<usize>,
}

async fn list_comments(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
    Query(q): Query<PageQuery>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let per = q.per_page.unwrap_or(30).clamp(1, 100);
        let page = q.page.unwrap_or(1).max(1);
        let list: Vec<Value> = s
            .comments
            .iter()
            .filter(|c| c.repo == key && c.number == n)
            .skip((page - 1) * per)
            .take(per)
            .map(comment_json)
            .collect();
        Ok(Json(Value::Array(list)).into_response())
    })
}

#[derive(serde::Deserialize)]
struct BodyReq {
    body: String,
}

async fn create_comment(
    State(st): State<St>,
    headers: HeaderMap,
    Path((o, r, n)): Path<(String, String, u64)>,
    Json(b): Json<BodyReq>,
) -> Response {
    let login = login_of(&headers, &st);
    let resp = with_repo(&st, &o, &r, |s, key| {
        if !s.repos[key].issues.contains_key(&n) {
            return Err(not_found());
        }
        s.next_id += 1;
        let c = FakeComment {
            id: s.next_id,
            repo: key.to_string(),
            number: n,
            history: vec![b.body.clone()],
            body: b.body,
            user_type: if login.ends_with("[bot]") {
                "Bot"
            } else {
                "User"
            }
            .into(),
            login,
            created_at: Utc::now(),
            edits: 0,
            association: "NONE".into(),
        };
        let v = comment_json(&c);
        s.comments.push(c);
        Ok((StatusCode::CREATED, Json(v)).into_response())
    });
    st.changed.notify_waiters();
    resp
}

async fn edit_comment(
    State(st): State<St>,
    Path((o, r, id)): Path<(String, String, u64)>,
    Json(b): Json<BodyReq>,
) -> Response {
    let resp = with_repo(&st, &o, &r, |s, key| {
        let c = s
            .comments
            .iter_mut()
            .find(|c| c.id == id && c.repo == key)
            .ok_or_else(not_found)?;
        c.history.push(b.body.clone());
        c.body = b.body;
        c.edits += 1;
        Ok(Json(comment_json(c)).into_response())
    });
    st.changed.notify_waiters();
    resp
}

#[derive(serde::Deserialize)]
struct ReactionReq {
    content: String,
}

async fn react(
    st: &St,
    o: &str,
    r: &str,
    target: u64,
    on_comment: bool,
    content: String,
) -> Response {
    with_repo(st, o, r, |s, key| {
        let reaction = FakeReaction {
            repo: key.to_string(),
            target,
            on_comment,
            content: content.clone(),
        };
        // As GitHub: the same reaction again is answered 200 and not added twice.
        let status = if s.reactions.contains(&reaction) {
            StatusCode::OK
        } else {
            s.reactions.push(reaction);
            StatusCode::CREATED
        };
        s.next_id += 1;
        let id = s.next_id;
        Ok((status, Json(json!({ "id": id, "content": content }))).into_response())
    })
}

async fn react_issue(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
    Json(b): Json<ReactionReq>,
) -> Response {
    react(&st, &o, &r, n, false, b.content).await
}

async fn react_comment(
    State(st): State<St>,
    Path((o, r, id)): Path<(String, String, u64)>,
    Json(b): Json<ReactionReq>,
) -> Response {
    react(&st, &o, &r, id, true, b.content).await
}

async fn react_review_comment(
    State(st): State<St>,
    Path((o, r, id)): Path<(String, String, u64)>,
    Json(b): Json<ReactionReq>,
) -> Response {
    react(&st, &o, &r, id, true, b.content).await
}

async fn list_pull_files(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let files = s.pull_files.get(&(key.to_string(), n)).cloned();
        Ok(Json(Value::Array(files.unwrap_or_default())).into_response())
    })
}

async fn list_review_comments(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let list = s.review_comments.get(&(key.to_string(), n)).cloned();
        Ok(Json(Value::Array(list.unwrap_or_default())).into_response())
    })
}

#[derive(serde::Deserialize)]
struct RefQuery {
    #[serde(rename = "ref", default)]
    git_ref: Option<String>,
}

async fn get_contents(
    State(st): State<St>,
    Path((o, r, path)): Path<(String, String, String)>,
    Query(q): Query<RefQuery>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let repo = &s.repos[key];
        let git_ref = q.git_ref.unwrap_or_else(|| repo.default_branch.clone());
        match repo.files.get(&(git_ref, path.clone())) {
            Some(text) => {
                use base64::Engine as _;
                let encoded = base64::engine::general_purpose::STANDARD.encode(text);
                // GitHub wraps the base64 text at 60 characters.
                let wrapped: Vec<String> = encoded
                    .as_bytes()
                    .chunks(60)
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect();
                Ok(Json(json!({
                    "type": "file", "path": path, "encoding": "base64",
                    "content": wrapped.join("\n") + "\n",
                }))
                .into_response())
            }
            None => Err(not_found()),
        }
    })
}

#[derive(serde::Deserialize)]
struct PullQuery {
    #[serde(default)]
    head: Option<String>,
    #[serde(default)]
    state: Option<String>,
}

async fn list_pulls(
    State(st): State<St>,
    Path((o, r)): Path<(String, String)>,
    Query(q): Query<PullQuery>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let want_state = q.state.unwrap_or_else(|| "open".into());
        let list: Vec<Value> = s
            .pulls
            .get(key)
            .into_iter()
            .flatten()
            .filter(|p| want_state == "all" || p.state == want_state)
            .filter(|p| {
                q.head
                    .as_deref()
                    .is_none_or(|h| h == format!("{}:{}", o, p.head))
            })
            .map(|p| pull_json(key, p))
            .collect();
        Ok(Json(Value::Array(list)).into_response())
    })
}

#[derive(serde::Deserialize)]
struct NewPull {
    title: String,
    head: String,
    base: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    draft: Option<bool>,
}

async fn create_pull(
    State(st): State<St>,
    Path((o, r)): Path<(String, String)>,
    Json(b): Json<NewPull>,
) -> Response {
    let resp = with_repo(&st, &o, &r, |s, key| {
        if s.pulls
            .get(key)
            .into_iter()
            .flatten()
            .any(|p| p.head == b.head && p.state == "open")
        {
            return Err(Box::new(err(
                StatusCode::UNPROCESSABLE_ENTITY,
                "A pull request already exists for this head",
            )));
        }
        let repo = s.repos.get_mut(key).expect("checked above");
        repo.next_number += 1;
        let number = repo.next_number;
        repo.issues.insert(number, (b.title.clone(), String::new()));
        let p = FakePull {
            number,
            title: b.title,
            body: b.body.unwrap_or_default(),
            head: b.head,
            head_repo: key.to_string(),
            base: b.base,
            draft: b.draft.unwrap_or(false),
            state: "open".into(),
            updates: 0,
        };
        let v = pull_json(key, &p);
        s.pulls.entry(key.to_string()).or_default().push(p);
        Ok((StatusCode::CREATED, Json(v)).into_response())
    });
    st.changed.notify_waiters();
    resp
}

async fn get_pull(State(st): State<St>, Path((o, r, n)): Path<(String, String, u64)>) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        s.pulls
            .get(key)
            .into_iter()
            .flatten()
            .find(|p| p.number == n)
            .map(|p| Json(pull_json(key, p)).into_response())
            .ok_or_else(not_found)
    })
}

#[derive(serde::Deserialize)]
struct PullEdit {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
}

async fn update_pull(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
    Json(b): Json<PullEdit>,
) -> Response {
    let resp = with_repo(&st, &o, &r, |s, key| {
        let p = s
            .pulls
            .get_mut(key)
            .and_then(|l| l.iter_mut().find(|p| p.number == n))
            .ok_or_else(not_found)?;
        if let Some(t) = b.title {
            p.title = t;
        }
        if let Some(body) = b.body {
            p.body = body;
        }
        p.updates += 1;
        Ok(Json(pull_json(key, p)).into_response())
    });
    st.changed.notify_waiters();
    resp
}

async fn get_issue(State(st): State<St>, Path((o, r, n)): Path<(String, String, u64)>) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let repo = &s.repos[key];
        let (title, body) = repo.issues.get(&n).cloned().ok_or_else(not_found)?;
        let pull = s
            .pulls
            .get(key)
            .into_iter()
            .flatten()
            .find(|p| p.number == n);
        let state = match pull {
            Some(p) => p.state.clone(),
            None if repo.closed.contains(&n) => "closed".into(),
            None => "open".into(),
        };
        let mut v = json!({
            "number": n, "title": title, "body": body, "state": state,
            "html_url": format!("https://github.test/{key}/issues/{n}"),
        });
        if pull.is_some() {
            v["pull_request"] = json!({ "url": format!("https://github.test/{key}/pull/{n}") });
        }
        Ok(Json(v).into_response())
    })
}

#[derive(serde::Deserialize)]
struct DispatchReq {
    #[serde(rename = "ref")]
    git_ref: String,
    #[serde(default)]
    inputs: serde_json::Map<String, Value>,
}

async fn dispatch(
    State(st): State<St>,
    Path((o, r, w)): Path<(String, String, String)>,
    Json(b): Json<DispatchReq>,
) -> Response {
    let resp = with_repo(&st, &o, &r, |s, key| {
        let declared = s.repos[key]
            .workflows
            .get(&w)
            .cloned()
            .ok_or_else(not_found)?;
        let unexpected: Vec<&String> = b.inputs.keys().filter(|k| !declared.contains(k)).collect();
        if !unexpected.is_empty() {
            return Err(Box::new(err(
                StatusCode::UNPROCESSABLE_ENTITY,
                &format!("Unexpected inputs provided: {unexpected:?}"),
            )));
        }
        if b.inputs.values().any(|v| !v.is_string()) {
            return Err(Box::new(err(
                StatusCode::UNPROCESSABLE_ENTITY,
                "inputs must be strings",
            )));
        }
        if b.git_ref.is_empty() {
            return Err(Box::new(err(
                StatusCode::UNPROCESSABLE_ENTITY,
                "No ref found",
            )));
        }
        s.dispatches.push(FakeDispatch {
            repo: key.to_string(),
            workflow: w.clone(),
            git_ref: b.git_ref.clone(),
            inputs: b.inputs.clone(),
        });
        Ok(StatusCode::NO_CONTENT.into_response())
    });
    st.changed.notify_waiters();
    resp
}

async fn fallback(uri: Uri) -> Response {
    err(
        StatusCode::NOT_FOUND,
        &format!("the fake has no route for {uri}"),
    )
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
        let app = Router::new()
            .route("/user", get(get_user))
            .route("/app", get(get_app))
            .route(
                "/app/installations/{id}/access_tokens",
                post(post_access_token),
            )
            .route("/repos/{o}/{r}", get(get_repo))
            .route("/repos/{o}/{r}/installation", get(get_installation))
            .route(
                "/repos/{o}/{r}/collaborators/{u}/permission",
                get(get_permission),
            )
            .route(
                "/repos/{o}/{r}/issues/{n}/comments",
                get(list_comments).post(create_comment),
            )
            .route("/repos/{o}/{r}/issues/comments/{id}", patch(edit_comment))
            .route("/repos/{o}/{r}/issues/{n}/reactions", post(react_issue))
            .route(
                "/repos/{o}/{r}/issues/comments/{id}/reactions",
                post(react_comment),
            )
            .route("/repos/{o}/{r}/issues/{n}", get(get_issue))
            .route("/repos/{o}/{r}/contents/{*path}", get(get_contents))
            .route(
                "/repos/{o}/{r}/pulls/comments/{id}/reactions",
                post(react_review_comment),
            )
            .route(
                "/repos/{o}/{r}/actions/workflows/{w}/dispatches",
                post(dispatch),
            )
            .route("/repos/{o}/{r}/pulls", get(list_pulls).post(create_pull))
            .route("/repos/{o}/{r}/pulls/{n}", get(get_pull).patch(update_pull))
            .route("/repos/{o}/{r}/pulls/{n}/files", get(list_pull_files))
            .route(
                "/repos/{o}/{r}/pulls/{n}/comments",
                get(list_review_comments),
            )
            .fallback(fallback)
            .layer(axum::middleware::from_fn_with_state(shared.clone(), gate))
            .with_state(shared.clone());
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
            .filter(|c| c.body.contains(crate::trigger::MARKER_PREFIX))
            .collect()
    }

    pub fn pulls(&self, repo: &str) -> Vec<FakePull> {
        self.with_state(|s| s.pulls.get(repo).cloned().unwrap_or_default())
    }

    pub fn reactions(&self) -> Vec<FakeReaction> {
        self.with_state(|s| s.reactions.clone())
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

// ---- git ---------------------------------------------------------------------------------

fn git(dir: &FsPath, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Seed")
        .env("GIT_AUTHOR_EMAIL", "seed@example.com")
        .env("GIT_COMMITTER_NAME", "Seed")
        .env("GIT_COMMITTER_EMAIL", "seed@example.com")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Creates the bare repository `root/owner/name.git` whose `main` holds `files`; returns its path.
/// Pushes `branch` of `bare` (new from its `main`, or `main` itself) with `files` added or changed.
pub fn push_branch(bare: &FsPath, branch: &str, files: &[(&str, &str)]) {
    let work = tempfile::tempdir().expect("work dir");
    let clone = work.path().join("c");
    git(
        work.path(),
        &[
            "clone",
            "-q",
            bare.to_str().expect("utf-8 path"),
            clone.to_str().expect("utf-8 path"),
        ],
    );
    git(&clone, &["checkout", "-q", "-B", branch]);
    for (path, text) in files {
        let p = clone.join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, text).expect("write branch file");
    }
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-q", "-m", branch]);
    git(&clone, &["push", "-q", "origin", branch]);
}

pub fn init_bare_repo(root: &FsPath, full_name: &str, files: &[(&str, &str)]) -> PathBuf {
    let bare = root.join(format!("{full_name}.git"));
    std::fs::create_dir_all(&bare).expect("create bare dir");
    git(&bare, &["init", "-q", "--bare", "-b", "main"]);
    let seed = tempfile::tempdir().expect("seed dir");
    git(seed.path(), &["init", "-q", "-b", "main"]);
    for (path, text) in files {
        let p = seed.path().join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, text).expect("write seed file");
    }
    git(seed.path(), &["add", "-A"]);
    git(seed.path(), &["commit", "-q", "-m", "seed"]);
    git(
        seed.path(),
        &["push", "-q", bare.to_str().expect("utf-8 path"), "main"],
    );
    bare
}

/// Runs git in a bare repository and returns stdout (`None` when git fails).
pub fn git_output(repo: &FsPath, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).to_string())
}

/// `file://` base URL for a directory of bare repositories.
pub fn file_base_url(root: &FsPath) -> String {
    format!("file://{}", root.display())
}

// ---- webhooks ----------------------------------------------------------------------------

/// Posts a signed webhook.
pub async fn send_webhook(
    client: &reqwest::Client,
    url: &str,
    secret: &str,
    event: &str,
    delivery: &str,
    body: &[u8],
) -> reqwest::Result<reqwest::Response> {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("x-github-event", event)
        .header("x-github-delivery", delivery)
        .header(crate::signature::SIGNATURE_HEADER, sign(secret, body))
        .body(body.to_vec())
        .send()
        .await
}

fn repo_json(full_name: &str) -> Value {
    json!({ "full_name": full_name, "name": full_name.split('/').nth(1), "default_branch": "main",
            "owner": { "login": full_name.split('/').next() } })
}

/// An `issues.labeled` payload.
pub fn issues_labeled(
    repo: &str,
    number: u64,
    title: &str,
    body: &str,
    label: &str,
    sender: &str,
) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "action": "labeled",
        "issue": { "number": number, "title": title, "body": body, "state": "open",
                   "user": user_json(sender, "User") },
        "label": { "name": label },
        "repository": repo_json(repo),
        "sender": user_json(sender, "User"),
    }))
    .expect("json")
}

/// An `issue_comment.created` payload.
pub fn issue_comment_created(
    repo: &str,
    number: u64,
    on_pull: bool,
    comment_id: u64,
    created_at: DateTime<Utc>,
    body: &str,
    sender: &str,
) -> Vec<u8> {
    let mut issue =
        json!({ "number": number, "title": "Issue title", "body": "Issue body", "state": "open" });
    if on_pull {
        issue["pull_request"] = json!({ "url": "x" });
    }
    serde_json::to_vec(&json!({
        "action": "created",
        "issue": issue,
        "comment": { "id": comment_id, "body": body,
                     "created_at": created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                     "user": user_json(sender, "User") },
        "repository": repo_json(repo),
        "sender": user_json(sender, "User"),
    }))
    .expect("json")
}

/// A `workflow_dispatch` payload with string `inputs`, sent by `sender`.
pub fn workflow_dispatch(repo: &str, inputs: &[(&str, &str)], sender: &str) -> Vec<u8> {
    let inputs: serde_json::Map<String, Value> = inputs
        .iter()
        .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
        .collect();
    serde_json::to_vec(&json!({
        "inputs": inputs,
        "ref": "refs/heads/main",
        "repository": repo_json(repo),
        "sender": user_json(sender, "User"),
        "workflow": ".github/workflows/kotef.yml",
    }))
    .expect("json")
}

/// The numeric id the fake gives a login (as in its payloads).
pub fn user_id(login: &str) -> u64 {
    user_json(login, "User")["id"].as_u64().unwrap_or_default()
}

/// A `pull_request_review_comment.created` payload at `(path, line)` of PR `number`.
pub fn review_comment_created(
    repo: &str,
    number: u64,
    head: &str,
    comment_id: u64,
    (path, line): (&str, u64),
    body: &str,
    sender: &str,
) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "action": "created",
        "comment": { "id": comment_id, "body": body, "path": path, "line": line,
                     "start_line": null, "diff_hunk": "@@ -1,2 +1,2 @@\n-old line\n+new line",
                     "user": user_json(sender, "User"), "author_association": "MEMBER",
                     "created_at": "2024-01-02T03:04:05Z" },
        "pull_request": pull_payload(repo, number, head),
        "repository": repo_json(repo),
        "sender": user_json(sender, "User"),
    }))
    .expect("json")
}

/// A `pull_request_review.submitted` payload with `body` on PR `number`.
pub fn review_submitted(repo: &str, number: u64, head: &str, body: &str, sender: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "action": "submitted",
        "review": { "id": 555, "body": body, "state": "commented",
                    "user": user_json(sender, "User"), "author_association": "MEMBER" },
        "pull_request": pull_payload(repo, number, head),
        "repository": repo_json(repo),
        "sender": user_json(sender, "User"),
    }))
    .expect("json")
}

/// An `issues.assigned` payload: `sender` assigns issue `number` to `assignee`.
pub fn issues_assigned(
    repo: &str,
    number: u64,
    title: &str,
    body: &str,
    assignee: &str,
    sender: &str,
) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "action": "assigned",
        "issue": { "number": number, "title": title, "body": body, "state": "open",
                   "user": user_json(sender, "User") },
        "assignee": user_json(assignee, "User"),
        "repository": repo_json(repo),
        "sender": user_json(sender, "User"),
    }))
    .expect("json")
}

fn pull_payload(repo: &str, number: u64, head: &str) -> Value {
    json!({ "number": number, "title": "PR title", "body": "PR body", "state": "open",
            "head": { "ref": head, "repo": { "full_name": repo } },
            "base": { "ref": "main", "repo": { "full_name": repo } } })
}

/// A `pull_request.labeled` payload.
pub fn pull_request_labeled(
    repo: &str,
    number: u64,
    head: &str,
    head_repo: &str,
    label: &str,
    sender: &str,
) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "action": "labeled",
        "pull_request": { "number": number, "title": "PR title", "body": "PR body", "state": "open",
                          "head": { "ref": head, "repo": { "full_name": head_repo } },
                          "base": { "ref": "main", "repo": { "full_name": repo } } },
        "label": { "name": label },
        "repository": repo_json(repo),
        "sender": user_json(sender, "User"),
    }))
    .expect("json")
}

// ---- a fake executor ---------------------------------------------------------------------

/// What [`FakeExecutor`] does.
#[derive(Debug, Clone)]
pub enum FakeBehavior {
    /// Writes `hello.txt` and a report; `done_success`.
    Succeed,
    /// Writes a report; `aborted_stuck` by `planner_to_researcher`.
    AbortLoop,
    /// Writes `partial.txt`, then fails with this error (e.g. the model is down).
    Fail(String),
    /// Signals `started` and waits until cancelled (for crash tests).
    Hang,
}

/// An executor that does what it is told, counting calls and concurrency per workdir issue.
pub struct FakeExecutor {
    pub behavior: FakeBehavior,
    /// Steps reported through the progress channel.
    pub steps: u32,
    /// Time each run takes (before its outcome).
    pub delay: Duration,
    pub calls: std::sync::atomic::AtomicU32,
    running: Mutex<HashMap<String, u32>>,
    /// The most runs seen at once on one goal's first line (one issue).
    pub max_concurrent_same_issue: std::sync::atomic::AtomicU32,
    pub started: Notify,
    /// Goals received, in order.
    pub goals: Mutex<Vec<String>>,
}

impl FakeExecutor {
    pub fn new(behavior: FakeBehavior) -> Self {
        Self {
            behavior,
            steps: 3,
            delay: Duration::ZERO,
            calls: Default::default(),
            running: Mutex::new(HashMap::new()),
            max_concurrent_same_issue: Default::default(),
            started: Notify::new(),
            goals: Mutex::new(Vec::new()),
        }
    }

    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn calls(&self) -> u32 {
        self.calls.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A plausible outcome for tests.
pub fn sample_outcome(
    run_id: &RunId,
    status: TerminalStatus,
    rule: Option<StopRule>,
    report: &str,
) -> RunOutcome {
    let (reason, counters) = match rule {
        Some(StopRule::PlannerToResearcher) => (
            "planner routed to the researcher 5 times without new findings".to_string(),
            LoopCounters {
                planner_to_researcher: 5,
                planner_to_coder: 0,
                planner_to_verifier: 0,
            },
        ),
        Some(r) => (format!("stop rule {r} fired"), LoopCounters::default()),
        None => (
            "the goal is met and the tests pass".to_string(),
            LoopCounters {
                planner_to_researcher: 1,
                planner_to_coder: 1,
                planner_to_verifier: 1,
            },
        ),
    };
    RunOutcome {
        run_id: run_id.clone(),
        summary: RunSummary {
            terminal_status: status,
            stop_rule: rule,
            stop_reason: reason,
            loop_counters: counters,
            total_steps: 7,
            model_calls: 6,
            prompt_tokens: 1000,
            completion_tokens: 200,
            fix_attempts: 0,
            report_path: report.into(),
            issues_md_path: ".sdd/issues.md".into(),
        },
        cost_usd: Some(0.0042),
        duration_ms: 1234,
        failure_summary: None,
        mermaid: "flowchart LR\n  planner --> researcher\n  researcher --> planner".into(),
        files_changed: Vec::new(),
        report_rel_path: report.into(),
        issues_rel_path: None,
        model: "fake".into(),
        change_summary: Some("wrote hello.txt".into()),
        verification: None,
    }
}

#[async_trait::async_trait]
impl RunExecutor for FakeExecutor {
    async fn execute(
        &self,
        req: RunRequest,
        progress: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        use std::sync::atomic::Ordering;
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.goals.lock().unwrap().push(req.goal.clone());
        let key = req.goal.lines().next().unwrap_or_default().to_string();
        {
            let mut r = self.running.lock().unwrap();
            let n = r.entry(key.clone()).or_default();
            *n += 1;
            self.max_concurrent_same_issue
                .fetch_max(*n, Ordering::SeqCst);
        }
        struct Leave<'a>(&'a Mutex<HashMap<String, u32>>, String);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                if let Ok(mut r) = self.0.lock() {
                    if let Some(n) = r.get_mut(&self.1) {
                        *n = n.saturating_sub(1);
                    }
                }
            }
        }
        let _leave = Leave(&self.running, key);
        self.started.notify_waiters();
        for i in 1..=self.steps {
            let _ = progress.send(StepProgress {
                step: i,
                node: if i % 2 == 1 { "planner" } else { "researcher" }.into(),
                decision: "researcher".into(),
                reason: format!("step {i}"),
                progress: false,
            });
        }
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let report = format!(".sdd/runs/{}.md", req.run_id);
        let write = |rel: &str, text: &str| -> anyhow::Result<()> {
            let p = req.workdir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(p, text)?;
            Ok(())
        };
        match &self.behavior {
            FakeBehavior::Succeed => {
                write("hello.txt", "hello from kotef\n")?;
                write(&report, "# Run report\n\nterminal_status: done_success\n")?;
                let mut o = sample_outcome(&req.run_id, TerminalStatus::DoneSuccess, None, &report);
                o.files_changed = vec!["hello.txt".into()];
                o.verification = Some(kotef_core::Verification {
                    command: "grep -q hello hello.txt".into(),
                    passed: true,
                });
                Ok(o)
            }
            FakeBehavior::AbortLoop => {
                write(&report, "# Run report\n\nterminal_status: aborted_stuck\n")?;
                write(".sdd/issues.md", "- planner loop detected\n")?;
                let mut o = sample_outcome(
                    &req.run_id,
                    TerminalStatus::AbortedStuck,
                    Some(StopRule::PlannerToResearcher),
                    &report,
                );
                o.issues_rel_path = Some(".sdd/issues.md".into());
                o.failure_summary = Some("researcher returned no new information 5 times".into());
                Ok(o)
            }
            FakeBehavior::Fail(msg) => {
                write("partial.txt", "half done\n")?;
                anyhow::bail!("{msg}")
            }
            FakeBehavior::Hang => std::future::pending::<anyhow::Result<RunOutcome>>().await,
        }
    }
}

/// Redacts volatile parts of a comment for snapshots: run ids, file paths, timestamps.
pub fn redact_volatile(text: &str, run_id: &str, extra: &[(&str, &str)]) -> String {
    let mut out = text.replace(run_id, "[RUN_ID]");
    for (from, to) in extra {
        out = out.replace(from, to);
    }
    out
}
