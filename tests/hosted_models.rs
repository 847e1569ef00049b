//! Models as a user names them, against fake providers on loopback through the real clients:
//! every model the README names starts with the README's `max-cost-usd` and reaches a model
//! call, priced (the bundled local model at $0); an OpenRouter-style server that answers with native
//! tool calls gets the tool loop with the default `edit_format = auto` and a reply cap with
//! room for a whole file, also after eight 500s in a row; a server that writes its tool calls
//! as text moves the coder to edit blocks.

mod support;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use kotef::sdd::report::ReportJson;
use kotef_core::{RunSummary, TerminalStatus};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// How the fake answers the coder.
#[derive(Clone, Copy, Default, PartialEq)]
enum Calls {
    /// Native `tool_calls`.
    #[default]
    Native,
    /// The call as JSON in the reply's text (a server without tool calling).
    Text,
}

#[derive(Default)]
struct Fake {
    calls: Calls,
    /// Answer this many requests with 500 (and `retry-after-ms: 1`) first.
    fail_first: u32,
    coder_calls: u32,
    planner_calls: u32,
    /// Every request body, in order.
    seen: Vec<Value>,
}

fn node(system: &str) -> &'static str {
    if system.contains("**planner**") {
        "planner"
    } else if system.contains("**coder**") {
        "coder"
    } else {
        "other"
    }
}

/// What the model says next: (text, native call as (name, arguments)).
fn turn(f: &mut Fake, node: &str) -> (String, Option<(&'static str, Value)>) {
    match node {
        "planner" => {
            f.planner_calls += 1;
            let d = if f.planner_calls == 1 {
                json!({"next": "coder", "reason": "write it", "task": "Create hello.txt containing hello"})
            } else {
                json!({"next": "done", "reason": "the tests pass"})
            };
            (d.to_string(), None)
        }
        "coder" => {
            f.coder_calls += 1;
            let call = match (f.calls, f.coder_calls) {
                (Calls::Text, _) => ("read_file", json!({"path": "README.md"})),
                (_, 1) => (
                    "write_file",
                    json!({"path": "hello.txt", "content": "hello\n"}),
                ),
                _ => ("done", json!({"summary": "wrote hello.txt"})),
            };
            match f.calls {
                Calls::Native => (String::new(), Some(call)),
                Calls::Text => (
                    json!({"name": call.0, "arguments": call.1}).to_string(),
                    None,
                ),
            }
        }
        _ => (
            json!({"findings": "nothing", "quality": 0.1}).to_string(),
            None,
        ),
    }
}

/// The refusals OpenAI's own API gives its reasoning models (gpt-5*, o-series).
fn openai_refusal(body: &Value) -> Option<Response> {
    let model = body["model"].as_str().unwrap_or_default();
    let reasoning =
        model.starts_with("gpt-5") || model.starts_with("o3") || model.starts_with("o4");
    let bad = if !reasoning {
        None
    } else if body.get("max_tokens").is_some() {
        Some("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
    } else if body.get("temperature").is_some_and(|t| t != 1.0) {
        Some("Unsupported value: 'temperature' does not support 0.2 with this model.")
    } else {
        None
    };
    bad.map(|m| {
        let e = json!({"error": {"message": m, "type": "invalid_request_error"}});
        (StatusCode::BAD_REQUEST, Json(e)).into_response()
    })
}

/// Takes a request: records it, and says whether to fail it with a 500.
fn take(fake: &Arc<Mutex<Fake>>, body: &Value) -> bool {
    let mut f = fake.lock().unwrap();
    f.seen.push(body.clone());
    if f.fail_first > 0 {
        f.fail_first -= 1;
        return true;
    }
    false
}

fn server_error() -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [("retry-after-ms", "1")],
        "{\"error\": {\"message\": \"upstream error\"}}",
    )
        .into_response()
}

