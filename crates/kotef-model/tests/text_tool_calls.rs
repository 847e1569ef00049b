//! Tool calls a model wrote as text, end to end through the OpenAI-compatible client: raw
//! replies a real local model (Qwen2.5-Coder-1.5B-Instruct on llama.cpp, see
//! `scripts/local-model.sh` and `fixtures/text-tool-calls/collect.py`) returned, served by
//! the scripted provider; plus `response_format` refusal and the sampling settings of
//! `[model]` on the wire.

mod common;

use common::{fast_policy, json_request, openai_ok, Mock, Reply};
use kotef_core::config::ModelConfig;
use kotef_model::{
    model_from_spec_with_policy, ClientOptions, Message, Model, ModelRequest, OpenAiModel,
    ToolSchema, Usage,
};
use serde_json::{json, Value};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/text-tool-calls"
);

/// kotef's coder tools, as offered to the model.
fn coder_tools() -> Vec<ToolSchema> {
    "list_files read_file search write_file edit_file run_command done"
        .split(' ')
        .map(|n| ToolSchema {
            name: n.into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {}}),
        })
        .collect()
}

fn coder_request() -> ModelRequest {
    ModelRequest {
        node: kotef_core::NodeName::Coder,
        messages: vec![Message::user("Fix add() in calc.py.")],
        tools: coder_tools(),
        json_reply: false,
        temperature: None,
        max_tokens: None,
        code_reply: false,
        alternatives: None,
    }
}

fn model(mock: &Mock) -> OpenAiModel {
    OpenAiModel::new(
        ClientOptions::new("local", format!("{}/v1", mock.url)).with_retry(fast_policy(0)),
    )
    .unwrap()
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}.json")).unwrap()
}

/// One real transcript through the client: the calls it yields as (name, arguments).
async fn calls_of(name: &str) -> (Vec<(String, Value)>, bool) {
    let mock = Mock::start(vec![Reply::raw(200, &fixture(name))]).await;
    let reply = model(&mock).complete(&coder_request()).await.unwrap();
    let calls = reply
        .tool_calls
        .into_iter()
        .map(|c| (c.name, c.arguments))
        .collect();
    (calls, reply.calls_from_text)
}

