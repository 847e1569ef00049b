//! The fake's pull requests: listed (by head), created, read, updated, their files and review
//! comments.

use super::*;

pub(super) async fn list_pull_files(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let files = s.pull_files.get(&(key.to_string(), n)).cloned();
        Ok(Json(Value::Array(files.unwrap_or_default())).into_response())
    })
}

pub(super) async fn list_review_comments(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
) -> Response {
    with_repo(&st, &o, &r, |s, key| {
        let list = s.review_comments.get(&(key.to_string(), n)).cloned();
        Ok(Json(Value::Array(list.unwrap_or_default())).into_response())
    })
}

#[derive(serde::Deserialize)]
pub(super) struct PullQuery {
    #[serde(default)]
    head: Option<String>,
    #[serde(default)]
    state: Option<String>,
}

pub(super) async fn list_pulls(
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
pub(super) struct NewPull {
    title: String,
    head: String,
    base: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    draft: Option<bool>,
}

pub(super) async fn create_pull(
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

pub(super) async fn get_pull(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
) -> Response {
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
pub(super) struct PullEdit {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
}

pub(super) async fn update_pull(
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
