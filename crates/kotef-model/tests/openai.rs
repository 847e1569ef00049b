//! The OpenAI-compatible client against a scripted provider on loopback: request shape,
//! lenient parsing, retries (Retry-After, 5xx, persistent failure, timeouts, refused
//! connections), immediate rejection with the key scrubbed, and failed-attempt accounting.

mod common;

use common::{fast_policy, json_request, openai_ok, tool_request, Mock, Reply};
use kotef_model::{ClientOptions, Model, ModelError, OpenAiModel, RetryPolicy, Usage};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-0123456789abcdefSECRET";

fn model(mock: &Mock, retry: RetryPolicy) -> OpenAiModel {
    OpenAiModel::new(
        ClientOptions::new("gpt-4o", format!("{}/v1", mock.url))
            .with_api_key(KEY)
            .with_retry(retry),
    )
    .unwrap()
}

fn estimate_only(req: &kotef_model::ModelRequest) -> Usage {
    Usage {
        prompt_tokens: req.estimated_prompt_tokens(),
        completion_tokens: 0,
    }
}

#[tokio::test]
async fn tool_calls_round_trip() {
    let mock = Mock::start(vec![Reply::json(
        200,
        openai_ok(
            json!({
                "role": "assistant",
                "content": null,
                "refusal": null,
                "tool_calls": [
                    {"id": "call_a", "type": "function",
                     "function": {"name": "write_file", "arguments": "{\"path\":\"a.rs\",\"content\":\"x\"}"}},
                    {"id": "call_b", "type": "function",
                     "function": {"name": "run_command", "arguments": "{\"cmd\":\"cargo test\"}"}}
                ]
            }),
            "tool_calls",
            Some((120, 30)),
        ),
    )])
    .await;
    let m = model(&mock, fast_policy(2));
    let req = tool_request();
    let reply = m.complete(&req).await.unwrap();
    assert_eq!(reply.content, "");
    assert_eq!(reply.tool_calls.len(), 2);
    assert_eq!(reply.tool_calls[0].id, "call_a");
    assert_eq!(reply.tool_calls[0].name, "write_file");
    assert_eq!(
        reply.tool_calls[0].arguments,
        json!({"path": "a.rs", "content": "x"})
    );
    assert_eq!(reply.tool_calls[1].arguments["cmd"], "cargo test");
    assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        reply.usage,
        Usage {
            prompt_tokens: 120,
            completion_tokens: 30
        }
    );

    let seen = mock.requests();
    assert_eq!(seen.len(), 1);
    let s = &seen[0];
    assert_eq!(s.path, "/v1/chat/completions");
    assert_eq!(
        s.headers.get("authorization").unwrap().to_str().unwrap(),
        format!("Bearer {KEY}")
    );
    assert_eq!(s.body["model"], "gpt-4o");
    assert_eq!(
        s.body["tools"],
        json!([{"type": "function", "function": {
            "name": "read_file",
            "description": "Read a file of the repository",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
        }}])
    );
    let msgs = s.body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 4);
    assert_eq!(
        msgs[0],
        json!({"role": "system", "content": "You are kotef's coder."})
    );
    assert_eq!(
        msgs[1],
        json!({"role": "user", "content": "Make the test pass."})
    );
    assert_eq!(msgs[2]["role"], "assistant");
    assert_eq!(
        msgs[2]["tool_calls"],
        json!([{"id": "call_1", "type": "function",
                "function": {"name": "read_file", "arguments": "{\"path\":\"src/lib.rs\"}"}}])
    );
    assert_eq!(
        msgs[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "pub fn add() {}"})
    );
    assert!(s.body.get("response_format").is_none());

    assert!(m.take_failed_attempts().is_empty());
    let records = m.take_call_records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].status, Some(200));
    assert_eq!(records[0].attempt, 1);
    assert!(records[0].usage_reported);
    assert_eq!(records[0].usage, reply.usage);
    assert_eq!(records[0].model, "openai:gpt-4o");
    assert!(m.take_call_records().is_empty(), "drained");
}

