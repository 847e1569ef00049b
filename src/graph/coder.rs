//! The coder node: a tool loop with a per-step turn budget and a budget review that cannot
//! become a loop of its own. Each turn sees the repository snapshot, the task and only the
//! results of its previous turn's tool calls. `done` ends the step; a step with no net change
//! increments the no-op count.

use super::context::{self, BUDGET_REVIEW_PROMPT, CODER_PROMPT};
use super::llm::{self, CallFailure};
use super::rules;
use super::state::RunState;
use super::{GraphContext, StepResult};
use kotef_core::{NodeName, Profile, StopRule};
use kotef_model::{Message, ModelRequest};
use kotef_tools::{ToolEffect, ToolSet};
use std::collections::BTreeSet;

/// Budget reviews in one step after which the prompt carries a warning.
pub const REVIEW_SOFT_CAP: u32 = 3;
/// Budget reviews in one step after which the step ends as no progress.
pub const REVIEW_HARD_CAP: u32 = 6;
/// Replies without tool calls in a row after which the step ends.
pub const EMPTY_TURN_LIMIT: u32 = 3;

/// What the budget review decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    /// Work looks complete: one turn asking the coder to call `done`.
    AskForDone,
    /// Keep going (with a warning in the prompt once the soft cap is passed).
    Continue { warn: bool },
    /// The hard cap: end the step as no progress.
    EndStep,
}

/// The budget review, a pure function: `streak` is the number of reviews in this step
/// including this one; `changed_files` whether the step changed anything; `last_turn_changed`
/// whether the latest turn still changed files.
pub fn budget_review(streak: u32, changed_files: bool, last_turn_changed: bool) -> Review {
    if streak >= REVIEW_HARD_CAP {
        Review::EndStep
    } else if changed_files && !last_turn_changed {
        Review::AskForDone
    } else {
        Review::Continue {
            warn: streak >= REVIEW_SOFT_CAP,
        }
    }
}

