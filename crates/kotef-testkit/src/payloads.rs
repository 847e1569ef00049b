//! Webhook deliveries: payload builders for the events kotef handles (issues, comments, review
//! comments and reviews, pull requests, workflow dispatches) and [`send_webhook`], which signs
//! and posts one.

use chrono::{DateTime, Utc};
use kotef_github::inbound::signature::{sign, SIGNATURE_HEADER};
use serde_json::{json, Value};

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
        .header(SIGNATURE_HEADER, sign(secret, body))
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

pub(crate) fn user_json(login: &str, kind: &str) -> Value {
    let id = login
        .bytes()
        .fold(1000u64, |a, b| a.wrapping_mul(31).wrapping_add(b as u64))
        % 1_000_000;
    json!({ "login": login, "id": id, "type": kind })
}

/// A `push` payload: one commit on `branch` of `repo` (default branch `main`) that modified
/// `files`.
pub fn push(repo: &str, branch: &str, files: &[&str]) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "ref": format!("refs/heads/{branch}"),
        "before": "0000000000000000000000000000000000000001",
        "after": "0000000000000000000000000000000000000002",
        "created": false, "deleted": false, "forced": false,
        "commits": [{ "id": "0000000000000000000000000000000000000002",
                      "added": [], "removed": [], "modified": files }],
        "repository": repo_json(repo),
        "sender": user_json("alice", "User"),
    }))
    .expect("json")
}
