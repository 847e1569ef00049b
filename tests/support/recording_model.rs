//! A fake OpenAI-compatible Chat Completions server on a loopback port that records every
//! request (`Authorization` header and JSON body) and answers each node with a fixed reply:
//! the planner with `planner_reply`, every other node with a `done` tool call. Used to see
//! exactly what reaches a model, and that a host nobody should contact gets nothing.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::routing::any;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub authorization: Option<String>,
    pub body: Value,
}

impl Seen {
    /// Every message's text content, joined.
    pub fn text(&self) -> String {
        self.body["messages"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter_map(|m| m["content"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }

    pub fn is_planner(&self) -> bool {
        self.text().contains("**planner**")
    }

    pub fn is_coder(&self) -> bool {
        self.text().contains("**coder**")
    }
}

struct Shared {
    seen: Mutex<Vec<Seen>>,
    planner_reply: String,
    /// Tool calls (`{"name": .., "arguments": {..}}`) the coder answers with, in order; then `done`.
    coder_calls: Vec<Value>,
}

pub struct RecordingModel {
    shared: Arc<Shared>,
    addr: std::net::SocketAddr,
}

impl RecordingModel {
    /// Starts a server whose planner always answers `planner_reply` (a JSON decision).
    pub async fn start(planner_reply: Value) -> Self {
        Self::scripted(planner_reply, Vec::new()).await
    }

    /// As [`Self::start`], with a coder that answers its requests with `coder_calls` in order
    /// (each `{"name": .., "arguments": {..}}`), then with `done`.
    pub async fn scripted(planner_reply: Value, coder_calls: Vec<Value>) -> Self {
        let shared = Arc::new(Shared {
            seen: Mutex::new(Vec::new()),
            planner_reply: planner_reply.to_string(),
            coder_calls,
        });
        let app = Router::new()
            .fallback(any(handle))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { shared, addr }
    }

    /// The base URL to give a client: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `kotef run` of this build against this server (`--model openai:fake-model`), with `key`
    /// as the operator's API key.
    pub fn kotef_run(&self, repo: &std::path::Path, key: &str) -> kotef_testkit::KotefRun {
        super::kotef_run(repo).openai(&self.base_url(), key)
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.shared.seen.lock().unwrap().clone()
    }

    /// The first planner request, if any.
    pub fn first_planner_request(&self) -> Option<Seen> {
        self.requests().into_iter().find(Seen::is_planner)
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> impl IntoResponse {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let seen = Seen {
        authorization: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        body,
    };
    let mut all = shared.seen.lock().unwrap();
    let coder_turn = all.iter().filter(|s| s.is_coder()).count();
    let message = if seen.is_planner() {
        json!({"role": "assistant", "content": shared.planner_reply})
    } else {
        let call = match shared
            .coder_calls
            .get(coder_turn)
            .filter(|_| seen.is_coder())
        {
            Some(c) => c.clone(),
            None => json!({"name": "done", "arguments": {"summary": "nothing to do"}}),
        };
        json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": format!("call_{}", all.len() + 1), "type": "function",
            "function": {"name": call["name"], "arguments": call["arguments"].to_string()}
        }]})
    };
    all.push(seen);
    drop(all);
    Json(json!({
        "id": "x", "object": "chat.completion", "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10}
    }))
}
