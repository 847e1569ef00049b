//! One coder turn's user message: the goal, the task, the repository snapshot and the test
//! summary, the files the task names (as they are now), the open plan items, the notes of
//! this step, and the correction, budget review and warning the step's checks asked for.

use super::no_tool_call_correction;
use super::turns::Turns;
use crate::graph::memory::state::RunState;
use crate::graph::prompt::context;
use crate::graph::prompt::messages as m;
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
    let mut user = m::CoderUser {
        goal: &state.goal,
        task,
        repo_state: &context::repo_state(&snapshot, state),
        test_summary: &context::test_summary(state),
    }
    .to_string();
    // The files the task names, as they are now: the coder edits real text, and they count as
    // read for the read-before-write rule.
    let named = context::task_files(
        ctx.tools.workdir().tree(),
        state,
        task,
        context::NAMED_FILES + 1,
    );
    for (p, _) in &named {
        ctx.tools.mark_read(p);
    }
    let key = state
        .test
        .as_ref()
        .map_or("", |t| t.report.key_line.as_str());
    let names = crate::graph::prompt::code_view::code_names(&format!("{task}\n{key}"));
    user.push_str(&context::named_files_section(&named, &names));
    user.push_str(&context::plan_section(&state.plan, 8));
    if !t.notes.is_empty() {
        user.push_str(&m::CoderNotesSection.to_string());
        for n in &t.notes {
            user.push_str(&m::ListItem { item: n }.to_string());
        }
    }
    if let Some(c) = t.correction.take() {
        let correction = no_tool_call_correction(tools);
        user.push_str(
            &m::CoderLastReply {
                reply: &c,
                correction: &correction,
            }
            .to_string(),
        );
    }
    if let Some(review) = t.pending_review.take() {
        user.push_str(&m::CoderBudgetReview { review }.to_string());
    }
    if t.warn {
        let reviews = t.review_streak.to_string();
        let warning = m::BudgetWarning { reviews: &reviews }.to_string();
        user.push_str(&m::CoderWarning { warning: &warning }.to_string());
    }
    user
}
