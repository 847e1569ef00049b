//! A plain-text reply from a self-hosted model is streamed and cut as soon as it repeats
//! itself: the fake server answers like llama.cpp's streaming endpoint, writes the right fix,
//! and then `\n` for ever. The call returns with the fix (one copy of the repeated piece
//! kept, `finish_reason: "length"`), and the server sees the connection closed, so it stops.
//! A code reply (`code_reply`) whose server goes on writing prose after the fix ends there,
//! finished (`stop`), and the server is stopped the same way; one that opens by copying its
//! prompt back is cut to nothing (`length`).

use kotef_model::{ClientOptions, Message, Model, ModelRequest, OpenAiModel};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const FIX: &str = "The recursion swaps the arguments wrongly.\ngcd.py\n```python\ndef gcd(a, b):\n    if b == 0:\n        return a\n    return gcd(b, a % b)\n```\n";

/// Events the server would send at most (a runaway never ends by itself; this bounds the test).
const MAX_EVENTS: usize = 100_000;

fn event(delta: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": delta}, "finish_reason": null}]})
    )
}

/// Serves one request: the request body goes to `seen`, then the fix and `tail` for ever as
/// server-sent events; `sent` counts the events written before the client went away.
async fn runaway_server(
    tail: &'static str,
) -> (
    String,
    Arc<AtomicUsize>,
    tokio::sync::oneshot::Receiver<Value>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let sent = Arc::new(AtomicUsize::new(0));
    let (tx, seen) = tokio::sync::oneshot::channel();
    let counter = sent.clone();
    tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = Vec::new();
        let body = loop {
            let mut chunk = [0u8; 4096];
            let n = sock.read(&mut chunk).await.unwrap();
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf).to_string();
            if let Some(at) = text.find("\r\n\r\n") {
                let len: usize = text[..at]
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().ok())?
                    })
                    .unwrap_or(0);
                if buf.len() >= at + 4 + len {
                    break serde_json::from_slice::<Value>(&buf[at + 4..at + 4 + len]).unwrap();
                }
            }
        };
        let _ = tx.send(body);
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
        sock.write_all(head.as_bytes()).await.unwrap();
        if sock.write_all(event(FIX).as_bytes()).await.is_err() {
            return;
        }
        for _ in 0..MAX_EVENTS {
            if sock.write_all(event(tail).as_bytes()).await.is_err() {
                return;
            }
            counter.fetch_add(1, Ordering::SeqCst);
            tokio::task::yield_now().await;
        }
    });
    (url, sent, seen)
}

fn plain_request() -> ModelRequest {
    ModelRequest {
        node: kotef_core::NodeName::Coder,
        messages: vec![
            Message::system("You fix a bug."),
            Message::user("gcd.py fails"),
        ],
        tools: vec![],
        json_reply: false,
        temperature: None,
        max_tokens: Some(600),
        code_reply: false,
        alternatives: None,
    }
}

#[tokio::test]
async fn a_reply_that_repeats_itself_is_cut_with_the_fix_kept() {
    let (url, sent, seen) = runaway_server("\n").await;
    let model =
        OpenAiModel::new(ClientOptions::new("qwen", url).with_timeout(Duration::from_secs(60)))
            .unwrap();
    let reply = model.complete(&plain_request()).await.unwrap();
    assert_eq!(reply.content, FIX);
    assert_eq!(reply.finish_reason.as_deref(), Some("length"));
    let body = seen.await.unwrap();
    assert_eq!(
        (body["stream"].clone(), body["stream_options"].clone()),
        (json!(true), json!({"include_usage": true}))
    );
    assert_stopped(&sent).await;
}

/// The server stops far before its bound: the client closed the connection.
async fn assert_stopped(sent: &AtomicUsize) {
    for _ in 0..200 {
        let before = sent.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(10)).await;
        if sent.load(Ordering::SeqCst) == before {
            break;
        }
    }
    assert!(
        sent.load(Ordering::SeqCst) < MAX_EVENTS,
        "the server was never stopped"
    );
}

#[tokio::test]
async fn a_code_reply_ends_at_the_prose_after_its_block() {
    let (url, sent, _seen) = runaway_server("\nThis keeps gcd right for every pair. ").await;
    let model =
        OpenAiModel::new(ClientOptions::new("qwen", url).with_timeout(Duration::from_secs(60)))
            .unwrap();
    let request = ModelRequest {
        code_reply: true,
        alternatives: None,
        ..plain_request()
    };
    let reply = model.complete(&request).await.unwrap();
    assert_eq!(
        (reply.content.as_str(), reply.finish_reason.as_deref()),
        (FIX, Some("stop"))
    );
    assert_stopped(&sent).await;
}

#[tokio::test]
async fn a_code_reply_that_opens_by_copying_its_prompt_is_cut_to_nothing() {
    // The prompt holds the reply's first line: the model is restating what it was shown.
    let (url, sent, _seen) = runaway_server("\nAttempt 2: this change did not fix it. ").await;
    let model =
        OpenAiModel::new(ClientOptions::new("qwen", url).with_timeout(Duration::from_secs(60)))
            .unwrap();
    let mut request = ModelRequest {
        code_reply: true,
        alternatives: None,
        ..plain_request()
    };
    request.messages.push(Message::user(
        "These were tried:\nThe recursion swaps the arguments wrongly.\nWrite a different fix.",
    ));
    let reply = model.complete(&request).await.unwrap();
    assert_eq!(
        (reply.content.as_str(), reply.finish_reason.as_deref()),
        ("", Some("length"))
    );
    assert_stopped(&sent).await;
}