#[tokio::test]
async fn json_content_reply() {
    let mock = Mock::start(vec![Reply::json(
        200,
        openai_ok(
            json!({"role": "assistant", "content": "{\"next\":\"coder\",\"reason\":\"go\"}"}),
            "stop",
            Some((40, 12)),
        ),
    )])
    .await;
    let m = model(&mock, fast_policy(0));
    let reply = m.complete(&json_request()).await.unwrap();
    let v: Value = serde_json::from_str(&reply.content).unwrap();
    assert_eq!(v["next"], "coder");
    assert!(reply.tool_calls.is_empty());
    let body = &mock.requests()[0].body;
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    assert!(body.get("tools").is_none());
}

#[tokio::test]
async fn rate_limited_then_success_honours_retry_after_ms() {
    let ok = Reply::json(
        200,
        openai_ok(json!({"content": "done"}), "stop", Some((5, 1))),
    );
    let mock = Mock::start(vec![
        Reply::json(
            429,
            json!({"error": {"message": "Rate limit reached", "type": "requests"}}),
        )
        .with_header("retry-after-ms", "150")
        .with_header("retry-after", "1"),
        ok,
    ])
    .await;
    // Backoff alone would wait at most 10 ms: a longer wait is the server's hint.
    let m = model(&mock, fast_policy(3));
    let t = Instant::now();
    let reply = m.complete(&tool_request()).await.unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(150),
        "{:?}",
        t.elapsed()
    );
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(reply.content, "done");
    assert_eq!(mock.count(), 2);
    assert_eq!(
        m.take_failed_attempts(),
        vec![estimate_only(&tool_request())]
    );
    let r = m.take_call_records();
    assert_eq!(
        r.iter().map(|r| (r.attempt, r.status)).collect::<Vec<_>>(),
        [(1, Some(429)), (2, Some(200))]
    );
    assert!(r[0]
        .error
        .as_deref()
        .unwrap()
        .contains("Rate limit reached"));
}

#[tokio::test]
async fn rate_limited_then_success_honours_retry_after_seconds() {
    let mock = Mock::start(vec![
        Reply::json(429, json!({"error": {"message": "slow down"}}))
            .with_header("retry-after", "1"),
        Reply::json(200, openai_ok(json!({"content": "ok"}), "stop", None)),
    ])
    .await;
    let m = model(&mock, fast_policy(2));
    let t = Instant::now();
    m.complete(&json_request()).await.unwrap();
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(mock.count(), 2);
}

#[tokio::test]
async fn retry_after_beyond_the_wait_budget_ends_retries_at_once() {
    let mock = Mock::start(vec![
        Reply::json(429, json!({"error": {"message": "quota"}})).with_header("retry-after", "30"),
        Reply::json(200, openai_ok(json!({"content": "never"}), "stop", None)),
    ])
    .await;
    let m = model(
        &mock,
        fast_policy(4).with_max_total_wait(Duration::from_secs(2)),
    );
    let t = Instant::now();
    let err = m.complete(&json_request()).await.unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(
        err,
        ModelError::RateLimited {
            message: "quota".into(),
            retry_after_ms: Some(30_000)
        }
    );
    assert_eq!(mock.count(), 1);
    // The returned error is the caller's to charge; nothing was retried.
    assert!(m.take_failed_attempts().is_empty());
    assert_eq!(m.take_call_records().len(), 1);
}

#[tokio::test]
async fn server_error_then_success() {
    let mock = Mock::start(vec![
        Reply::raw(500, "<html>oops</html>"),
        Reply::json(
            200,
            openai_ok(json!({"content": "fine"}), "stop", Some((9, 2))),
        ),
    ])
    .await;
    let m = model(&mock, fast_policy(3));
    let reply = m.complete(&tool_request()).await.unwrap();
    assert_eq!(reply.content, "fine");
    assert_eq!(mock.count(), 2);
    assert_eq!(m.take_failed_attempts().len(), 1);
}

