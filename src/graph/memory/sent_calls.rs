//! What the run remembers of the model calls it sent, for sizing the next one
//! ([`CallPacing`]): the last prompts (what the server probably holds in its cache) and the
//! requests that timed out. The rules that size a call from it are in `graph::rules::pacing`.

use kotef_model::ModelRequest;
use std::collections::hash_map::DefaultHasher;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

/// Prompts remembered for the server's prompt cache (llama.cpp keeps one per slot; the
/// bundled server has two).
const RECENT_PROMPTS: usize = 2;

/// Timed-out requests remembered (the oldest are forgotten first).
const MAX_TIMED_OUT: usize = 64;

/// One request that timed out: its fingerprint, the reply cap it was sent with, and whether it
/// was already sent again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedOut {
    fingerprint: u64,
    /// The reply cap it was sent with (`None`: none was set).
    pub cap: Option<u32>,
    /// Whether it was already sent again.
    pub resent: bool,
}

/// What the run remembers of its calls for sizing the next one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallPacing {
    recent: VecDeque<String>,
    timed_out: VecDeque<TimedOut>,
}

/// The prompt as the server reads it, near enough to compare prefixes.
fn prompt_text(request: &ModelRequest) -> String {
    let mut text = String::new();
    for t in &request.tools {
        text.push_str(&t.name);
        text.push_str(&t.parameters.to_string());
    }
    for m in &request.messages {
        text.push_str(&format!("{:?}\n", m.role));
        text.push_str(&m.content);
        for c in &m.tool_calls {
            text.push_str(&c.name);
            text.push_str(&c.arguments.to_string());
        }
    }
    text
}

/// The request without its sampling settings: what timed out, whatever cap it was sent with.
fn fingerprint(request: &ModelRequest) -> u64 {
    let mut h = DefaultHasher::new();
    prompt_text(request).hash(&mut h);
    request.json_reply.hash(&mut h);
    h.finish()
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

impl CallPacing {
    /// Prompt tokens of `request` the server probably holds in its cache (the longest prefix
    /// it shares with a recent prompt, estimated as characters / 4).
    pub fn cached_tokens(&self, request: &ModelRequest) -> u64 {
        let text = prompt_text(request);
        let chars = self
            .recent
            .iter()
            .map(|p| common_prefix(p, &text))
            .max()
            .unwrap_or(0);
        (chars as u64) / 4
    }

    /// Remembers a request that was sent.
    pub fn sent(&mut self, request: &ModelRequest) {
        if self.recent.len() >= RECENT_PROMPTS {
            self.recent.pop_front();
        }
        self.recent.push_back(prompt_text(request));
    }

    /// Remembers a request that timed out, sent with reply cap `cap`.
    pub fn timed_out(&mut self, request: &ModelRequest, cap: Option<u32>) {
        let fingerprint = fingerprint(request);
        let resent = self.entry(fingerprint).is_some();
        self.timed_out.retain(|t| t.fingerprint != fingerprint);
        if self.timed_out.len() >= MAX_TIMED_OUT {
            self.timed_out.pop_front();
        }
        self.timed_out.push_back(TimedOut {
            fingerprint,
            cap,
            resent,
        });
    }

    /// How `request` timed out before, if it did.
    pub fn timed_out_before(&self, request: &ModelRequest) -> Option<&TimedOut> {
        self.entry(fingerprint(request))
    }

    fn entry(&self, fingerprint: u64) -> Option<&TimedOut> {
        self.timed_out.iter().find(|t| t.fingerprint == fingerprint)
    }
}
