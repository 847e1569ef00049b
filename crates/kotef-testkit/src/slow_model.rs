//! A fake self-hosted OpenAI-compatible model server on loopback that reads prompts at a set
//! speed, as llama.cpp's server does on a slow CPU: a reply's first token comes only after
//! `prompt tokens / prompt_per_s` seconds (tokens estimated as characters / 4, as kotef does),
//! and, when the request asks with `return_progress` (and streams), it sends llama.cpp's
//! `prompt_progress` events every `batch` tokens meanwhile. Its replies carry llama.cpp's
//! `usage` and `timings`. A turn may instead go silent part-way through the prompt: the
//! connection stays open and nothing more comes, as from a server that hung.
//!
//! The speeds are parameters, so a test scales the slow machine down (1,800 tokens/s against
//! a 1.2 s idle limit is 18 tokens/s against 120 s). Plain HTTP/1.1 over a raw socket, one
//! request per connection (`connection: close`); every request body is recorded.

use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What one request is answered with.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// Read the prompt at the server's speed, then reply with this text.
    Reply(String),
    /// Read this many prompt tokens (reporting progress), then say nothing more.
    SilentAfter(u64),
    /// Read the prompt, stream this text, then say nothing more until the client hangs up
    /// (or the cap): a reply whose rest the client need not read.
    Held(String),
}

/// Chooses the turn for a request: its body and its index among the requests (0-based).
pub type Script = Arc<dyn Fn(&Value, usize) -> Turn + Send + Sync>;

/// The turns in order, one per request; the last one again once they are used up.
pub fn in_order(turns: Vec<Turn>) -> Script {
    Arc::new(move |_, i| {
        turns
            .get(i)
            .or(turns.last())
            .cloned()
            .unwrap_or(Turn::Reply(String::new()))
    })
}

/// How the fake server works.
#[derive(Clone)]
pub struct SlowModelConfig {
    /// Prompt tokens read per second.
    pub prompt_per_s: f64,
    /// Tokens generated per second.
    pub generation_per_s: f64,
    /// Prompt tokens between two `prompt_progress` events (llama.cpp's `n_batch`).
    pub batch: u64,
    /// Whether it sends `prompt_progress` events when asked (false: a server such as Ollama,
    /// silent until its first token).
    pub reports_progress: bool,
    /// Time every prompt read takes besides its tokens (llama.cpp's fixed cost per call), so
    /// a short read measures slower than a long one, as on the real server.
    pub per_call: Duration,
    pub script: Script,
}

/// The longest a silent turn keeps its connection open (bounds a test that never hangs up).
const SILENCE_CAP: Duration = Duration::from_secs(60);

/// The running server.
pub struct SlowModel {
    /// `http://127.0.0.1:PORT/v1`
    pub url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl SlowModel {
    pub async fn start(config: SlowModelConfig) -> SlowModel {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let url = format!("http://{}/v1", listener.local_addr().expect("an address"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let (config, seen) = (config.clone(), seen.clone());
                tokio::spawn(async move {
                    let _ = serve(sock, config, seen).await;
                });
            }
        });
        SlowModel { url, requests }
    }

    /// Every request body received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// Prompt tokens of a request: ceil(characters of its messages / 4).
pub fn prompt_tokens(body: &Value) -> u64 {
    let chars: usize = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["content"].as_str().unwrap_or_default().chars().count())
        .sum();
    (chars as u64).div_ceil(4)
}

async fn read_request(sock: &mut TcpStream) -> std::io::Result<Value> {
    let mut buf = Vec::new();
    loop {
        let mut chunk = [0u8; 8192];
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
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
                return Ok(
                    serde_json::from_slice(&buf[at + 4..at + 4 + len]).unwrap_or(Value::Null)
                );
            }
        }
    }
}

/// The reply a request began for the model: its last message's, when that is the assistant's.
fn begun(body: &Value) -> Option<&str> {
    let last = body["messages"].as_array()?.last()?;
    (last["role"] == "assistant").then(|| last["content"].as_str())?
}

fn event(v: &Value) -> String {
    format!("data: {v}\n\n")
}

