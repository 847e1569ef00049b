//! `kotef run` against a fake OpenAI-compatible server over loopback HTTP, through the real
//! reqwest client: the success path with tool calls, a flaky provider (500 then OK), and a
//! provider that keeps failing. The API key never reaches a report.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use kotef_core::{RunSummary, StopRule, TerminalStatus};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

const KEY: &str = "sk-test-e2e-0123456789abcdef";

#[derive(Default)]
struct Fake {
    planner_calls: u32,
    coder_calls: u32,
    requests: u32,
    /// Answer this many requests with 500 first.
    fail_first: u32,
    /// Answer everything with 503.
    always_fail: bool,
}

fn reply(message: Value) -> Value {
    json!({"id": "x", "object": "chat.completion", "model": "fake",
           "choices": [{"index": 0, "message": message, "finish_reason": ""}],
           "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
}

async fn chat(State(fake): State<Arc<Mutex<Fake>>>, Json(body): Json<Value>) -> Response {
    let mut f = fake.lock().unwrap();
    f.requests += 1;
    if f.always_fail {
        return (StatusCode::SERVICE_UNAVAILABLE, "overloaded").into_response();
    }
    if f.fail_first > 0 {
        f.fail_first -= 1;
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "{\"error\": {\"message\": \"boom\"}}",
        )
            .into_response();
    }
    let system = body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let message = if system.contains("**planner**") {
        f.planner_calls += 1;
        let d = if f.planner_calls == 1 {
            json!({"next": "coder", "reason": "write it", "task": "Create hello.txt containing hello"})
        } else {
            json!({"next": "done", "reason": "tests pass"})
        };
        json!({"role": "assistant", "content": d.to_string()})
    } else if system.contains("**coder**") {
        f.coder_calls += 1;
        let (name, args) = if f.coder_calls == 1 {
            (
                "write_file",
                json!({"path": "hello.txt", "content": "hello\n"}).to_string(),
            )
        } else {
            ("done", json!({"summary": "wrote hello.txt"}).to_string())
        };
        json!({"role": "assistant", "content": null,
               "tool_calls": [{"id": format!("c{}", f.coder_calls), "type": "function",
                               "function": {"name": name, "arguments": args}}]})
    } else {
        json!({"role": "assistant", "content": "{\"findings\": \"nothing\", \"quality\": 0.1}"})
    };
    Json(reply(message)).into_response()
}

async fn serve(fake: Fake) -> (String, Arc<Mutex<Fake>>) {
    let state = Arc::new(Mutex::new(fake));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), state)
}

fn repo() -> tempfile::TempDir {
    kotef_testkit::git::uncommitted_repo(&[(
        "README.md",
        "# x
",
    )])
}

/// `kotef run` against the fake at `base_url`: its exit code and summary.
async fn kotef_run(base_url: &str, repo: &std::path::Path) -> (i32, RunSummary) {
    let ran = kotef_testkit::KotefRun::new(env!("CARGO_BIN_EXE_kotef"), repo)
        .openai(base_url, KEY)
        .test_command("grep -q hello hello.txt")
        // The fake answers with native tool calls whatever it is offered: the tool loop.
        .args(["--edit-format", "tools"])
        .goal("Add hello.txt")
        .run()
        .await;
    (ran.code, ran.summary())
}

fn assert_no_key_in(dir: &std::path::Path) {
    for entry in std::fs::read_dir(dir.join(".sdd/runs")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains(KEY), "the API key leaked into a report");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_against_fake_openai_server_succeeds() {
    let (url, fake) = serve(Fake::default()).await;
    let dir = repo();
    let (code, s) = kotef_run(&url, dir.path()).await;
    assert_eq!(code, 0, "{s:?}");
    assert_eq!(s.terminal_status, TerminalStatus::DoneSuccess);
    assert_eq!(
        s.prompt_tokens, 200,
        "provider-reported usage is used (the opening verification sends the failure straight to the coder: 2 calls): {s:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
    assert_eq!(fake.lock().unwrap().requests, 2);
    assert_no_key_in(dir.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flaky_provider_is_retried_and_counted() {
    let (url, fake) = serve(Fake {
        fail_first: 1,
        ..Fake::default()
    })
    .await;
    let dir = repo();
    let (code, s) = kotef_run(&url, dir.path()).await;
    assert_eq!(code, 0, "{s:?}");
    assert_eq!(fake.lock().unwrap().requests, 3);
    assert_eq!(s.model_calls, 2, "a retried call is one call: {s:?}");
    assert!(
        s.prompt_tokens > 200,
        "the failed attempt's tokens are charged: {s:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_provider_ends_with_model_error() {
    let (url, _fake) = serve(Fake {
        always_fail: true,
        ..Fake::default()
    })
    .await;
    let dir = repo();
    std::fs::write(dir.path().join("kotef.toml"), "[model]\nmax_retries = 1\n").unwrap();
    let (code, s) = kotef_run(&url, dir.path()).await;
    assert_eq!(code, 3, "{s:?}");
    assert_eq!(s.terminal_status, TerminalStatus::AbortedStuck);
    assert_eq!(s.stop_rule, Some(StopRule::ModelError));
    assert!(dir.path().join(".sdd/issues.md").exists());
    assert_no_key_in(dir.path());
}