#[tokio::test]
async fn persistent_503_fails_after_exactly_max_attempts() {
    let mock = Mock::start(vec![Reply::json(
        503,
        json!({"error": {"message": "The engine is currently overloaded"}}),
    )])
    .await;
    let m = model(&mock, fast_policy(3));
    let req = tool_request();
    let err = m.complete(&req).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::Server { status: 503, message } if message.contains("overloaded")),
        "{err}"
    );
    assert_eq!(mock.count(), 4, "1 attempt + 3 retries");
    // One entry per retried attempt, each charged the prompt estimate; the caller charges
    // the last one, whose error it receives, so the 4 requests are charged 4 times.
    assert_eq!(m.take_failed_attempts(), vec![estimate_only(&req); 3]);
    assert!(m.take_failed_attempts().is_empty(), "drained");
    let records = m.take_call_records();
    assert_eq!(
        records.iter().map(|r| r.attempt).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert!(records
        .iter()
        .all(|r| r.status == Some(503) && !r.usage_reported));
}

#[tokio::test]
async fn failed_attempts_are_charged_even_when_the_call_succeeds() {
    let mock = Mock::start(vec![
        Reply::raw(502, "bad gateway"),
        Reply::json(529, json!({"error": {"message": "overloaded"}})),
        Reply::json(429, json!({"error": {"message": "later"}})),
        Reply::json(
            200,
            openai_ok(json!({"content": "ok"}), "stop", Some((7, 3))),
        ),
    ])
    .await;
    let m = model(&mock, fast_policy(4));
    let req = json_request();
    let reply = m.complete(&req).await.unwrap();
    assert_eq!(
        reply.usage,
        Usage {
            prompt_tokens: 7,
            completion_tokens: 3
        }
    );
    assert_eq!(m.take_failed_attempts(), vec![estimate_only(&req); 3]);
    assert_eq!(mock.count(), 4);
}

#[tokio::test]
async fn a_server_that_never_answers_is_cut_once_and_not_asked_again() {
    let mock = Mock::start(vec![Reply::Hang]).await;
    let m = OpenAiModel::new(
        ClientOptions::new("gpt-4o", format!("{}/v1", mock.url))
            .with_api_key(KEY)
            .with_timeout(Duration::from_millis(200))
            .with_retry(fast_policy(1)),
    )
    .unwrap();
    let t = Instant::now();
    let err = m.complete(&json_request()).await.unwrap_err();
    assert_eq!(err, ModelError::Timeout(200));
    assert!(
        t.elapsed() >= Duration::from_millis(200),
        "{:?}",
        t.elapsed()
    );
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // A request that timed out is not sent again unchanged.
    assert_eq!(mock.count(), 1);
    assert!(m.take_failed_attempts().is_empty());
    let records = m.take_call_records();
    assert_eq!(records.len(), 1);
    assert!(records[0].status.is_none() && records[0].latency_ms >= 200);
}

#[tokio::test]
async fn refused_connection_is_retried_then_reported() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let m = OpenAiModel::new(
        ClientOptions::new("gpt-4o", format!("http://127.0.0.1:{port}/v1"))
            .with_api_key(KEY)
            .with_retry(fast_policy(2)),
    )
    .unwrap();
    let err = m.complete(&json_request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Connection(_)), "{err}");
    assert!(!err.to_string().contains(KEY));
    assert_eq!(m.take_failed_attempts().len(), 2);
    assert_eq!(m.take_call_records().len(), 3);
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_the_key_is_scrubbed() {
    let mock = Mock::start(vec![Reply::json(
        401,
        json!({"error": {
            "message": format!("Incorrect API key provided: {KEY}. You can find your API key at https://platform.openai.com/account/api-keys."),
            "type": "invalid_request_error", "param": null, "code": "invalid_api_key"
        }}),
    )])
    .await;
    let m = model(&mock, fast_policy(4));
    let err = m.complete(&json_request()).await.unwrap_err();
    assert_eq!(mock.count(), 1);
    let ModelError::Rejected { status, message } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*status, 401);
    assert!(message.contains("Incorrect API key provided"), "{message}");
    assert!(!err.to_string().contains(KEY), "{err}");
    assert!(!err.to_string().contains("0123456789abcdef"), "{err}");
    assert!(!format!("{err:?}").contains(KEY));
    let records = m.take_call_records();
    assert!(!records[0].error.as_deref().unwrap().contains(KEY));
    assert!(!format!("{m:?}").contains(KEY));
    assert!(m.take_failed_attempts().is_empty());
}

