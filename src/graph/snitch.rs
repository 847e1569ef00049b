//! The snitch node: appends one structured section to `.sdd/issues.md` for a human. It writes
//! the report of what went wrong and what to look at; it never writes a prompt.

use super::state::{Decision, RunState};
use super::{GraphContext, StepResult};
use kotef_core::NodeName;

pub fn step(ctx: &GraphContext, state: &mut RunState) -> StepResult {
    if state.ending.is_none() {
        state.finish(super::rules::no_cause());
    }
    let entry = crate::sdd::issues::render_entry(state, &ctx.run_id, chrono::Utc::now());
    let reason = match crate::sdd::issues::append(
        ctx.tools.workdir().root(),
        &ctx.redactor.redact(&entry),
    ) {
        Ok(()) => "wrote .sdd/issues.md".to_string(),
        Err(e) => format!("could not write .sdd/issues.md: {e}"),
    };
    StepResult::to(NodeName::Done, Decision::Report, reason, false)
}
