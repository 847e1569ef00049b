//! The run's transcript, `.sdd/runs/<stem>.transcript.jsonl`: one JSON object per line for
//! each [`RunEvent`], every line passed through the run's redactor, appended through the
//! hostile-tree-safe [`Tree`], at most [`TRANSCRIPT_CAP`] bytes (a line says when it was cut;
//! the run's ending record comes last even then). `kotef report --html` turns it into a page (`crate::sdd::transcript_html`).

use crate::graph::memory::events::{EventSink, RunEvent};
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
        // The ending is written even past the cap (one small record): a cut transcript still
        // says how its run ended.
        let ending = matches!(event, RunEvent::Ending(_));
        if w.1 && !ending {
            return;
        }
        let line = match serde_json::to_string(event) {
            Ok(l) => redactor.redact(&l) + "\n",
            Err(_) => return,
        };
        let line = if ending {
            line
        } else if w.0 + line.len() as u64 > TRANSCRIPT_CAP {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::events::Ending;
    use kotef_core::{Limits, NodeName, Profile, TerminalStatus};

    fn ending() -> RunEvent {
        RunEvent::Ending(Box::new(Ending {
            status: TerminalStatus::AbortedStuck,
            stop_rule: None,
            reason: "r".into(),
            goal: "g".into(),
            model: "m".into(),
            steps: 1,
            model_calls: 1,
            prompt_tokens: 1,
            completion_tokens: 1,
            fix_attempts: 0,
            duration_ms: 1,
            cost_usd: None,
            limits: Limits::for_profile(Profile::Strict),
            files_changed: vec![],
            verification: None,
        }))
    }

    #[test]
    fn a_cut_transcript_still_ends_with_the_ending() {
        let dir = tempfile::tempdir().unwrap();
        let tree = Tree::open(dir.path()).unwrap();
        let sink = writer(tree.clone(), "t.jsonl".into(), Redactor::new());
        let big = RunEvent::ToolCall {
            step: 1,
            node: NodeName::Coder,
            name: "read_file".into(),
            arguments: serde_json::json!({}),
            output: "x".repeat(16_000),
            is_error: false,
        };
        for _ in 0..(TRANSCRIPT_CAP / 16_000 + 2) {
            sink(&big);
        }
        sink(&ending());
        let text = tree.read_text("t.jsonl", TRANSCRIPT_CAP * 2).unwrap();
        let kinds: Vec<String> = text
            .lines()
            .rev()
            .take(2)
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|v| v["type"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(kinds, vec!["ending".to_string(), "cut".to_string()]);
    }
}
