//! The Anthropic client against a scripted Messages API on loopback: request shape and
//! headers, tool_use / tool_result blocks, usage, overload retries and rejections.

mod common;

use common::{fast_policy, json_request, tool_request, Mock, Reply};
use kotef_model::{AnthropicModel, ClientOptions, Model, ModelError, Usage};
use serde_json::json;
use std::time::{Duration, Instant};

const KEY: &str = "sk-ant-api03-test-key-0123456789";

fn model(mock: &Mock, retries: u32) -> AnthropicModel {
    AnthropicModel::new(
        ClientOptions::new("claude-sonnet-4-20250514", mock.url.clone())
            .with_api_key(KEY)
            .with_retry(fast_policy(retries)),
    )
    .unwrap()
}

fn tool_use_reply() -> serde_json::Value {
    json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
        "content": [
            {"type": "text", "text": "I will write the fix."},
            {"type": "tool_use", "id": "toolu_01", "name": "write_file",
             "input": {"path": "src/lib.rs", "content": "pub fn add() {}"}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 812, "output_tokens": 64,
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 100}
    })
}

#[tokio::test]
async fn tool_use_blocks_and_usage() {
    let mock = Mock::start(vec![Reply::json(200, tool_use_reply())]).await;
    let m = model(&mock, 2);
    let reply = m.complete(&tool_request()).await.unwrap();
    assert_eq!(reply.content, "I will write the fix.");
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(reply.tool_calls[0].id, "toolu_01");
    assert_eq!(reply.tool_calls[0].name, "write_file");
    assert_eq!(reply.tool_calls[0].arguments["path"], "src/lib.rs");
    assert_eq!(reply.finish_reason.as_deref(), Some("tool_use"));
    assert_eq!(
        reply.usage,
        Usage {
            prompt_tokens: 912,
            completion_tokens: 64
        }
    );

    let seen = mock.requests();
    assert_eq!(seen.len(), 1);
    let s = &seen[0];
    assert_eq!(s.path, "/v1/messages");
    assert_eq!(s.headers.get("x-api-key").unwrap(), KEY);
    assert_eq!(s.headers.get("anthropic-version").unwrap(), "2023-06-01");
    assert!(s.headers.get("authorization").is_none());
    assert_eq!(s.body["model"], "claude-sonnet-4-20250514");
    assert_eq!(s.body["max_tokens"], 8192);
    assert_eq!(s.body["system"], "You are kotef's coder.");
    assert_eq!(
        s.body["tools"],
        json!([{"name": "read_file", "description": "Read a file of the repository",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}])
    );
    assert_eq!(
        s.body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Make the test pass."}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "call_1", "name": "read_file", "input": {"path": "src/lib.rs"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "pub fn add() {}"}
            ]}
        ])
    );
    let r = m.take_call_records();
    assert_eq!(r.len(), 1);
    assert!(r[0].usage_reported);
    assert_eq!(r[0].model, "anthropic:claude-sonnet-4-20250514");
    assert!(m.take_failed_attempts().is_empty());
}

#[tokio::test]
async fn overloaded_then_success() {
    let mock = Mock::start(vec![
        Reply::json(
            529,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
        Reply::json(200, tool_use_reply()),
    ])
    .await;
    let m = model(&mock, 3);
    let req = json_request();
    let reply = m.complete(&req).await.unwrap();
    assert_eq!(reply.tool_calls[0].name, "write_file");
    assert_eq!(mock.count(), 2);
    assert_eq!(
        m.take_failed_attempts(),
        vec![Usage {
            prompt_tokens: req.estimated_prompt_tokens(),
            completion_tokens: 0
        }]
    );
    let r = m.take_call_records();
    assert_eq!(r[0].status, Some(529));
    assert!(r[0].error.as_deref().unwrap().contains("Overloaded"));
    // The JSON request asks for JSON in `system`; Anthropic has no JSON mode.
    assert!(mock.requests()[0].body["system"]
        .as_str()
        .unwrap()
        .contains("JSON object"));
}

#[tokio::test]
async fn rate_limit_reset_header_is_honoured() {
    let reset = chrono::Utc::now() + chrono::Duration::milliseconds(1000);
    let mock = Mock::start(vec![
        Reply::json(
            429,
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}}),
        )
        .with_header("anthropic-ratelimit-tokens-remaining", "0")
        .with_header(
            "anthropic-ratelimit-tokens-reset",
            &reset.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        ),
        Reply::json(200, tool_use_reply()),
    ])
    .await;
    let m = model(&mock, 2);
    let t = Instant::now();
    m.complete(&tool_request()).await.unwrap();
    // Backoff alone waits at most 10 ms.
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(mock.count(), 2);
}

#[tokio::test]
async fn bad_request_is_rejected_with_the_message() {
    let mock = Mock::start(vec![Reply::json(
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error",
               "message": "messages.1.content.0.tool_use.input: Input should be a valid dictionary"}}),
    )])
    .await;
    let m = model(&mock, 4);
    let err = m.complete(&tool_request()).await.unwrap_err();
    assert_eq!(mock.count(), 1);
    assert_eq!(
        err,
        ModelError::Rejected {
            status: 400,
            message: "messages.1.content.0.tool_use.input: Input should be a valid dictionary (invalid_request_error)".into()
        }
    );
    assert!(m.take_failed_attempts().is_empty());
}

#[tokio::test]
async fn auth_error_does_not_leak_the_key() {
    let mock = Mock::start(vec![Reply::json(
        401,
        json!({"type": "error", "error": {"type": "authentication_error",
               "message": format!("invalid x-api-key {KEY}")}}),
    )])
    .await;
    let m = model(&mock, 4);
    let err = m.complete(&tool_request()).await.unwrap_err();
    assert_eq!(mock.count(), 1);
    assert!(matches!(err, ModelError::Rejected { status: 401, .. }));
    assert!(!err.to_string().contains(KEY), "{err}");
    assert!(err.to_string().contains("invalid x-api-key"), "{err}");
}

#[tokio::test]
async fn missing_usage_and_stop_reason_are_tolerated() {
    let mock = Mock::start(vec![Reply::json(
        200,
        json!({"content": [{"type": "text", "text": "```json\n{\"next\": \"done\"}\n```"}]}),
    )])
    .await;
    let m = model(&mock, 0);
    let req = json_request();
    let reply = m.complete(&req).await.unwrap();
    assert_eq!(reply.content, "{\"next\": \"done\"}");
    assert_eq!(reply.finish_reason, None);
    assert_eq!(reply.usage.prompt_tokens, req.estimated_prompt_tokens());
    assert_eq!(reply.usage.completion_tokens, 4);
}