#[tokio::test]
async fn malformed_json_body_is_not_retried() {
    let mock = Mock::start(vec![Reply::raw(200, "{\"choices\": [ {\"message\": ")]).await;
    let m = model(&mock, fast_policy(3));
    let err = m.complete(&json_request()).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::Malformed(m) if m.contains("not JSON")),
        "{err}"
    );
    assert_eq!(mock.count(), 1);
    assert!(m.take_failed_attempts().is_empty());
}

#[tokio::test]
async fn tool_call_with_invalid_json_arguments_keeps_the_raw_text() {
    let mock = Mock::start(vec![Reply::json(
        200,
        openai_ok(
            json!({"tool_calls": [{"id": "c9", "type": "function",
                   "function": {"name": "write_file", "arguments": "{\"path\": \"a.rs\", \"content\": "}}]}),
            "tool_calls",
            Some((10, 10)),
        ),
    )])
    .await;
    let m = model(&mock, fast_policy(0));
    let reply = m.complete(&tool_request()).await.unwrap();
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(
        reply.tool_calls[0].arguments,
        Value::String("{\"path\": \"a.rs\", \"content\": ".into())
    );
}

#[tokio::test]
async fn empty_reply_is_returned_as_empty() {
    let mock = Mock::start(vec![
        Reply::json(
            200,
            openai_ok(
                json!({"role": "assistant", "content": null}),
                "stop",
                Some((3, 0)),
            ),
        ),
        Reply::json(
            200,
            openai_ok(
                json!({"role": "assistant", "content": ""}),
                "stop",
                Some((3, 0)),
            ),
        ),
    ])
    .await;
    let m = model(&mock, fast_policy(0));
    for _ in 0..2 {
        let reply = m.complete(&json_request()).await.unwrap();
        assert!(reply.content.is_empty());
        assert!(reply.tool_calls.is_empty());
        assert_eq!(reply.usage.completion_tokens, 0);
    }
}

#[tokio::test]
async fn empty_finish_reason_and_missing_usage_are_estimated() {
    let mock = Mock::start(vec![Reply::json(
        200,
        json!({"choices": [{"message": {"content": "12345678"}, "finish_reason": "", "extra": true}]}),
    )])
    .await;
    let m = model(&mock, fast_policy(0));
    let req = tool_request();
    let reply = m.complete(&req).await.unwrap();
    assert_eq!(reply.finish_reason.as_deref(), Some(""));
    assert_eq!(
        reply.usage,
        Usage {
            prompt_tokens: req.estimated_prompt_tokens(),
            completion_tokens: 2
        }
    );
    assert!(reply.usage.prompt_tokens > 0);
    let records = m.take_call_records();
    assert!(!records[0].usage_reported);
}

#[tokio::test]
async fn no_key_sends_no_authorization_header() {
    let mock = Mock::start(vec![Reply::json(
        200,
        openai_ok(json!({"content": "hi"}), "stop", None),
    )])
    .await;
    let m = OpenAiModel::new(ClientOptions::new(
        "llama3.1:8b",
        format!("{}/v1/", mock.url),
    ))
    .unwrap();
    m.complete(&json_request()).await.unwrap();
    let seen = mock.requests();
    assert!(seen[0].headers.get("authorization").is_none());
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].body["model"], "llama3.1:8b");
}
