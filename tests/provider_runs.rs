//! Whole runs through the real OpenAI-compatible and Anthropic clients against fake providers
//! on loopback, one per fault the issue names: 429 with Retry-After, 500 then success, a
//! timeout, a malformed JSON body, a tool call with bad arguments, an empty reply, an empty
//! `finish_reason` with no usage, Anthropic tool use and overload, an outage shorter than the
//! retry window. Each ends in a named status with a report.

mod support;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use kotef::run::{self, RunSetup};
use kotef_core::config::ModelConfig;
use kotef_core::{KotefConfig, Profile, Redactor, RunOutcome, StopRule, TerminalStatus};
use kotef_model::retry::RetryPolicy;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone)]
enum Fault {
    RateLimited { retry_after_s: u32 },
    ServerError,
    Hang(Duration),
    MalformedBody,
    EmptyReply,
    BadToolArgs,
    Overloaded,
}

#[derive(Default)]
struct Fake {
    faults: VecDeque<Fault>,
    /// Faults applied to every request once the queue is empty.
    forever: Option<Fault>,
    planner: u32,
    coder: u32,
    requests: u32,
    with_usage: bool,
}

enum Turn {
    Text(String),
    Tool {
        id: String,
        name: &'static str,
        args: String,
    },
}

impl Fake {
    fn next_fault(&mut self, node: &str) -> Option<Fault> {
        let f = self
            .faults
            .front()
            .cloned()
            .or_else(|| self.forever.clone())?;
        if matches!(f, Fault::BadToolArgs) && node != "coder" {
            return None;
        }
        self.faults.pop_front();
        Some(f)
    }

    /// The scripted conversation: planner → coder (write, done) → planner done.
    fn turn(&mut self, node: &str) -> Turn {
        match node {
            "planner" => {
                self.planner += 1;
                let d = if self.planner == 1 {
                    json!({"next": "coder", "reason": "write it", "task": "Create hello.txt containing hello"})
                } else {
                    json!({"next": "done", "reason": "verified"})
                };
                Turn::Text(d.to_string())
            }
            "coder" => {
                self.coder += 1;
                if self.coder == 1 {
                    Turn::Tool {
                        id: "w1".into(),
                        name: "write_file",
                        args: json!({"path": "hello.txt", "content": "hello\n"}).to_string(),
                    }
                } else {
                    Turn::Tool {
                        id: format!("d{}", self.coder),
                        name: "done",
                        args: json!({"summary": "ok"}).to_string(),
                    }
                }
            }
            _ => Turn::Text(json!({"findings": "n/a", "quality": 0.1}).to_string()),
        }
    }
}

fn node_of(system: &str) -> &'static str {
    if system.contains("**planner**") {
        "planner"
    } else if system.contains("**coder**") {
        "coder"
    } else {
        "researcher"
    }
}

async fn fault_response(f: Fault) -> Option<Response> {
    Some(match f {
        Fault::RateLimited { retry_after_s } => {
            (StatusCode::TOO_MANY_REQUESTS, [("retry-after", retry_after_s.to_string())], "{\"error\": {\"message\": \"slow down\"}}").into_response()
        }
        Fault::ServerError => (StatusCode::INTERNAL_SERVER_ERROR, "{\"error\": {\"message\": \"boom\"}}").into_response(),
        Fault::Overloaded => (StatusCode::from_u16(529).unwrap(), "{\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}").into_response(),
        Fault::Hang(d) => {
            tokio::time::sleep(d).await;
            (StatusCode::GATEWAY_TIMEOUT, "late").into_response()
        }
        Fault::MalformedBody => (StatusCode::OK, [("content-type", "application/json")], "{\"choices\": [ {\"message\": ").into_response(),
        Fault::EmptyReply | Fault::BadToolArgs => return None,
    })
}

