//! What happened in a run, event by event, for the transcript: each model request and reply,
//! each call resized or not started for the time left, each tool call with its (capped) output, each verification. The graph emits [`RunEvent`]s
//! through [`super::GraphContext::record`]; how they are written (redacted JSON lines under
//! `.sdd/runs/`) is the report side's business (`crate::sdd::transcript`).

use kotef_core::NodeName;
use kotef_model::{Message, ToolCall, Usage};
use serde::Serialize;
use std::sync::Arc;

/// Characters of one tool or command output kept in the transcript.
pub const OUTPUT_CHARS: usize = 16_000;

/// One event of a run.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
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
    },
    ModelError {
        step: u32,
        node: NodeName,
        error: String,
    },
    /// A call sized to the server's speed and the time left before it was sent
    /// (`graph::pacing`): `sent` false when it was not started, true when it went with a
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
