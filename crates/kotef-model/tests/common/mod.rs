//! A scripted HTTP provider on loopback for the client tests: an axum app bound to
//! 127.0.0.1:0 that records every request (path, headers, JSON body) and answers with the
//! next scripted reply (the last one again once the script is used up).

#![allow(dead_code)]

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use kotef_model::{Message, ModelRequest, RetryPolicy, Role, ToolCall, ToolSchema};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// Status, extra headers, body text (served as application/json).
    Body(u16, Vec<(&'static str, String)>, String),
    /// Never answers.
    Hang,
    /// Answers the way llama.cpp's server does: HTTP 500 with its JSON-parse error when an
    /// assistant tool call's `arguments` in the history is not a JSON object, else a `done` call.
    LlamaCpp,
}

/// llama.cpp's answer to a history whose tool-call arguments are not a JSON object.
pub const LLAMA_PARSE_ERROR: &str = "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 1: syntax error while parsing value - invalid literal; last read: 'F'";

fn llama_cpp(body: &Value) -> (u16, String) {
    let bad = body["messages"].as_array().into_iter().flatten().any(|m| {
        m["tool_calls"].as_array().into_iter().flatten().any(|c| {
            let args = c["function"]["arguments"].as_str().unwrap_or("");
            !matches!(serde_json::from_str::<Value>(args), Ok(Value::Object(_)))
        })
    });
    if bad {
        let e =
            json!({"error": {"code": 500, "message": LLAMA_PARSE_ERROR, "type": "server_error"}});
        return (500, e.to_string());
    }
    let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "x", "type": "function",
        "function": {"name": "done", "arguments": "{\"summary\":\"ok\"}"}}]});
    (
        200,
        openai_ok(call, "tool_calls", Some((10, 2))).to_string(),
    )
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Self {
        Reply::Body(status, vec![], body.to_string())
    }
    pub fn raw(status: u16, body: &str) -> Self {
        Reply::Body(status, vec![], body.to_string())
    }
    pub fn with_header(self, name: &'static str, value: &str) -> Self {
        match self {
            Reply::Body(s, mut h, b) => {
                h.push((name, value.to_string()));
                Reply::Body(s, h, b)
            }
            other => other,
        }
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Value,
}

struct St {
    replies: Vec<Reply>,
    seen: Mutex<Vec<Seen>>,
}

pub struct Mock {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    state: Arc<St>,
}

impl Mock {
    pub async fn start(replies: Vec<Reply>) -> Mock {
        assert!(!replies.is_empty());
        let state = Arc::new(St {
            replies,
            seen: Mutex::new(Vec::new()),
        });
        let app = Router::new().fallback(handle).with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Mock {
            url: format!("http://{addr}"),
            state,
        }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    pub fn count(&self) -> usize {
        self.state.seen.lock().unwrap().len()
    }
}

async fn handle(State(st): State<Arc<St>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let index = {
        let mut seen = st.seen.lock().unwrap();
        seen.push(Seen {
            path: uri.path().to_string(),
            headers,
            body: body.clone(),
        });
        seen.len() - 1
    };
    match st.replies[index.min(st.replies.len() - 1)].clone() {
        Reply::LlamaCpp => {
            let (status, text) = llama_cpp(&body);
            (
                StatusCode::from_u16(status).unwrap(),
                [("content-type", "application/json")],
                text,
            )
                .into_response()
        }
        Reply::Hang => {
            std::future::pending::<()>().await;
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
        Reply::Body(status, extra, body) => {
            let mut resp = (
                StatusCode::from_u16(status).unwrap(),
                [("content-type", "application/json")],
                body,
            )
                .into_response();
            for (k, v) in extra {
                resp.headers_mut().insert(k, v.parse().unwrap());
            }
            resp
        }
    }
}

/// Retries in milliseconds.
pub fn fast_policy(max_retries: u32) -> RetryPolicy {
    RetryPolicy::default()
        .with_max_retries(max_retries)
        .with_base_delay(Duration::from_millis(2))
        .with_max_delay(Duration::from_millis(10))
        .with_max_total_wait(Duration::from_secs(5))
}

/// A coder-like request: system, user, an assistant tool call, its result, one tool.
pub fn tool_request() -> ModelRequest {
    ModelRequest {
        node: kotef_core::NodeName::Coder,
        messages: vec![
            Message::system("You are kotef's coder."),
            Message::user("Make the test pass."),
            Message {
                role: Role::Assistant,
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "read_file".into(),
                    arguments: json!({"path": "src/lib.rs"}),
                }],
                tool_call_id: None,
            },
            Message::tool_result("call_1", "pub fn add() {}"),
        ],
        tools: vec![ToolSchema {
            name: "read_file".into(),
            description: "Read a file of the repository".into(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"]
            }),
        }],
        json_reply: false,
        temperature: None,
        max_tokens: None,
        code_reply: false,
        alternatives: None,
    }
}

/// A planner-like request asking for JSON.
pub fn json_request() -> ModelRequest {
    ModelRequest {
        node: kotef_core::NodeName::Planner,
        messages: vec![
            Message::system("Plan. Answer in JSON."),
            Message::user("Goal: fix it"),
        ],
        tools: vec![],
        json_reply: true,
        temperature: None,
        max_tokens: None,
        code_reply: false,
        alternatives: None,
    }
}

/// A Chat Completions success body.
pub fn openai_ok(message: Value, finish: &str, usage: Option<(u64, u64)>) -> Value {
    let mut v = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": null}],
        "system_fingerprint": "fp_x"
    });
    if let Some((p, c)) = usage {
        v["usage"] = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c});
    }
    v
}
