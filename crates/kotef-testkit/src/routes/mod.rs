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

mod comments;
mod pulls;
mod repos;
use comments::*;
use pulls::*;
use repos::*;

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
    let mut resp = resp;
    let mut s = st.state.lock().unwrap();
    if let Some((remaining, reset)) = s.rate_limit {
        let h = resp.headers_mut();
        h.insert("x-ratelimit-remaining", remaining.into());
        h.insert("x-ratelimit-reset", reset.into());
    }
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
