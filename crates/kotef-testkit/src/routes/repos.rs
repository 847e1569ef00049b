//! The fake's users, App installation, repositories, permissions, contents, issues and
//! workflow dispatches.

use super::*;

pub(super) async fn get_user(State(st): State<St>, headers: HeaderMap) -> Response {
    Json(user_json(&login_of(&headers, &st), "User")).into_response()
}

pub(super) async fn get_app(State(st): State<St>) -> Response {
    let slug = st.state.lock().unwrap().app_slug.clone();
    Json(json!({ "id": 1, "slug": slug, "name": slug })).into_response()
}

pub(super) async fn get_repo(
    State(st): State<St>,
    Path((o, r)): Path<(String, String)>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        Ok(Json(json!({
            "full_name": key,
            "default_branch": s.repos[key].default_branch,
            "html_url": format!("https://github.test/{key}"),
        }))
        .into_response())
    })
}

pub(super) async fn get_installation(
    State(st): State<St>,
    Path((o, r)): Path<(String, String)>,
) -> Response {
    with_repo(&st, &o, &r, |_, _| {
        Ok(Json(json!({ "id": 77 })).into_response())
    })
}

pub(super) async fn post_access_token(
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

pub(super) async fn get_permission(
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
pub(super) struct RefQuery {
    #[serde(rename = "ref", default)]
    git_ref: Option<String>,
}

/// A file's `ETag`, as GitHub gives one: a quoted digest of what is served.
fn etag_of(text: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    format!("\"{:016x}\"", h.finish())
}

pub(super) async fn get_contents(
    State(st): State<St>,
    Path((o, r, path)): Path<(String, String, String)>,
    Query(q): Query<RefQuery>,
    headers: HeaderMap,
) -> Response {
    let if_none_match = headers
        .get(axum::http::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    with_repo(&st, &o, &r, |s, key| {
        let repo = &s.repos[key];
        let git_ref = q.git_ref.unwrap_or_else(|| repo.default_branch.clone());
        match repo.files.get(&(git_ref, path.clone())) {
            // Unchanged since the caller's copy: 304, as GitHub answers a conditional request.
            Some(text) if if_none_match.as_deref() == Some(etag_of(text).as_str()) => {
                Ok(StatusCode::NOT_MODIFIED.into_response())
            }
            Some(text) => {
                let etag = etag_of(text);
                use base64::Engine as _;
                let encoded = base64::engine::general_purpose::STANDARD.encode(text);
                // GitHub wraps the base64 text at 60 characters.
                let wrapped: Vec<String> = encoded
                    .as_bytes()
                    .chunks(60)
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect();
                Ok((
                    [(axum::http::header::ETAG, etag)],
                    Json(json!({
                        "type": "file", "path": path, "encoding": "base64",
                        "content": wrapped.join("\n") + "\n",
                    })),
                )
                    .into_response())
            }
            None => Err(not_found()),
        }
    })
}

pub(super) async fn get_issue(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
) -> Response {
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
pub(super) struct DispatchReq {
    #[serde(rename = "ref")]
    git_ref: String,
    #[serde(default)]
    inputs: serde_json::Map<String, Value>,
}

pub(super) async fn dispatch(
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
