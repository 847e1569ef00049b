//! The fake's HTTP surface: the axum router with one handler per GitHub REST endpoint kotef
//! calls, the authentication and fault-injection middleware, and the request log.

use crate::payloads::user_json;
use crate::state::{
    FakeComment, FakeDispatch, FakePull, FakeReaction, FakeState, FaultKind, LoggedRequest, St,
    FAKE_BOT_LOGIN, FAKE_TOKEN,
};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use chrono::Utc;
use serde_json::{json, Value};

fn err(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "message": message }))).into_response()
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

async fn post_access_token(
    State(st): State<St>,
    Path(id): Path<u64>,
    body: axum::body::Bytes,
) -> Response {
    let mut s = st.state.lock().unwrap();
    s.next_id += 1;
    let token = format!("ghs_installation_{id}_{}", s.next_id);
    s.installation_tokens.push(token.clone());
    // An empty body (an unscoped token) is recorded as `null`.
    let request = serde_json::from_slice(&body).unwrap_or(Value::Null);
    s.token_requests.push(request);
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

/// The fake's router: every endpoint behind the authentication and fault-injection gate.
pub(crate) fn router(shared: St) -> Router {
    Router::new()
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
        .with_state(shared)
}
