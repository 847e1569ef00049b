//! `kotef report FILE` without a format: a transcript as a few lines of plain text for a
//! terminal — how the run ended, its figures, what changed, and one line per step (where it
//! sent the run and why). Text from the transcript is shown on one line each, control
//! characters dropped.

use super::transcript_read::{self, text};
use std::fmt::Write as _;

/// Characters of a reason or a goal shown on one line.
const LINE: usize = 240;

fn line(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    kotef_core::text::cut_middle(&flat, LINE, LINE - 20, 20)
}

/// The summary of a transcript's text.
pub fn render(transcript: &str) -> String {
    let t = transcript_read::read(transcript);
    let mut s = String::new();
    match &t.ending {
        Some(e) => {
            let rule = match text(&e["stop_rule"]) {
                r if r.is_empty() => "no stop rule".to_string(),
                r => format!("stop rule {r}"),
            };
            let _ = writeln!(s, "{} ({rule})", line(&text(&e["status"])));
            let _ = writeln!(s, "reason: {}", line(&text(&e["reason"])));
            let _ = writeln!(s, "goal: {}", line(&text(&e["goal"])));
            let cost = e["cost_usd"]
                .as_f64()
                .map(|c| format!(" · ${c:.4}"))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "{} steps · {} model calls · {} + {} tokens{cost} · {:.1} s",
                text(&e["steps"]),
                text(&e["model_calls"]),
                text(&e["prompt_tokens"]),
                text(&e["completion_tokens"]),
                e["duration_ms"].as_f64().unwrap_or(0.0) / 1000.0
            );
            let files: Vec<String> = e["files_changed"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| line(&text(f)))
                .collect();
            let _ = writeln!(
                s,
                "files changed: {}",
                if files.is_empty() {
                    "none".to_string()
                } else {
                    files.join(", ")
                }
            );
        }
        None => s.push_str(
            "no ending recorded (the run was cut short, or the transcript predates kotef 1.1)\n",
        ),
    }
    if let Some(d) = &t.diff {
        let _ = writeln!(s, "diff: {}", line(&text(&d["stat"])));
    }
    let _ = writeln!(
        s,
        "{} tool calls · {} verifications",
        t.tool_calls, t.verifications
    );
    for st in &t.steps {
        let done = st
            .done
            .as_ref()
            .map(|d| format!(" → {}: {}", text(&d["decision"]), line(&text(&d["reason"]))))
            .unwrap_or_default();
        let _ = writeln!(s, "  step {} · {}{done}", st.step, line(&st.node));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_summary_opens_with_the_ending() {
        let t = concat!(
            r#"{"type":"step","step":1,"node":"planner"}"#,
            "\n",
            r#"{"type":"step_done","step":1,"node":"planner","decision":"done","reason":"tests\npass","progress":false}"#,
            "\n",
            r#"{"type":"ending","status":"done_success","stop_rule":null,"reason":"Verified.","goal":"Fix","steps":1,"model_calls":1,"prompt_tokens":5,"completion_tokens":2,"duration_ms":1500,"files_changed":[]}"#,
        );
        insta::assert_snapshot!(super::render(t), @r"
        done_success (no stop rule)
        reason: Verified.
        goal: Fix
        1 steps · 1 model calls · 5 + 2 tokens · 1.5 s
        files changed: none
        0 tool calls · 0 verifications
          step 1 · planner → done: tests pass
        ");
    }
}
