//! The coder's tasks, built from the run's facts: the failure the tests show as a concrete
//! task (what to fix, the command, its key line, where to look), the opening task, the
//! follow-up after a change that still fails, the task after an undone change, and the
//! refusal of an empty `done`. Their words are templates in `prompts/messages.md`.

use super::context::{clip, coder_files, key_line, protected_tests};
use super::messages::{self, fill};
use super::state::RunState;
use crate::lang::python::missing_python_name;
use kotef_core::NodeName;
use kotef_tools::FailureKind;

/// A concrete coder task from the last failing verification: the command, its key line and
/// where to look. `None` when the last verification passed or none ran.
pub fn task_from_failure(state: &RunState) -> Option<String> {
    let t = state.test.as_ref().filter(|t| !t.passed)?;
    let files = state.file_hashes.keys();
    let tests = protected_tests(Some(&t.command), &state.goal, files.clone());
    let code: Vec<String> = coder_files(&state.goal, Some(&t.summary), files)
        .into_iter()
        .filter(|f| !tests.contains(f))
        .map(|f| format!("`{f}`"))
        .collect();
    let what = if code.is_empty() {
        messages::text(messages::FIX_UNNAMED_CODE)
    } else {
        code.join(" and ")
    };
    let key = key_line(&t.summary);
    let fix = match missing_python_name(&key) {
        Some((name, module)) => fill(
            messages::ADD_MISSING_FUNCTION,
            &[("name", &name), ("module", &module)],
        ),
        None => fill(messages::FIX_CODE, &[("what", &what)]),
    };
    let advice = match &t.outside_cause {
        Some(cause) => fill(messages::ADVICE_OUTSIDE, &[("cause", cause)]),
        None => messages::text(messages::ADVICE_INSIDE),
    };
    Some(fill(
        messages::FIX_TASK,
        &[
            ("fix", &fix),
            ("command", &t.command),
            ("failure", &clip(&key, 300)),
            ("advice", &advice),
        ],
    ))
}

/// The coder's task when the run opened with the verifier (nothing before it in the timeline)
/// and the tests fail as tests do ([`task_from_failure`]): a planner call could only restate
/// the failure, and a small model's first guess is where it hallucinates ("the repository has
/// no such file"). A tooling failure (the command cannot run) goes to the planner instead.
pub fn opening_task(state: &RunState) -> Option<String> {
    state
        .timeline
        .is_empty()
        .then(|| opening_failure(state))
        .flatten()
}

/// [`task_from_failure`] for a test that failed or never ended (not a command that cannot run).
pub fn opening_failure(state: &RunState) -> Option<String> {
    let t = state.test.as_ref().filter(|t| !t.passed)?;
    (t.kind != Some(FailureKind::ToolingError) || t.timed_out)
        .then(|| task_from_failure(state))
        .flatten()
}

/// The coder's task after its change was undone (`rules::regression`): what went wrong, then the
/// earlier failure as a task.
pub fn undone_task(state: &RunState, files: &[String], worse: &str) -> Option<String> {
    let task = task_from_failure(state)?;
    let files: Vec<String> = files.iter().map(|f| format!("`{f}`")).collect();
    Some(fill(
        messages::UNDONE_TASK,
        &[
            ("files", &files.join(" and ")),
            ("worse", &clip(worse, 200)),
            ("task", &task),
        ],
    ))
}

/// The coder's next task when its step changed the code (a new world, not a return to an
/// earlier one) and the verification of that change still fails as tests do: the new failure,
/// straight back to the coder. A planner call there could only restate it, and a small
/// model's planner restates the failure it saw before ("median is not defined" after the coder
/// added `median`). A step that changed nothing, or a command that cannot run, goes to the
/// planner, which can change course or give up. The planner's stop rules judge the hop.
pub fn follow_up_task(state: &RunState) -> Option<String> {
    let coder_progressed = state
        .timeline
        .last()
        .is_some_and(|r| r.node == NodeName::Coder && r.progress);
    let t = state.test.as_ref()?;
    (coder_progressed && t.after_code_change)
        .then(|| opening_failure(state))
        .flatten()
}

/// The tool result for a coder `done` with nothing changed in its step while the tests fail as
/// tests do, for a cause inside the repository — once per run: a small model's `done` is often its first move, not a verdict. A
/// second such `done` is taken (the tests may need something outside the repository).
pub fn empty_done_refusal(state: &RunState) -> Option<String> {
    let t = state.test.as_ref().filter(|t| !t.passed)?;
    // A failure that needs something outside the repository may well have nothing to change.
    let fixable_here = t.kind != Some(FailureKind::ToolingError) && t.outside_cause.is_none();
    (fixable_here && state.empty_done_refusals == 0).then(|| {
        fill(
            messages::EMPTY_DONE_REFUSED,
            &[
                ("command", &t.command),
                ("failure", &clip(&key_line(&t.summary), 300)),
            ],
        )
    })
}
