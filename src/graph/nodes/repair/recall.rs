//! What a repair step's line attempts take from the run's earlier steps (the offers made,
//! the changes tested, the branches left) and leave its later ones, and whether the step
//! explored: tested changes new to the run with offers still to make.

use super::attempts::Attempts;
use super::lines;
use super::targets;
use crate::graph::memory::line_offers::LineMemory;
use crate::graph::memory::state::RunState;

/// The line attempts' queue of `targets` for a step judged by `command`, after what the
/// run's earlier steps with that command offered and tested (not again), and the memory the
/// step leaves the next.
pub(super) fn line_queue(
    state: &RunState,
    command: &str,
    targets: targets::Targets,
    a: &mut Attempts,
) -> (lines::Queue, LineMemory) {
    let memory = (state.lines.clone())
        .filter(|m| m.command == command)
        .unwrap_or_else(|| LineMemory::new(command));
    a.recall(&memory.tested);
    (lines::Queue::resume(targets, &memory), memory)
}

/// Keeps what the step's line attempts leave the run's later steps; whether the step tested
/// changes new to the run with offers still to make (a search under way, not a loop).
pub(super) fn keep_lines(
    state: &mut RunState,
    offers: &lines::Queue,
    memory: LineMemory,
    a: &Attempts,
) -> bool {
    let known = memory.tested.len();
    let memory = offers.remember(memory, a.tested_lines());
    let explored = memory.tested.len() > known && memory.left;
    state.lines = Some(memory);
    explored
}
