//! Prompt building as snapshot + delta: every call sends the system prompt, the goal and task,
//! a compact repository state and only the current turn's tool results. Earlier results are
//! folded into that state, never replayed as a transcript, so turn 40 costs what turn 2 does.

use super::state::RunState;
use kotef_tools::RepoSnapshot;
use std::fmt::Write as _;

pub const PLANNER_PROMPT: &str = include_str!("../../prompts/planner.md");
pub const RESEARCHER_PROMPT: &str = include_str!("../../prompts/researcher.md");
pub const CODER_PROMPT: &str = include_str!("../../prompts/coder.md");
pub const BUDGET_REVIEW_PROMPT: &str = include_str!("../../prompts/budget_review.md");

/// Files listed in a prompt's repository state at most.
pub const SNAPSHOT_FILES: usize = 150;
/// Characters of one tool result given back to the model at most.
pub const TOOL_RESULT_CHARS: usize = 6000;
/// One-line notes of earlier turns kept in a step's state at most (the oldest are dropped).
pub const STEP_NOTES: usize = 12;

/// Cuts `text` to `max` characters, keeping head and tail.
pub fn clip(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max * 2 / 3).collect();
    let tail: String = text.chars().skip(n - max / 3).collect();
    format!(
        "{head}\n[... {} characters cut ...]\n{tail}",
        n - head.chars().count() - tail.chars().count()
    )
}

/// The repository part of the state: files with short hashes and sizes.
pub fn repo_state(snapshot: &RepoSnapshot, state: &RunState) -> String {
    let mut s = String::from("## Repository files (path, short hash, bytes)\n");
    for f in &snapshot.files {
        let _ = writeln!(s, "- {} ({}, {} B)", f.path, f.short_hash, f.size);
    }
    if snapshot.truncated {
        let _ = writeln!(
            s,
            "- ... {} more files not listed (use list_files)",
            snapshot.total_files.saturating_sub(snapshot.files.len())
        );
    }
    let changed = state.files_changed();
    s.push_str("\n## Files changed in this run\n");
    if changed.is_empty() {
        s.push_str("- none yet\n");
    }
    for p in changed.iter().take(50) {
        let _ = writeln!(s, "- {p}");
    }
    s
}

/// The planner's view of the run.
pub fn run_state_summary(state: &RunState) -> String {
    let mut s = String::new();
    let c = &state.loop_counters;
    let _ = writeln!(
        s,
        "## Run state\n- step {} (last progress at step {})\n- loop counters: planner_to_researcher {}, planner_to_coder {}, planner_to_verifier {}\n- fix attempts used: {}\n- coder steps without change in a row: {}",
        state.total_steps,
        state.last_progress_step,
        c.planner_to_researcher,
        c.planner_to_coder,
        c.planner_to_verifier,
        state.failures.attempts,
        state.coder_noop_count
    );
    if !state.plan.is_empty() {
        s.push_str("\n## Plan (open items)\n");
        for p in state.plan.iter().take(10) {
            let _ = writeln!(s, "- {p}");
        }
    }
    let r = &state.research;
    if let Some(q) = &r.last_query {
        let _ = writeln!(
            s,
            "\n## Research\n- last query: {q}\n- attempts: {}, quality: {:.2}\n- findings: {}",
            r.attempts,
            r.quality,
            clip(&r.findings, 1500)
        );
        for reason in r.reasons.iter().rev().take(2) {
            let _ = writeln!(s, "- note: {reason}");
        }
    }
    s.push_str(&test_summary(state));
    if !state.failures.entries.is_empty() {
        s.push_str("\n## Failure history (latest last)\n");
        let skip = state.failures.entries.len().saturating_sub(3);
        for e in state.failures.entries.iter().skip(skip) {
            let _ = writeln!(
                s,
                "- step {}: `{}` exit {:?} [{}] {}",
                e.step,
                e.command,
                e.exit_code,
                e.kind.as_str(),
                clip(&e.summary, 300)
            );
        }
    }
    if let Some(summary) = &state.coder_summary {
        let _ = writeln!(s, "\n## Coder's last summary\n{}", clip(summary, 500));
    }
    s
}

/// The last test result in a few lines.
pub fn test_summary(state: &RunState) -> String {
    match &state.test {
        None => "\n## Last verification\n- not run yet\n".to_string(),
        Some(t) => format!(
            "\n## Last verification (step {})\n- `{}`: {}{}\n{}\n",
            t.step,
            t.command,
            if t.passed { "passed" } else { "FAILED" },
            if t.passed {
                String::new()
            } else {
                format!(" (same error {} time(s) in a row)", t.same_error_count)
            },
            if t.passed {
                String::new()
            } else {
                clip(&t.summary, 800)
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_head_and_tail() {
        let text: String = (0..100)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let c = clip(&text, 30);
        assert!(c.starts_with(&text[..20]));
        assert!(c.ends_with(&text[90..]));
        assert!(c.contains("characters cut"));
        assert_eq!(clip("short", 30), "short");
    }
}
