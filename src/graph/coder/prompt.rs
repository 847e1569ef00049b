//! One coder turn's user message: the goal, the task, the repository snapshot and the test
//! summary, the files the task names (as they are now), the open plan items, the notes of
//! this step, and the correction, budget review and warning the step's checks asked for.

use super::no_tool_call_correction;
use super::turns::Turns;
use crate::graph::context;
use crate::graph::messages::BudgetWarning;
use crate::graph::state::RunState;
use crate::graph::GraphContext;
use kotef_model::ToolSchema;

/// The user message of the next turn; takes the pending correction and review from `t`.
pub(super) async fn user_message(
    ctx: &GraphContext,
    state: &mut RunState,
    task: &str,
    tools: &[ToolSchema],
    t: &mut Turns,
) -> String {
    let snapshot = ctx.snapshot().await;
    // Refreshed so "files changed in this run" includes this step's writes.
    state.file_hashes = ctx.hashes_or(&state.file_hashes).await;
    let mut user = format!(
        "# Goal\n{}\n\n# Your task\n{task}\n\n{}{}",
        state.goal,
        context::repo_state(&snapshot, state),
        context::test_summary(state)
    );
    // The files the task names, as they are now: the coder edits real text, and they count as
    // read for the read-before-write rule.
    let named = context::task_files(ctx, state, task, context::NAMED_FILES + 1);
    for (p, _) in &named {
        ctx.tools.mark_read(p);
    }
    let key = state
        .test
        .as_ref()
        .map_or("", |t| t.report.key_line.as_str());
    let names = crate::graph::code_view::code_names(&format!("{task}\n{key}"));
    user.push_str(&context::named_files_section(&named, &names));
    if !state.plan.is_empty() {
        user.push_str("\n## Plan (open items)\n");
        for p in state.plan.iter().take(8) {
            user.push_str(&format!("- {p}\n"));
        }
    }
    if !t.notes.is_empty() {
        user.push_str("\n## Done so far in this step\n");
        for n in &t.notes {
            user.push_str(&format!("- {n}\n"));
        }
    }
    if let Some(c) = t.correction.take() {
        user.push_str(&format!(
            "\n## Your last reply\n{c}\n\n{}\n",
            no_tool_call_correction(tools)
        ));
    }
    if let Some(review) = t.pending_review.take() {
        user.push_str(&format!("\n## Budget review\n{review}\n"));
    }
    if t.warn {
        let reviews = t.review_streak.to_string();
        let warning = BudgetWarning { reviews: &reviews };
        user.push_str(&format!("\n{warning}\n"));
    }
    user
}
