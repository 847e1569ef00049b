//! The coder node: a tool loop with a per-step turn budget and a budget review that cannot
//! become a loop of its own. Each turn sees the repository snapshot, the task and only the
//! results of its previous turn's tool calls. `done` ends the step (once per run, a `done` with
//! nothing changed while the tests fail is refused instead); so do the breakers the
//! rules decide (the same failing call three times, replies without tool calls, the step's
//! call cap), each named in the timeline.
//!
//! In pieces: this loop (the breakers' thresholds and decisions are
//! `crate::graph::rules::breakers`); what a step has seen and its breakers ([`turns`]: the budget
//! check before a turn, a reply without tool calls, the step's ending and its reason, all pure);
//! one turn's prompt ([`prompt`]); and the tool calls of one turn ([`calls`]: refusing a protected
//! test, undo snapshots, each effect's note, repeated and failing calls).

mod calls;
mod prompt;
mod turns;

use crate::graph::memory::handoff::Handoff;
use crate::graph::memory::state::{Decision, RunState};
use crate::graph::nodes::llm::{self, CallFailure};
use crate::graph::prompt::context::CODER_PROMPT;
use crate::graph::prompt::messages::{NoToolCall, ProtectedTestRefused, RepeatedCall};
use crate::graph::{GraphContext, StepResult};
use kotef_core::NodeName;
use kotef_model::{Message, ModelRequest};
use kotef_tools::ToolSet;
use turns::Turns;

/// The corrective message after a reply with neither a tool call nor `done`: the exact shape
/// of a tool call (a real one, with no placeholder a model could copy back) and every tool's
/// arguments, since a model that writes prose or JSON in its text is not calling tools.
pub fn no_tool_call_correction(tools: &[kotef_model::ToolSchema]) -> String {
    NoToolCall {
        shape: &kotef_model::expected_call_shape(tools),
    }
    .to_string()
}

/// The sampling temperature of the call after a repeated tool call.
pub const RESAMPLE_TEMPERATURE: f64 = 0.8;

/// What a repeated call's result says before the result itself: it cannot have changed.
pub fn repeated_call_note(name: &str) -> String {
    format!("{}\n\n", RepeatedCall { name })
}

/// The tool error for a change to a protected test.
pub fn protected_refusal(path: &str, command: &str) -> String {
    ProtectedTestRefused { path, command }.to_string()
}

pub async fn step(ctx: &GraphContext, state: &mut RunState, handoff: &mut Handoff) -> StepResult {
    let task = state
        .last_decision
        .as_ref()
        .and_then(|d| d.task.clone())
        .unwrap_or_else(|| state.goal.clone());
    // The undo is this step's: a repair step leaves none (it undoes its own attempts).
    handoff.undo.clear();
    if ctx.edit_format.blocks() && crate::graph::nodes::repair::applies(state) {
        return crate::graph::nodes::repair::step(ctx, state, &task).await;
    }
    let before = state.file_hashes.clone();
    let tools = ctx.tools.schemas(ToolSet::Coder);
    let mut t = Turns::new();
    loop {
        if t.budget_spent(&ctx.limits) {
            break;
        }
        // `auto` settled on edit blocks during this step (the server writes its tool calls
        // as text): before anything is written, the step goes on as the repair loop.
        if ctx.edit_format.blocks()
            && t.written.is_empty()
            && crate::graph::nodes::repair::applies(state)
        {
            return crate::graph::nodes::repair::step(ctx, state, &task).await;
        }
        let user = prompt::user_message(ctx, state, &task, &tools, &mut t).await;
        let mut messages = vec![Message::system(CODER_PROMPT), Message::user(user)];
        // Kept until a reply arrives, so a failed call does not lose the last tool results.
        messages.extend(t.current.iter().cloned());
        let request = ModelRequest {
            node: NodeName::Coder,
            messages,
            tools: tools.clone(),
            json_reply: false,
            temperature: std::mem::take(&mut t.resample).then_some(RESAMPLE_TEMPERATURE),
            max_tokens: None,
            code_reply: false,
            alternatives: None,
        };
        t.turns_since_review += 1;
        t.calls += 1;
        let reply = match llm::call(ctx, state, NodeName::Coder, request).await {
            Err(CallFailure::Stopped) => break,
            Err(CallFailure::Failed(_)) => continue,
            Ok(reply) => {
                t.current.clear();
                reply
            }
        };
        // A reply cut off at max_tokens is usually a small model repeating one line until the
        // cap (75 s of a 2-core CPU): the next call samples hotter so it is not sent again.
        t.resample |= reply.cut_off();
        if reply.tool_calls.is_empty() {
            if t.reply_without_calls(&reply.content) {
                break;
            }
            continue;
        }
        t.start_tool_turn(&reply);
        calls::run_calls(ctx, state, &reply.tool_calls, &mut t, &before).await;
        t.trim_notes();
        if t.turn_ends_step(state.ending.is_some()) {
            break;
        }
    }
    handoff.undo = std::mem::take(&mut t.undo);
    let after = ctx.hashes_or(&before).await;
    let changed = crate::graph::memory::progress::files_progress(&before, &after);
    state.file_hashes = after;
    let progress = changed && !t.forced_no_progress;
    let only_test_edits = t.test_edits > 0 && !changed;
    let result = if state.ending.is_some() {
        StepResult::stopped(state, progress)
    } else {
        let reason = turns::end_reason(t.end, changed, t.written.len(), &ctx.limits);
        StepResult::to(NodeName::Verifier, Decision::Code(t.end), reason, progress)
    };
    result
        .with_only_test_edits(only_test_edits)
        .with_coder_counts(t.refused_empty_done, t.off_list_denials)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coder_tools() -> Vec<kotef_model::ToolSchema> {
        let dir = tempfile::tempdir().unwrap();
        let tools = kotef_tools::ToolBox::new(
            kotef_tools::WorkDir::new(dir.path()).unwrap(),
            kotef_tools::CommandRunner::new(kotef_tools::RunnerConfig::default()),
            kotef_core::Profile::Strict,
        );
        tools.schemas(ToolSet::Coder)
    }

    #[test]
    fn the_correction_shows_a_real_tool_call_in_its_exact_shape() {
        let text = no_tool_call_correction(&coder_tools());
        let call = serde_json::Value::Object(kotef_model::first_json_object(&text).unwrap());
        assert_eq!(
            call,
            serde_json::json!({"name": "list_files", "arguments": {}})
        );
    }

    #[test]
    fn the_correction_names_every_tool_and_holds_no_placeholder() {
        let text = no_tool_call_correction(&coder_tools());
        let missing: Vec<&str> = [
            "read_file",
            "write_file",
            "edit_file",
            "run_command",
            "done",
        ]
        .into_iter()
        .filter(|t| !text.contains(t))
        .collect();
        assert_eq!((missing, text.contains("...")), (vec![], false), "{text}");
    }
}
