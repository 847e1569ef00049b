//! The fake's issue comments and reactions: listed by page, created, edited, reacted to.

use super::*;

#[derive(serde::Deserialize)]
pub(super) struct PageQuery {
    #[serde(default)]
    page: Option<usize>,
    #[serde(default)]
    per_page: Option<usize>,
}

pub(super) async fn list_comments(
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
pub(super) struct BodyReq {
    body: String,
}

pub(super) async fn create_comment(
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

pub(super) async fn edit_comment(
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
pub(super) struct ReactionReq {
    content: String,
}

pub(super) async fn react(
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

pub(super) async fn react_issue(
    State(st): State<St>,
    Path((o, r, n)): Path<(String, String, u64)>,
    Json(b): Json<ReactionReq>,
) -> Response {
    react(&st, &o, &r, n, false, b.content).await
}

pub(super) async fn react_comment(
    State(st): State<St>,
    Path((o, r, id)): Path<(String, String, u64)>,
    Json(b): Json<ReactionReq>,
) -> Response {
    react(&st, &o, &r, id, true, b.content).await
}

pub(super) async fn react_review_comment(
    State(st): State<St>,
    Path((o, r, id)): Path<(String, String, u64)>,
    Json(b): Json<ReactionReq>,
) -> Response {
    react(&st, &o, &r, id, true, b.content).await
}