async fn openai(State(fake): State<Arc<Mutex<Fake>>>, Json(body): Json<Value>) -> Response {
    let system = body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let node = node_of(&system);
    let (fault, turn, usage) = {
        let mut f = fake.lock().unwrap();
        f.requests += 1;
        let fault = f.next_fault(node);
        let turn = if fault.is_none() {
            Some(f.turn(node))
        } else {
            None
        };
        (fault, turn, f.with_usage)
    };
    if let Some(f) = fault.clone() {
        if let Some(resp) = fault_response(f).await {
            return resp;
        }
    }
    let message = match (fault, turn) {
        (Some(Fault::EmptyReply), _) => json!({"role": "assistant", "content": ""}),
        (Some(Fault::BadToolArgs), _) => {
            json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "bad", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\": \"hello.txt\", \"content\": "}}]})
        }
        (_, Some(Turn::Text(t))) => json!({"role": "assistant", "content": t}),
        (_, Some(Turn::Tool { id, name, args })) => {
            json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": name, "arguments": args}}]})
        }
        _ => json!({"role": "assistant", "content": ""}),
    };
    let mut reply = json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": ""}]});
    if usage {
        reply["usage"] = json!({"prompt_tokens": 100, "completion_tokens": 10});
    }
    Json(reply).into_response()
}

async fn anthropic(State(fake): State<Arc<Mutex<Fake>>>, Json(body): Json<Value>) -> Response {
    let system = match &body["system"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let node = node_of(&system);
    let (fault, turn) = {
        let mut f = fake.lock().unwrap();
        f.requests += 1;
        let fault = f.next_fault(node);
        let turn = if fault.is_none() {
            Some(f.turn(node))
        } else {
            None
        };
        (fault, turn)
    };
    if let Some(f) = fault {
        if let Some(resp) = fault_response(f).await {
            return resp;
        }
    }
    let content = match turn {
        Some(Turn::Text(t)) => json!([{"type": "text", "text": t}]),
        Some(Turn::Tool { id, name, args }) => {
            json!([{"type": "tool_use", "id": id, "name": name, "input": serde_json::from_str::<Value>(&args).unwrap()}])
        }
        None => json!([]),
    };
    Json(
        json!({"id": "msg", "type": "message", "role": "assistant", "content": content,
                "stop_reason": null, "usage": {"input_tokens": 50, "output_tokens": 5}}),
    )
    .into_response()
}

async fn start(fake: Fake) -> (String, Arc<Mutex<Fake>>) {
    let state = Arc::new(Mutex::new(fake));
    let app = Router::new()
        .route("/v1/chat/completions", post(openai))
        .route("/v1/messages", post(anthropic))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), state)
}

/// Retries in milliseconds, at most 2 per call.
fn test_policy() -> RetryPolicy {
    RetryPolicy::default()
        .with_max_retries(2)
        .with_base_delay(Duration::from_millis(10))
        .with_max_delay(Duration::from_millis(50))
        .with_retry_window(Duration::from_secs(5))
}

async fn run_against(
    provider: &str,
    base: &str,
    timeout_s: u64,
) -> (RunOutcome, tempfile::TempDir) {
    run_with_policy(provider, base, timeout_s, test_policy()).await
}

async fn run_with_policy(
    provider: &str,
    base: &str,
    timeout_s: u64,
    policy: RetryPolicy,
) -> (RunOutcome, tempfile::TempDir) {
    let dir = kotef_testkit::git::uncommitted_repo(&[("README.md", "# x\n")]);
    let cfg = ModelConfig {
        base_url: Some(if provider == "openai" {
            format!("{base}/v1")
        } else {
            base.to_string()
        }),
        timeout_s: Some(timeout_s),
        ..Default::default()
    };
    let env =
        |k: &str| (k.ends_with("_API_KEY")).then(|| "sk-test-provider-runs-0123456789".to_string());
    let model = kotef_model::model_from_spec_with_policy(
        &format!("{provider}:fake-model"),
        &cfg,
        &env,
        policy,
    )
    .unwrap();
    let setup = RunSetup::new(dir.path(), "Add hello.txt", KotefConfig::default(), model)
        .profile(Some(Profile::Strict))
        .test_command(Some("grep -q hello hello.txt".into()))
        // The faults are placed on a planner-first run's calls (the first call a planner's).
        .verify_first(Some(false))
        .redactor(Redactor::new());
    let out = run::execute(setup).await.unwrap();
    assert!(
        dir.path().join(&out.report_rel_path).exists(),
        "a report on every ending"
    );
    (out, dir)
}

fn fake(faults: Vec<Fault>) -> Fake {
    Fake {
        faults: faults.into(),
        with_usage: true,
        ..Fake::default()
    }
}

