//! Snitch entries in `.sdd/issues.md`: one appended section per run that did not end in
//! `done_success`, written for the human who picks it up. Whatever a model, an issue or a
//! command wrote is inert Markdown there ([`kotef_core::markdown`]).

use crate::graph::memory::state::RunState;
use chrono::{DateTime, Utc};
use kotef_core::markdown::{code, inert, INERT_CAP};
use kotef_core::RunId;
use kotef_tools::{Kind, Links, Tree};
use std::fmt::Write as _;

/// Renders one section (pure).
pub fn render_entry(state: &RunState, run_id: &RunId, now: DateTime<Utc>) -> String {
    let mut s = String::new();
    let (status, rule, reason) = match &state.ending {
        Some(e) => (
            e.status.as_str(),
            e.rule.map(|r| r.as_str()).unwrap_or("none"),
            e.reason.as_str(),
        ),
        None => ("aborted_stuck", "none", "no cause recorded"),
    };
    let _ = writeln!(
        s,
        "\n## {} — run {run_id}: {status}\n",
        now.format("%Y-%m-%d %H:%M:%S UTC")
    );
    let _ = writeln!(s, "- **Goal:** {}", one_line(&state.goal, 300));
    let _ = writeln!(s, "- **Terminal status:** `{status}`");
    let _ = writeln!(s, "- **Stop rule:** `{rule}`");
    let _ = writeln!(s, "- **Stop reason:** {}", one_line(reason, INERT_CAP));
    let _ = writeln!(s, "- **Offending loop:** {}", offending_loop(state));
    let c = &state.loop_counters;
    let _ = writeln!(
        s,
        "- **Attempts:** {} fix attempt(s); {} step(s); loop counters planner_to_researcher {}, planner_to_coder {}, planner_to_verifier {}",
        state.failures.attempts, state.total_steps, c.planner_to_researcher, c.planner_to_coder, c.planner_to_verifier
    );
    let _ = writeln!(
        s,
        "- **Last planner reason:** {}",
        if state.last_planner_reason.is_empty() {
            "(none)".to_string()
        } else {
            one_line(&state.last_planner_reason, 300)
        }
    );
    match state.failures.entries.last() {
        Some(f) => {
            let _ = writeln!(
                s,
                "- **Last failing command:** {} (exit {})",
                code(&f.command),
                f.exit_code
                    .map(|c| c.to_string())
                    .unwrap_or_else(|| "none".into())
            );
        }
        None => {
            let _ = writeln!(s, "- **Last failing command:** none");
        }
    }
    if !state.failures.entries.is_empty() {
        s.push_str("- **Errors:**\n");
        let skip = state.failures.entries.len().saturating_sub(5);
        for f in state.failures.entries.iter().skip(skip) {
            let _ = writeln!(
                s,
                "  - step {} {}: {}",
                f.step,
                code(f.kind.as_str()),
                one_line(&f.summary, 240)
            );
        }
    }
    if !state.plan.is_empty() {
        s.push_str("- **Open plan items:**\n");
        for p in state.plan.iter().take(10) {
            let _ = writeln!(s, "  - {}", one_line(p, 200));
        }
    }
    let changed = state.files_changed();
    let _ = writeln!(
        s,
        "- **Files changed (kept on the branch):** {}",
        if changed.is_empty() {
            "none".to_string()
        } else {
            changed
                .iter()
                .map(|f| code(f))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let _ = writeln!(s, "- **Suggested follow-up:** {}", follow_up(state));
    s
}

/// Which loop, if any, the run was caught in.
pub fn offending_loop(state: &RunState) -> String {
    use kotef_core::StopRule::*;
    match state.ending.as_ref().and_then(|e| e.rule) {
        Some(PlannerToResearcher) => "planner → researcher → planner".into(),
        Some(PlannerToCoder) => "planner → coder → verifier → planner".into(),
        Some(PlannerToVerifier) => "planner → verifier → planner".into(),
        Some(FixAttempts) => "coder → verifier fix cycle".into(),
        Some(NoProgress) => "steps of mixed shape without progress".into(),
        Some(MaxSteps) => "the whole graph (global step cap)".into(),
        _ => "none".into(),
    }
}

/// A suggested next action for a human (pure).
pub fn follow_up(state: &RunState) -> String {
    use kotef_core::StopRule::*;
    let last_fail = state.failures.entries.last();
    match state.ending.as_ref().and_then(|e| e.rule) {
        Some(FixAttempts) | Some(PlannerToVerifier) => match last_fail {
            Some(f) => format!("Run {} locally and inspect: {}", code(&f.command), one_line(&f.summary, 160)),
            None => "Run the test command locally and inspect the failure.".into(),
        },
        Some(PlannerToResearcher) => "Research kept repeating: make the issue's goal more specific (files, expected behaviour).".into(),
        Some(PlannerToCoder) => "The coder made no net change: check the task is feasible and say which files to change.".into(),
        Some(NoProgress) | Some(MaxSteps) => "Split the goal into smaller issues or raise the limits in .github/kotef.toml.".into(),
        Some(Constraint) => "A command outside the profile's policy was attempted: review it, or use the yolo profile if it is safe.".into(),
        Some(Budget) => "Raise token_budget/time_budget_s in .github/kotef.toml or narrow the goal.".into(),
        Some(ModelError) => "Check the model provider's status, key and quota, then re-run.".into(),
        None => match last_fail {
            Some(f) => format!("Finish the remaining work; last failure: {}: {}", code(&f.command), one_line(&f.summary, 160)),
            None => "Review the branch and finish the remaining plan items.".into(),
        },
    }
}

/// Untrusted text (the goal, a model's reason, a command's output) as one inert line of at
/// most `max` characters: GitHub renders `.sdd/issues.md` on the branch.
fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    inert(&flat, max)
}

/// Appends an entry to `<root>/.sdd/issues.md`, creating it with a heading when new; through
/// the tree, so a link the run left there is replaced, never followed.
pub fn append(tree: &Tree, entry: &str) -> std::io::Result<()> {
    let new = !matches!(tree.kind(super::ISSUES_MD), Ok(Kind::File { .. }));
    let mut text = String::new();
    if new {
        text.push_str("# Issues reported by kotef\n\nEach section is one run that did not end in `done_success`.\n");
    }
    text.push_str(entry);
    tree.append(super::ISSUES_MD, text.as_bytes(), Links::Replace)
        .map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::Profile;

    #[test]
    fn the_goal_and_the_planner_reason_are_inert_in_the_entry() {
        let hostile = "ping @mallory: [log in](/login) at https://evil.example #1";
        let mut state = RunState::new(hostile, Profile::Strict, Default::default());
        state.last_planner_reason = hostile.into();
        let entry = render_entry(&state, &RunId("r1".into()), Utc::now());
        let inert_line =
            "ping @\u{2060}mallory: [log in\\](/login) at `https://evil.example` \\#\u{2060}1";
        assert_eq!(entry.matches(inert_line).count(), 2, "{entry}");
    }
}