async fn chat(State(fake): State<Arc<Mutex<Fake>>>, Json(body): Json<Value>) -> Response {
    if take(&fake, &body) {
        return server_error();
    }
    if let Some(refused) = openai_refusal(&body) {
        return refused;
    }
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    let (text, call) = turn(&mut fake.lock().unwrap(), node(system));
    let message = match call {
        Some((name, args)) => json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}),
        None => json!({"role": "assistant", "content": text}),
    };
    Json(
        json!({"id": "x", "object": "chat.completion", "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 100}}),
    )
    .into_response()
}

async fn messages(State(fake): State<Arc<Mutex<Fake>>>, Json(body): Json<Value>) -> Response {
    if take(&fake, &body) {
        return server_error();
    }
    let system = match &body["system"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let (text, call) = turn(&mut fake.lock().unwrap(), node(&system));
    let content = match call {
        Some((name, args)) => {
            json!([{"type": "tool_use", "id": "t1", "name": name, "input": args}])
        }
        None => json!([{"type": "text", "text": text}]),
    };
    Json(
        json!({"id": "msg", "type": "message", "role": "assistant", "content": content,
        "stop_reason": "end_turn", "usage": {"input_tokens": 1000, "output_tokens": 100}}),
    )
    .into_response()
}

/// The fake on loopback: (its root URL, its state).
async fn serve(fake: Fake) -> (String, Arc<Mutex<Fake>>) {
    let state = Arc::new(Mutex::new(fake));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/api/v1/chat/completions", post(chat))
        .route("/v1/messages", post(messages))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), state)
}

struct Ran {
    summary: RunSummary,
    report: ReportJson<'static>,
    stderr: String,
}

/// `kotef run` of "add hello.txt" with `model`, `env` and `flags`, as a user runs it.
async fn kotef_run(model: &str, env: &[(&str, String)], flags: &[&str]) -> Ran {
    let repo = kotef_testkit::git::uncommitted_repo(&[("README.md", "# x\n")]);
    let mut run = support::kotef_run(repo.path())
        .model(model)
        .test_command("grep -q hello hello.txt")
        .args(flags)
        .goal("Add hello.txt")
        .env_remove(&[
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "KOTEF_LOCAL_MODEL_URL",
            "KOTEF_PRICE_PER_MTOK",
        ])
        .timeout(std::time::Duration::from_secs(120));
    for (key, value) in env {
        run = run.env(key, value);
    }
    let ran = run.run().await;
    let summary = ran.summary();
    let report = support::report::twin(&repo.path().join(&summary.report_path));
    Ran {
        summary,
        report,
        stderr: ran.stderr,
    }
}

