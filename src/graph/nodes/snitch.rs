//! The snitch node: records the ending's cause and has the run's issue writer append one
//! structured section to `.sdd/issues.md` for a human (what went wrong, what to look at); it
//! never writes a prompt.

use crate::graph::memory::state::{Decision, RunState};
use crate::graph::{GraphContext, StepResult};
use kotef_core::NodeName;

pub fn step(ctx: &GraphContext, state: &mut RunState) -> StepResult {
    if state.ending.is_none() {
        state.finish(crate::graph::rules::endings::no_cause());
    }
    let reason = match (ctx.issue_writer)(state) {
        Ok(()) => "wrote .sdd/issues.md".to_string(),
        Err(e) => format!("could not write .sdd/issues.md: {e}"),
    };
    StepResult::to(NodeName::Done, Decision::Report, reason, false)
}
