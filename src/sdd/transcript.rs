//! The run's transcript, `.sdd/runs/<stem>.transcript.jsonl`: one JSON object per line for
//! each [`RunEvent`], every line passed through the run's redactor, appended through the
//! hostile-tree-safe [`Tree`], at most [`TRANSCRIPT_CAP`] bytes (a last line says when it was
//! cut). `kotef report --html` turns it into a page (`crate::sdd::transcript_html`).

use crate::graph::events::{EventSink, RunEvent};
use kotef_core::Redactor;
use kotef_tools::{Links, Tree};
use std::sync::{Arc, Mutex};

/// Bytes one transcript may hold.
pub const TRANSCRIPT_CAP: u64 = 8 * 1024 * 1024;

/// The transcript's path relative to the work tree, beside the report `<stem>.md`.
pub fn rel_path(stem: &str) -> String {
    format!("{}/{stem}.transcript.jsonl", super::RUNS_DIR)
}

/// A sink that appends each event to the transcript at `rel` in `tree`.
pub fn writer(tree: Tree, rel: String, redactor: Redactor) -> EventSink {
    let written = Arc::new(Mutex::new((0u64, false)));
    Arc::new(move |event: &RunEvent| {
        let Ok(mut w) = written.lock() else {
            return;
        };
        if w.1 {
            return;
        }
        let line = match serde_json::to_string(event) {
            Ok(l) => redactor.redact(&l) + "\n",
            Err(_) => return,
        };
        let line = if w.0 + line.len() as u64 > TRANSCRIPT_CAP {
            w.1 = true;
            format!(
                "{}\n",
                serde_json::json!({"type": "cut", "note": format!("the transcript was cut at {TRANSCRIPT_CAP} bytes")})
            )
        } else {
            line
        };
        match tree.append(&rel, line.as_bytes(), Links::Replace) {
            Ok(()) => w.0 += line.len() as u64,
            Err(e) => {
                tracing::warn!(error = %e, "cannot write the transcript; it stops here");
                w.1 = true;
            }
        }
    })
}
