//! Serves the slow fake model ([`kotef_testkit::slow_model`]) until killed, for measuring
//! kotef against a machine's speeds from outside:
//!
//!     cargo run -p kotef-testkit --example slow-model-server -- PROMPT_PER_S GEN_PER_S BATCH [REPLY]
//!
//! prints its base URL on the first line; every request gets REPLY (or "No fix."), and a line per request on stderr: its prompt tokens, `max_tokens`, and whether
//! the same body came before.

use kotef_testkit::slow_model::prompt_tokens;
use kotef_testkit::{SlowModel, SlowModelConfig, Turn};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let reply = args.get(3).cloned().unwrap_or_else(|| "No fix.".into());
    let seen: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
    let log = seen.clone();
    let server = SlowModel::start(SlowModelConfig {
        prompt_per_s: num(0, 18.0),
        generation_per_s: num(1, 7.4),
        batch: num(2, 512.0) as u64,
        reports_progress: true,
        per_call: Duration::ZERO,
        script: Arc::new(move |body, i| {
            let mut seen = log.lock().unwrap_or_else(|p| p.into_inner());
            eprintln!(
                "request {i}: {} prompt tokens, max_tokens {}, same body as an earlier one: {}",
                prompt_tokens(body),
                body["max_tokens"],
                seen.contains(body)
            );
            seen.push(body.clone());
            Turn::Reply(reply.clone())
        }),
    })
    .await;
    println!("{}", server.url);
    std::future::pending::<()>().await;
}