fn progress(total: u64, processed: u64, started: Instant) -> Value {
    json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}, "finish_reason": null}],
           "object": "chat.completion.chunk",
           "prompt_progress": {"total": total, "cache": 0, "processed": processed,
                               "time_ms": started.elapsed().as_millis() as u64}})
}

fn secs(tokens: u64, per_s: f64) -> Duration {
    Duration::from_secs_f64(tokens as f64 / per_s)
}

async fn serve(
    mut sock: TcpStream,
    config: SlowModelConfig,
    seen: Arc<Mutex<Vec<Value>>>,
) -> std::io::Result<()> {
    let body = read_request(&mut sock).await?;
    let index = {
        let mut s = seen.lock().unwrap_or_else(|p| p.into_inner());
        s.push(body.clone());
        s.len() - 1
    };
    let turn = (config.script)(&body, index);
    let total = prompt_tokens(&body);
    let stream = body["stream"] == json!(true);
    let report = stream && config.reports_progress && body["return_progress"] == json!(true);
    let started = Instant::now();
    if stream {
        sock.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
        )
        .await?;
    }
    let stop_at = match &turn {
        Turn::SilentAfter(n) => (*n).min(total),
        Turn::Reply(_) | Turn::Held(_) => total,
    };
    let mut processed = 0;
    if report {
        sock.write_all(event(&progress(total, 0, started)).as_bytes())
            .await?;
        // llama.cpp's own server sends a reply begun for the model back first, before it
        // reads the prompt.
        if let Some(begun) = begun(&body) {
            let delta = json!({"choices": [{"index": 0, "delta": {"content": begun}}]});
            sock.write_all(event(&delta).as_bytes()).await?;
        }
    }
    tokio::time::sleep(config.per_call).await;
    while processed < stop_at {
        let step = config.batch.max(1).min(stop_at - processed);
        tokio::time::sleep(secs(step, config.prompt_per_s)).await;
        processed += step;
        if report {
            sock.write_all(event(&progress(total, processed, started)).as_bytes())
                .await?;
        }
    }
    let (text, held) = match turn {
        Turn::SilentAfter(_) => {
            // Silent until the client hangs up (a read of 0 bytes) or the cap.
            let mut b = [0u8; 64];
            let _ = tokio::time::timeout(SILENCE_CAP, sock.read(&mut b)).await;
            return Ok(());
        }
        Turn::Reply(t) => (t, false),
        Turn::Held(t) => (t, true),
    };
    let prompt_ms = started.elapsed().as_secs_f64() * 1000.0;
    let generated = (text.chars().count() as u64).div_ceil(4);
    let gen_started = Instant::now();
    let pieces: Vec<String> = text
        .chars()
        .collect::<Vec<_>>()
        .chunks(16)
        .map(|c| c.iter().collect())
        .collect();
    if stream {
        for p in &pieces {
            tokio::time::sleep(secs(4, config.generation_per_s)).await;
            let delta =
                json!({"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]});
            sock.write_all(event(&delta).as_bytes()).await?;
        }
        if held {
            let mut b = [0u8; 64];
            let _ = tokio::time::timeout(SILENCE_CAP, sock.read(&mut b)).await;
            return Ok(());
        }
    } else {
        tokio::time::sleep(secs(generated, config.generation_per_s)).await;
    }
    let predicted_ms = gen_started.elapsed().as_secs_f64() * 1000.0;
    let usage = json!({"prompt_tokens": total, "completion_tokens": generated,
                       "total_tokens": total + generated});
    let timings = json!({"cache_n": 0, "prompt_n": total, "prompt_ms": prompt_ms,
        "prompt_per_second": total as f64 * 1000.0 / prompt_ms.max(1.0),
        "predicted_n": generated, "predicted_ms": predicted_ms,
        "predicted_per_second": generated as f64 * 1000.0 / predicted_ms.max(1.0)});
    if stream {
        let last = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                          "usage": usage, "timings": timings});
        sock.write_all(format!("{}data: [DONE]\n\n", event(&last)).as_bytes())
            .await?;
    } else {
        let reply = json!({"id": "slow", "object": "chat.completion", "model": "slow",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": usage, "timings": timings});
        let reply = reply.to_string();
        sock.write_all(
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            )
            .as_bytes(),
        )
        .await?;
    }
    sock.shutdown().await
}