/// The model specs the README names (`openai:…`, `anthropic:…` in backticks) and the
/// `max-cost-usd` of its workflow.
fn readme_models_and_budget() -> (Vec<String>, String) {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut models: Vec<String> = readme
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            (s.starts_with("openai:") || s.starts_with("anthropic:"))
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-.:/_".contains(c))
        })
        .map(str::to_string)
        .collect();
    models.sort();
    models.dedup();
    let budget = readme
        .lines()
        .find_map(|l| l.trim().strip_prefix("max-cost-usd:"))
        .map(|v| v.trim().trim_matches('"').to_string())
        .expect("the README's workflow sets max-cost-usd");
    (models, budget)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_model_the_readme_names_starts_with_its_budget_and_is_priced() {
    let (models, budget) = readme_models_and_budget();
    assert!(models.len() >= 3, "the README names models: {models:?}");
    for model in &models {
        let (url, fake) = serve(Fake::default()).await;
        let env = [
            ("OPENAI_BASE_URL", format!("{url}/v1")),
            ("OPENAI_API_KEY", "sk-fake".to_string()),
            ("ANTHROPIC_BASE_URL", url.clone()),
            ("ANTHROPIC_API_KEY", "sk-ant-fake".to_string()),
        ];
        let ran = kotef_run(model, &env, &["--cost-budget-usd", &budget]).await;
        let calls = fake.lock().unwrap().seen.len();
        assert!(
            calls >= 1 && !ran.stderr.contains("is unknown"),
            "{model} reached a model call with a known price ({calls} requests): {}",
            ran.stderr
        );
        assert_eq!(
            ran.summary.terminal_status,
            TerminalStatus::DoneSuccess,
            "{model}: {:?}",
            ran.summary
        );
        assert!(
            ran.report.cost_usd.is_some_and(|c| c > 0.0),
            "{model} is priced: {:?}",
            ran.report.cost_usd
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_local_model_costs_nothing_under_the_readme_budget() {
    let (_, budget) = readme_models_and_budget();
    let (url, fake) = serve(Fake::default()).await;
    let env = [("KOTEF_LOCAL_MODEL_URL", format!("{url}/v1"))];
    let ran = kotef_run("local", &env, &["--cost-budget-usd", &budget]).await;
    let seen = fake.lock().unwrap().seen.clone();
    assert!(
        !seen.is_empty() && !ran.stderr.contains("is unknown"),
        "{}",
        ran.stderr
    );
    assert_eq!(ran.report.cost_usd, Some(0.0));
    let limits = &ran.report.limits;
    assert_eq!(
        (
            limits.max_model_calls,
            limits.coder_step_calls,
            limits.token_budget
        ),
        (40, 12, 600_000),
        "budgets sized for a CPU"
    );
    assert!(
        seen.iter()
            .all(|b| b["model"] == "local" && b["max_tokens"].as_u64().is_some_and(|n| n <= 1024)),
        "the bundled model, with short replies: {seen:?}"
    );
}

/// The coder's requests: (whether they offered tools, their `max_tokens`).
fn coder_requests(fake: &Arc<Mutex<Fake>>) -> Vec<(bool, Value)> {
    fake.lock()
        .unwrap()
        .seen
        .iter()
        .filter(|b| !node(b["messages"][0]["content"].as_str().unwrap_or_default()).eq("planner"))
        .map(|b| {
            (
                b["tools"].as_array().is_some_and(|t| !t.is_empty()),
                b["max_tokens"].clone(),
            )
        })
        .collect()
}

async fn openrouter_run(fail_first: u32) -> (Ran, Arc<Mutex<Fake>>) {
    let (url, fake) = serve(Fake {
        fail_first,
        ..Fake::default()
    })
    .await;
    let env = [
        ("OPENAI_BASE_URL", format!("{url}/api/v1")),
        ("OPENAI_API_KEY", "sk-or-fake".to_string()),
    ];
    let ran = kotef_run("openai:anthropic/claude-sonnet-4.5", &env, &[]).await;
    (ran, fake)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_openrouter_style_server_with_native_tool_calls_gets_the_tool_loop_with_auto() {
    let (ran, fake) = openrouter_run(0).await;
    assert_eq!(
        ran.summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stderr
    );
    let coder = coder_requests(&fake);
    assert!(
        !coder.is_empty() && coder.iter().all(|(tools, cap)| *tools && cap == 16_384),
        "every coder request offered tools, with room for a whole file: {coder:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_loop_survives_eight_server_errors_in_a_row() {
    let (ran, fake) = openrouter_run(8).await;
    assert_eq!(
        ran.summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stderr
    );
    let coder = coder_requests(&fake);
    assert!(coder.iter().all(|(tools, _)| *tools), "{coder:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_writes_tool_calls_as_text_moves_the_coder_to_edit_blocks() {
    let (url, fake) = serve(Fake {
        calls: Calls::Text,
        ..Fake::default()
    })
    .await;
    let env = [("OPENAI_BASE_URL", format!("{url}/v1"))];
    let ran = kotef_run("openai:qwen2.5-coder", &env, &["--max-model-calls", "4"]).await;
    let coder = coder_requests(&fake);
    assert!(
        coder.len() >= 2 && coder[0].0 && !coder[1].0,
        "tools first, then the repair loop's requests without them: {coder:?}\n{}",
        ran.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_price_prices_a_model_the_table_lacks() {
    let (url, _fake) = serve(Fake::default()).await;
    let env = [
        ("OPENAI_BASE_URL", format!("{url}/v1")),
        ("KOTEF_PRICE_PER_MTOK", "1, 2".to_string()),
    ];
    let ran = kotef_run("openai:mystery-model", &env, &["--cost-budget-usd", "0.5"]).await;
    let (p, c) = (
        ran.summary.prompt_tokens as f64,
        ran.summary.completion_tokens as f64,
    );
    let cost = ran.report.cost_usd.unwrap_or_default();
    assert!(
        p > 0.0 && (cost - (p + 2.0 * c) / 1e6).abs() < 1e-9,
        "priced at $1 in, $2 out: {cost} for {p} + {c}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_operator_price_is_refused_before_any_call() {
    let (url, fake) = serve(Fake::default()).await;
    let repo = kotef_testkit::git::uncommitted_repo(&[("README.md", "# x\n")]);
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_kotef"))
        .args([
            "run",
            "--model",
            "openai:mystery-model",
            "--goal",
            "x",
            "--repo",
        ])
        .arg(repo.path())
        .env_remove("KOTEF_MODEL")
        .env("OPENAI_BASE_URL", format!("{url}/v1"))
        .env("KOTEF_PRICE_PER_MTOK", "cheap")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("price-per-mtok `cheap`") && stderr.contains("KOTEF_PRICE_PER_MTOK"),
        "{stderr}"
    );
    assert!(fake.lock().unwrap().seen.is_empty());
}
