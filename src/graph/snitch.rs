//! The snitch node: appends one structured section to `.sdd/issues.md` for a human. It writes
//! the report of what went wrong and what to look at; it never writes a prompt.

use super::state::RunState;
use super::{GraphContext, StepResult};
use kotef_core::{NodeName, TerminalStatus};

pub fn step(ctx: &GraphContext, state: &mut RunState) -> StepResult {
    if state.ending.is_none() {
        state.end(
            TerminalStatus::AbortedStuck,
            None,
            "The run reached the snitch without a recorded cause.",
        );
    }
    let entry = crate::sdd::issues::render_entry(state, &ctx.run_id, chrono::Utc::now());
    let reason = match crate::sdd::issues::append(
        ctx.tools.workdir().root(),
        &ctx.redactor.redact(&entry),
    ) {
        Ok(()) => "wrote .sdd/issues.md".to_string(),
        Err(e) => format!("could not write .sdd/issues.md: {e}"),
    };
    StepResult::to(NodeName::Done, "report".into(), reason, false)
}