#[tokio::test]
async fn real_transcripts_table() {
    let unittest = "python3 -m unittest -q test_calc";
    let table: Vec<(&str, Vec<(&str, Value)>)> = vec![
        // A fenced ```json block.
        (
            "first-turn",
            vec![("run_command", json!({"command": unittest}))],
        ),
        // Bare JSON objects.
        (
            "after-read",
            vec![(
                "edit_file",
                json!({"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
            )],
        ),
        (
            "after-test",
            vec![(
                "edit_file",
                json!({"path": "test_calc.py", "old": "assert 1 == 5", "new": "assert -1 == 5"}),
            )],
        ),
        (
            "after-edit",
            vec![("run_command", json!({"command": unittest}))],
        ),
        (
            "after-pass",
            vec![(
                "done",
                json!({"summary": "Fixed add() in calc.py to pass the test."}),
            )],
        ),
        // A whole-file write that pastes read_file's header in: parsed as written.
        (
            "missing-function",
            vec![(
                "write_file",
                json!({"path": "calc.py", "content": "[calc.py lines 1-6 of 6]\ndef add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"}),
            )],
        ),
        // `<tools>` around one OpenAI-shaped call per line.
        (
            "two-files",
            vec![
                (
                    "edit_file",
                    json!({"path": "strings.py", "old": "shout", "new": "upper_shout bang"}),
                ),
                ("run_command", json!({"command": "python3 -m unittest -q"})),
            ],
        ),
        // Two objects in one fence.
        (
            "read-both",
            vec![
                (
                    "read_file",
                    json!({"path": "calc.py", "start_line": 1, "end_line": null}),
                ),
                (
                    "read_file",
                    json!({"path": "test_calc.py", "start_line": 1, "end_line": null}),
                ),
            ],
        ),
        (
            "explore",
            vec![(
                "search",
                json!({"pattern": "greeting", "path": "src/main.py"}),
            )],
        ),
        (
            "kotef-prompt",
            vec![(
                "search",
                json!({"pattern": "return a \\+ b", "path": "calc.py"}),
            )],
        ),
        (
            "first-turn-hot",
            vec![("search", json!({"pattern": "add\\(\\)", "path": "calc.py"}))],
        ),
    ];
    for (name, want) in table {
        let (got, from_text) = calls_of(name).await;
        let want: Vec<(String, Value)> =
            want.into_iter().map(|(n, a)| (n.to_string(), a)).collect();
        assert_eq!(got, want, "{name}");
        assert!(from_text, "{name}");
    }
}

/// Replies of the 0.5B model (`scripts/local-model.sh --small`): weaker, so some hold no call.
#[tokio::test]
async fn small_model_transcripts_table() {
    let unittest = "python3 -m unittest -q test_calc";
    let table: Vec<(&str, Vec<(&str, Value)>)> = vec![
        // A fenced object whose "name" is the task, not a tool.
        ("small/first-turn", vec![]),
        // One call repeated until max_tokens, the last one cut off: each call once.
        (
            "small/after-read",
            vec![
                ("read_file", json!({"path": "calc.py"})),
                ("read_file", json!({"path": "test_calc.py"})),
            ],
        ),
        // Three calls repeated; `done` with its argument beside the name.
        (
            "small/after-test",
            vec![
                (
                    "edit_file",
                    json!({"path": "calc.py", "old": "-1", "new": "5"}),
                ),
                ("run_command", json!({"command": unittest})),
                (
                    "done",
                    json!({"summary": "Fix add() in calc.py so that the test passes. Test command: python3 -m unittest -q test_calc"}),
                ),
            ],
        ),
        // The previous tool result echoed back: not a call.
        ("small/after-edit", vec![]),
    ];
    for (name, want) in table {
        let (got, from_text) = calls_of(name).await;
        let want: Vec<(String, Value)> =
            want.into_iter().map(|(n, a)| (n.to_string(), a)).collect();
        assert_eq!(from_text, !want.is_empty(), "{name}");
        assert_eq!(got, want, "{name}");
    }
}

#[tokio::test]
async fn every_real_transcript_yields_an_offered_call() {
    let mut names: Vec<String> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    for name in names {
        let (calls, from_text) = calls_of(&name).await;
        assert!(!calls.is_empty() && from_text, "{name}: no call parsed");
    }
}

#[tokio::test]
async fn the_reply_keeps_the_text_and_gives_text_call_ids() {
    let mock = Mock::start(vec![Reply::raw(200, &fixture("first-turn"))]).await;
    let reply = model(&mock).complete(&coder_request()).await.unwrap();
    assert!(reply.content.contains("```json"), "{}", reply.content);
    assert_eq!(reply.tool_calls[0].id, "text_call_0");
    assert!(kotef_model::is_text_call(&reply.tool_calls[0]));
}

#[tokio::test]
async fn text_calls_go_back_to_the_server_as_structured_calls() {
    let mock = Mock::start(vec![
        Reply::raw(200, &fixture("after-read")),
        Reply::json(200, openai_ok(json!({"content": "ok"}), "stop", None)),
    ])
    .await;
    let m = model(&mock);
    let mut req = coder_request();
    let reply = m.complete(&req).await.unwrap();
    req.messages.push(Message {
        role: kotef_model::Role::Assistant,
        content: reply.content.clone(),
        tool_calls: reply.tool_calls.clone(),
        tool_call_id: None,
    });
    req.messages.push(Message::tool_result(
        &reply.tool_calls[0].id,
        "{\"edited\": \"calc.py\"}",
    ));
    m.complete(&req).await.unwrap();
    let sent = &mock.requests()[1].body["messages"];
    assert_eq!(sent[1]["tool_calls"][0]["id"], "text_call_0");
    assert_eq!(sent[1]["tool_calls"][0]["function"]["name"], "edit_file");
    assert_eq!(sent[2]["tool_call_id"], "text_call_0");
}

#[tokio::test]
async fn prose_without_a_call_stays_prose() {
    let mock = Mock::start(vec![Reply::json(
        200,
        openai_ok(
            json!({"content": "The function should be {\"op\": \"+\"}. I cannot call tools."}),
            "stop",
            Some((10, 5)),
        ),
    )])
    .await;
    let reply = model(&mock).complete(&coder_request()).await.unwrap();
    assert!(reply.tool_calls.is_empty());
    assert!(!reply.calls_from_text);
}

#[tokio::test]
async fn a_refused_response_format_is_asked_again_without_it_once() {
    let mock = Mock::start(vec![
        Reply::json(
            400,
            json!({"error": {"message": "response_format is not supported", "type": "invalid_request_error"}}),
        ),
        Reply::json(200, openai_ok(json!({"content": "{\"next\": \"done\"}"}), "stop", Some((9, 3)))),
    ])
    .await;
    let m = model(&mock);
    let reply = m.complete(&json_request()).await.unwrap();
    assert_eq!(reply.content, "{\"next\": \"done\"}");
    let seen = mock.requests();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[0].body["response_format"],
        json!({"type": "json_object"})
    );
    assert!(seen[1].body.get("response_format").is_none());
    assert_eq!(
        m.take_failed_attempts(),
        vec![Usage {
            prompt_tokens: json_request().estimated_prompt_tokens(),
            completion_tokens: 0
        }]
    );
}

#[tokio::test]
async fn after_a_refusal_json_requests_go_without_response_format() {
    let mock = Mock::start(vec![
        Reply::json(
            400,
            json!({"error": {"message": "unknown field response_format"}}),
        ),
        Reply::json(200, openai_ok(json!({"content": "{}"}), "stop", None)),
    ])
    .await;
    let m = model(&mock);
    m.complete(&json_request()).await.unwrap();
    m.complete(&json_request()).await.unwrap();
    let seen = mock.requests();
    assert_eq!(seen.len(), 3);
    assert!(seen[2].body.get("response_format").is_none());
}

#[tokio::test]
async fn another_400_is_not_retried() {
    let mock = Mock::start(vec![Reply::json(
        400,
        json!({"error": {"message": "messages must not be empty"}}),
    )])
    .await;
    assert!(model(&mock).complete(&json_request()).await.is_err());
    assert_eq!(mock.count(), 1);
}

async fn body_sent_with(cfg: ModelConfig) -> Value {
    body_of(cfg, json_request()).await
}

async fn body_of(cfg: ModelConfig, request: kotef_model::ModelRequest) -> Value {
    let mock = Mock::start(vec![Reply::json(
        200,
        openai_ok(json!({"content": "{}"}), "stop", None),
    )])
    .await;
    let base = format!("{}/v1", mock.url);
    let env = move |k: &str| (k == "OPENAI_BASE_URL").then(|| base.clone());
    let m = model_from_spec_with_policy("openai:local", &cfg, &env, fast_policy(0)).unwrap();
    m.complete(&request).await.unwrap();
    mock.requests()[0].body.clone()
}

#[tokio::test]
async fn a_request_temperature_wins_over_the_configured_one() {
    let request = kotef_model::ModelRequest {
        temperature: Some(0.8),
        max_tokens: None,
        code_reply: false,
        alternatives: None,
        ..json_request()
    };
    assert_eq!(
        body_of(ModelConfig::default(), request).await["temperature"],
        0.8
    );
}

#[tokio::test]
async fn low_temperature_and_a_reply_cap_are_sent_by_default() {
    let body = body_sent_with(ModelConfig::default()).await;
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(body["max_tokens"], 1024);
}

#[tokio::test]
async fn configured_temperature_and_max_tokens_are_sent() {
    let body = body_sent_with(ModelConfig {
        temperature: Some(0.0),
        max_tokens: Some(512),
        ..Default::default()
    })
    .await;
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["max_tokens"], 512);
}

#[test]
fn out_of_range_sampling_settings_are_config_errors() {
    let env = |_: &str| Some("http://127.0.0.1:1/v1".to_string());
    for (cfg, word) in [
        (
            ModelConfig {
                temperature: Some(3.0),
                ..Default::default()
            },
            "temperature",
        ),
        (
            ModelConfig {
                max_tokens: Some(0),
                ..Default::default()
            },
            "max_tokens",
        ),
    ] {
        let e = model_from_spec_with_policy("openai:local", &cfg, &env, fast_policy(0))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains(word), "{e}");
    }
}
