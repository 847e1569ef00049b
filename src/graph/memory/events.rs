//! What happened in a run, event by event, for the transcript (and, in the Action, the log):
//! each step's start and where it sent the run, each model request and reply, each call
//! resized or not started for the time left, each tool call with its (capped) output, each
//! verification, and last the run's ending. The graph emits [`RunEvent`]s through
//! [`crate::graph::GraphContext::record`]; how they are written (redacted JSON lines under
//! `.sdd/runs/`) is the report side's business (`crate::sdd::transcript`).

use kotef_core::{Limits, NodeName, StopRule, TerminalStatus};
use kotef_model::{Message, ToolCall, Usage};
use serde::Serialize;
use std::sync::Arc;

/// Characters of one tool or command output kept in the transcript.
pub const OUTPUT_CHARS: usize = 16_000;

/// One generated token's odds in the transcript: how many characters its text has (the
/// tokens' texts make up the reply's `content`), its natural log-probability, and those of the
/// likeliest other tokens the server reported there. Recorded so a run can be measured
/// afterwards (how unsure the model was where a fix was written) without its texts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenOdds {
    pub chars: usize,
    pub logprob: f64,
    pub others: Vec<f64>,
}

impl TokenOdds {
    /// The odds of a reply's tokens (`others` without the token itself).
    pub fn of(tokens: &[kotef_model::TokenChoice]) -> Vec<TokenOdds> {
        tokens
            .iter()
            .map(|t| TokenOdds {
                chars: t.text.chars().count(),
                logprob: round(t.logprob),
                others: t
                    .others
                    .iter()
                    .filter(|(text, _)| *text != t.text)
                    .map(|(_, p)| round(*p))
                    .collect(),
            })
            .collect()
    }
}

/// A log-probability to three decimals (the transcript's size, not its precision, is what
/// the digits past them cost).
fn round(p: f64) -> f64 {
    (p * 1000.0).round() / 1000.0
}

/// One event of a run.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
    /// A node starts step `step`.
    Step { step: u32, node: NodeName },
    /// The node of step `step` is done: where the run goes next and why.
    StepDone {
        step: u32,
        node: NodeName,
        decision: String,
        reason: String,
        progress: bool,
    },
    ModelRequest {
        step: u32,
        node: NodeName,
        messages: Vec<Message>,
        tools: Vec<String>,
    },
    ModelReply {
        step: u32,
        node: NodeName,
        content: String,
        tool_calls: Vec<ToolCall>,
        finish_reason: Option<String>,
        usage: Usage,
        latency_ms: u64,
        /// Each generated token's odds, when the request asked for alternatives (a line
        /// attempt) and the server sent them: numbers only, so no text beyond `content` (which
        /// is redacted) reaches the transcript.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        odds: Vec<TokenOdds>,
    },
    ModelError {
        step: u32,
        node: NodeName,
        error: String,
    },
    /// A call sized to the server's speed and the time left before it was sent
    /// (`graph::rules::pacing`): `sent` false when it was not started, true when it went with a
    /// changed reply cap; `note` says why.
    CallPaced {
        step: u32,
        node: NodeName,
        sent: bool,
        note: String,
    },
    ToolCall {
        step: u32,
        node: NodeName,
        name: String,
        arguments: serde_json::Value,
        output: String,
        is_error: bool,
    },
    Verification {
        step: u32,
        command: String,
        passed: bool,
        exit_code: Option<i32>,
        timed_out: bool,
        output: String,
    },
    /// The run's last record: how it ended, what it was asked, what it used (written after
    /// the graph, with the report).
    Ending(Box<Ending>),
}

/// How a run ended and what it used, for the transcript's last record.
#[derive(Debug, Clone, Serialize)]
pub struct Ending {
    pub status: TerminalStatus,
    pub stop_rule: Option<StopRule>,
    pub reason: String,
    pub goal: String,
    pub model: String,
    pub steps: u32,
    pub model_calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub fix_attempts: u32,
    pub duration_ms: u64,
    pub cost_usd: Option<f64>,
    pub limits: Limits,
    pub files_changed: Vec<String>,
    /// The last verification: its command and whether it passed.
    pub verification: Option<(String, bool)>,
}

/// Where events go (the run wires in the transcript writer; tests may collect them).
pub type EventSink = Arc<dyn Fn(&RunEvent) + Send + Sync>;

/// A sink that drops everything.
pub fn no_events() -> EventSink {
    Arc::new(|_| {})
}

/// `text` cut to [`OUTPUT_CHARS`] characters (its start and end kept).
pub fn clip_output(text: &str) -> String {
    kotef_core::text::cut_middle(text, OUTPUT_CHARS, OUTPUT_CHARS / 2, OUTPUT_CHARS / 2)
}
