//! What one node leaves for a later one, apart from the run's facts: the graph loop owns it and
//! lends it to each step, and the node it is meant for takes it. The planner's note (why its
//! last choice was refused) waits for the planner's next prompt; a standing decision (the
//! coder's next task, chosen by the verifier) for the planner's next step; the undo (the files
//! a coder step changed, as they were before it) for the verifier after that step.

use crate::graph::memory::state::PlannerDecision;
use std::collections::BTreeMap;

/// The messages between nodes.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Handoff {
    /// Why the planner's last choice was refused, for its next prompt.
    pub planner_note: Option<String>,
    /// A hop the verifier chose for the next planner step, taken with no model call (see
    /// `tasks::follow_up_task`); the planner's stop rules still judge it.
    pub standing_decision: Option<PlannerDecision>,
    /// The files the latest coder step changed, as they were before it (`None`: the file did
    /// not exist), so a change that makes the tests worse can be undone (see
    /// `endings::regression`).
    pub undo: BTreeMap<String, Option<String>>,
}
