//! A request the server calls malformed is never sent: tool-call arguments in the history are
//! always a JSON object, also when the model wrote a string; and a server error that says the
//! request could not be parsed is not retried as an outage. The fake answers exactly as
//! llama.cpp's server did to the history kotef used to send. And a right edit followed by a
//! runaway to the token cap is kept, not thrown away with the cut-off JSON.

mod common;

use common::{fast_policy, Mock, Reply, LLAMA_PARSE_ERROR};
use kotef_model::{
    ClientOptions, Message, Model, ModelError, ModelRequest, OpenAiModel, Role, ToolCall,
};
use serde_json::json;

fn model(mock: &Mock) -> OpenAiModel {
    OpenAiModel::new(
        ClientOptions::new("qwen", format!("{}/v1", mock.url)).with_retry(fast_policy(5)),
    )
    .unwrap()
}

/// The history after a text tool call whose `arguments` was a string.
fn history_with_string_arguments() -> ModelRequest {
    ModelRequest {
        node: kotef_core::NodeName::Coder,
        messages: vec![
            Message::system("You are the coder."),
            Message::user("Fix gcd.py"),
            Message {
                role: Role::Assistant,
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "done".into(),
                    arguments: json!("Fixed gcd.py by swapping the arguments"),
                }],
                tool_call_id: None,
            },
            Message::tool_result("call_1", "Refused: the tests still fail."),
        ],
        tools: vec![],
        json_reply: false,
        temperature: None,
        max_tokens: None,
        code_reply: false,
        alternatives: None,
    }
}

#[tokio::test]
async fn a_string_the_model_wrote_as_arguments_goes_back_as_a_json_object() {
    let mock = Mock::start(vec![Reply::LlamaCpp]).await;
    let reply = model(&mock)
        .complete(&history_with_string_arguments())
        .await;
    assert!(reply.is_ok(), "{reply:?}");
}

#[tokio::test]
async fn a_request_the_server_calls_malformed_is_sent_once() {
    let body =
        json!({"error": {"code": 500, "message": LLAMA_PARSE_ERROR, "type": "server_error"}});
    let mock = Mock::start(vec![Reply::json(500, body)]).await;
    let _ = model(&mock)
        .complete(&history_with_string_arguments())
        .await;
    assert_eq!(mock.count(), 1);
}

#[tokio::test]
async fn a_request_the_server_calls_malformed_ends_with_the_servers_words() {
    let body =
        json!({"error": {"code": 500, "message": LLAMA_PARSE_ERROR, "type": "server_error"}});
    let mock = Mock::start(vec![Reply::json(500, body)]).await;
    let e = model(&mock)
        .complete(&history_with_string_arguments())
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ModelError::Rejected { status: 500, message } if message.contains("Failed to parse tool call arguments")),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_right_edit_cut_off_by_a_runaway_reply_is_kept() {
    // The first reply held exactly the right change, then `\n` to the token cap.
    let content = format!(
        r#"{{"name": "edit_file", "arguments": {{"path": "gcd.py", "old": "return gcd(a, a % b)", "new": "return gcd(b, a % b){}"#,
        "\\n".repeat(500)
    );
    let body = common::openai_ok(
        json!({"role": "assistant", "content": content}),
        "length",
        Some((900, 1024)),
    );
    let mock = Mock::start(vec![Reply::json(200, body)]).await;
    let mut req = history_with_string_arguments();
    req.tools = vec![kotef_model::ToolSchema {
        name: "edit_file".into(),
        description: "Replace text".into(),
        parameters: json!({"type": "object", "required": ["path", "old", "new"]}),
    }];
    let reply = model(&mock).complete(&req).await.unwrap();
    assert_eq!(reply.tool_calls.len(), 1, "{reply:?}");
    assert_eq!(reply.tool_calls[0].arguments["new"], "return gcd(b, a % b)");
}