fn assert_success(out: &RunOutcome) {
    assert_eq!(
        out.summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        out.summary.stop_reason
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_with_retry_after_then_success() {
    let (base, state) = start(fake(vec![Fault::RateLimited { retry_after_s: 1 }])).await;
    let started = std::time::Instant::now();
    let (out, dir) = run_against("openai", &base, 30).await;
    assert_success(&out);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    assert_eq!(state.lock().unwrap().requests, 5);
    assert_eq!(
        out.summary.model_calls, 4,
        "the rate-limited attempt is part of its call"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_error_then_success() {
    let (base, _) = start(fake(vec![Fault::ServerError, Fault::ServerError])).await;
    let (out, _dir) = run_against("openai", &base, 30).await;
    assert_success(&out);
    assert_eq!(out.summary.model_calls, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_shorter_than_the_retry_window_is_survived() {
    let (base, state) = start(fake(vec![Fault::ServerError; 8])).await;
    let policy = RetryPolicy::default()
        .with_base_delay(Duration::from_millis(5))
        .with_max_delay(Duration::from_millis(20))
        .with_retry_window(Duration::from_secs(20));
    let (out, dir) = run_with_policy("openai", &base, 30, policy).await;
    assert_success(&out);
    assert_eq!(state.lock().unwrap().requests, 12);
    assert_eq!(out.summary.model_calls, 4, "the outage is one call");
    let twin = support::report::twin(&dir.path().join(&out.report_rel_path));
    let first = &twin.calls[0];
    assert_eq!(first.attempts, 9, "{first:?}");
    assert!(
        first
            .last_error
            .as_deref()
            .unwrap_or_default()
            .contains("boom"),
        "{first:?}"
    );
    let report = std::fs::read_to_string(dir.path().join(&out.report_rel_path)).unwrap();
    assert!(report.contains("Provider retries: 1 call(s)"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_then_success() {
    let (base, _) = start(fake(vec![Fault::Hang(Duration::from_secs(3))])).await;
    let (out, _dir) = run_against("openai", &base, 1).await;
    assert_success(&out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_forever_ends_with_model_error() {
    let (base, _) = start(Fake {
        forever: Some(Fault::MalformedBody),
        ..fake(vec![])
    })
    .await;
    let (out, dir) = run_against("openai", &base, 30).await;
    assert_eq!(out.summary.terminal_status, TerminalStatus::AbortedStuck);
    assert_eq!(out.summary.stop_rule, Some(StopRule::ModelError));
    assert!(dir.path().join(".sdd/issues.md").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn providers_that_keep_failing_end_with_model_error() {
    let (base, _) = start(Fake {
        forever: Some(Fault::ServerError),
        ..fake(vec![])
    })
    .await;
    let (out, _dir) = run_against("openai", &base, 30).await;
    assert_eq!(out.summary.stop_rule, Some(StopRule::ModelError));
    assert!(
        out.summary.stop_reason.contains("failed 3 calls in a row"),
        "{}",
        out.summary.stop_reason
    );
    assert_eq!(
        out.summary.model_calls, 3,
        "a call with its retries is one call"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_call_with_bad_arguments_is_a_tool_error_and_the_run_goes_on() {
    let (base, _) = start(fake(vec![Fault::BadToolArgs])).await;
    let (out, dir) = run_against("openai", &base, 30).await;
    assert_success(&out);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_reply_is_re_asked() {
    let (base, _) = start(fake(vec![Fault::EmptyReply])).await;
    let (out, _dir) = run_against("openai", &base, 30).await;
    assert_success(&out);
    assert_eq!(out.summary.model_calls, 5, "one planner re-ask");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_finish_reason_and_missing_usage_are_tolerated() {
    let (base, _) = start(Fake {
        with_usage: false,
        ..Fake::default()
    })
    .await;
    let (out, _dir) = run_against("openai", &base, 30).await;
    assert_success(&out);
    assert!(
        out.summary.prompt_tokens > 0,
        "estimated when the provider sends no usage"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_tool_use_run_succeeds_after_overload() {
    let (base, state) = start(fake(vec![Fault::Overloaded])).await;
    let (out, dir) = run_against("anthropic", &base, 30).await;
    assert_success(&out);
    assert_eq!(state.lock().unwrap().requests, 5);
    // Four answered calls at 50 input tokens each, plus the overloaded attempt's estimate.
    assert!(
        out.summary.prompt_tokens > 4 * 50,
        "{}",
        out.summary.prompt_tokens
    );
    assert_eq!(out.summary.completion_tokens, 4 * 5);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
}