pub async fn step(ctx: &GraphContext, state: &mut RunState) -> StepResult {
    let task = state
        .last_decision
        .as_ref()
        .and_then(|d| d.task.clone())
        .unwrap_or_else(|| state.goal.clone());
    let root = ctx.tools.workdir().root().to_path_buf();
    let before = state.file_hashes.clone();
    let tools = ctx.tools.schemas(ToolSet::Coder);
    let turn_budget = ctx.limits.coder_turns.max(1);

    let mut notes: Vec<String> = Vec::new();
    let mut current: Vec<Message> = Vec::new();
    let mut written: BTreeSet<String> = BTreeSet::new();
    let mut turns_since_review = 0u32;
    let mut review_streak = 0u32;
    let mut pending_review: Option<&'static str> = None;
    let mut warn = false;
    let mut asked_for_done = false;
    let mut empty_turns = 0u32;
    let mut done = false;
    let mut forced_no_progress = false;
    let mut last_turn_changed = false;
    let max_turns = turn_budget * (REVIEW_HARD_CAP + 1);

    for _turn in 0..max_turns {
        if turns_since_review >= turn_budget {
            turns_since_review = 0;
            review_streak += 1;
            match budget_review(review_streak, !written.is_empty(), last_turn_changed) {
                Review::EndStep => {
                    forced_no_progress = true;
                    notes.push(format!(
                        "budget review {review_streak}: hard cap, step ended"
                    ));
                    break;
                }
                Review::AskForDone => {
                    if asked_for_done {
                        // Asked once already and it kept going: end the step, keep its work.
                        break;
                    }
                    asked_for_done = true;
                    pending_review = Some(BUDGET_REVIEW_PROMPT);
                }
                Review::Continue { warn: w } => {
                    warn = w;
                    pending_review = Some(BUDGET_REVIEW_PROMPT);
                }
            }
        }
        let snapshot = kotef_tools::snapshot(&root, context::SNAPSHOT_FILES);
        // Refreshed so "files changed in this run" includes this step's writes.
        state.file_hashes = super::workspace_hashes(&root);
        let mut user = format!(
            "# Goal\n{}\n\n# Your task\n{task}\n\n{}{}",
            state.goal,
            context::repo_state(&snapshot, state),
            context::test_summary(state)
        );
        if !state.plan.is_empty() {
            user.push_str("\n## Plan (open items)\n");
            for p in state.plan.iter().take(8) {
                user.push_str(&format!("- {p}\n"));
            }
        }
        if !notes.is_empty() {
            user.push_str("\n## Done so far in this step\n");
            for n in &notes {
                user.push_str(&format!("- {n}\n"));
            }
        }
        if let Some(review) = pending_review.take() {
            user.push_str(&format!("\n## Budget review\n{review}\n"));
        }
        if warn {
            user.push_str(&format!(
                "\nWARNING: {review_streak} budget reviews in this step. Finish now or the step ends without progress.\n"
            ));
        }
        let mut messages = vec![Message::system(CODER_PROMPT), Message::user(user)];
        // Kept until a reply arrives, so a failed call does not lose the last tool results.
        messages.extend(current.iter().cloned());
        let request = ModelRequest {
            node: NodeName::Coder.as_str().into(),
            messages,
            tools: tools.clone(),
            json_reply: false,
        };
        turns_since_review += 1;
        let reply = match llm::call(ctx, state, NodeName::Coder, request).await {
            Err(CallFailure::Stopped) => break,
            Err(CallFailure::Failed(_)) => continue,
            Ok(reply) => {
                current.clear();
                reply
            }
        };
        if reply.tool_calls.is_empty() {
            empty_turns += 1;
            notes.push("a reply without tool calls (use tools; call done when finished)".into());
            if empty_turns >= EMPTY_TURN_LIMIT {
                break;
            }
            continue;
        }
        empty_turns = 0;
        last_turn_changed = false;
        let mut assistant = Message::assistant(reply.content.clone());
        assistant.tool_calls = reply.tool_calls.clone();
        current.push(assistant);
        for call in &reply.tool_calls {
            let out = ctx.tools.call(call, ToolSet::Coder).await;
            let brief = context::clip(&call.arguments.to_string(), 100);
            let note = match &out.effect {
                ToolEffect::FileWritten { path, hash } => {
                    written.insert(path.clone());
                    last_turn_changed = true;
                    format!(
                        "{} {path} → written ({})",
                        call.name,
                        &hash[..hash.len().min(8)]
                    )
                }
                ToolEffect::Noop { path } => {
                    format!("{} {path} → no-op (identical content)", call.name)
                }
                ToolEffect::Done { summary } => {
                    done = true;
                    state.coder_summary = summary.clone();
                    "done".into()
                }
                ToolEffect::PolicyDenied { command, reason } => {
                    if state.profile == Profile::Strict {
                        state.stop(
                            StopRule::Constraint,
                            format!("The command `{command}` is not allowed under the strict profile: {reason}"),
                        );
                    }
                    format!("run_command `{command}` → denied: {reason}")
                }
                ToolEffect::CommandRan(r) => format!(
                    "run_command `{}` → exit {:?}{}",
                    context::clip(&r.command, 80),
                    r.exit_code,
                    if r.timed_out { " (timed out)" } else { "" }
                ),
                ToolEffect::None => format!(
                    "{} {brief} → {}",
                    call.name,
                    if out.is_error { "error" } else { "ok" }
                ),
            };
            notes.push(note);
            current.push(Message::tool_result(
                call.id.clone(),
                context::clip(&out.content, context::TOOL_RESULT_CHARS),
            ));
            if done || state.ending.is_some() {
                break;
            }
        }
        if notes.len() > context::STEP_NOTES {
            notes.drain(..notes.len() - context::STEP_NOTES);
        }
        if done || state.ending.is_some() {
            break;
        }
    }

    let after = super::workspace_hashes(&root);
    let changed = rules::files_progress(&before, &after);
    state.file_hashes = after;
    let progress = changed && !forced_no_progress;
    if changed {
        state.coder_noop_count = 0;
    } else {
        state.coder_noop_count += 1;
    }
    if state.ending.is_some() {
        return StepResult::stopped(state, progress);
    }
    let reason = match (changed, done) {
        (true, true) => format!("changed {} file(s) and called done", written.len().max(1)),
        (true, false) => "changed files without calling done".to_string(),
        (false, _) => "no net change".to_string(),
    };
    StepResult::to(NodeName::Verifier, "code".into(), reason, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn review_asks_for_done_only_when_work_settled() {
        assert_eq!(budget_review(1, true, false), Review::AskForDone);
        assert_eq!(
            budget_review(1, true, true),
            Review::Continue { warn: false }
        );
        assert_eq!(
            budget_review(1, false, false),
            Review::Continue { warn: false }
        );
        assert_eq!(
            budget_review(3, false, false),
            Review::Continue { warn: true }
        );
        assert_eq!(budget_review(6, true, false), Review::EndStep);
    }
}
