//! The coder's tasks, built from the run's facts: the failure the tests show as a concrete
//! task (what to fix, the command, its key line, where to look), the opening task, the
//! follow-up after a change that still fails, the task after an undone change, and the
//! refusal of an empty `done`. Their words are templates in `prompts/messages.md`.

use crate::graph::memory::state::{CoderEnd, Decision, RunState};
use crate::graph::prompt::context::{clip, coder_files, protected_tests};
use crate::graph::prompt::messages::{
    AddMissingFunction, AdviceInside, AdviceOutside, EmptyDoneRefused, FixCode, FixUnnamedCode,
    UndoneTask,
};
use kotef_core::NodeName;
use kotef_tools::FailureKind;

/// A concrete coder task from the last failing verification: the command, its key line and
/// where to look. `None` when the last verification passed or none ran.
pub fn task_from_failure(state: &RunState) -> Option<String> {
    let t = fix_task(state)?;
    Some(
        crate::graph::prompt::messages::FixTask {
            fix: &t.fix,
            command: &t.command,
            failure: &t.failure,
            advice: &t.advice,
        }
        .to_string(),
    )
}

/// The part of `task` a prompt that already shows the test command and its failing output
/// does not repeat: `None` for the task [`task_from_failure`] wrote, unless it names a missing
/// function or a cause outside the repository; otherwise `task` itself.
pub fn news_in_task(state: &RunState, task: &str) -> Option<String> {
    let Some(t) = fix_task(state).filter(|_| task_from_failure(state).as_deref() == Some(task))
    else {
        return Some(task.to_string());
    };
    let mut news = Vec::new();
    if t.adds_function {
        news.push(format!("{}.", t.fix));
    }
    if t.outside {
        news.push(t.advice);
    }
    (!news.is_empty()).then(|| news.join(" "))
}

/// The pieces of [`task_from_failure`].
struct FixTask {
    fix: String,
    adds_function: bool,
    command: String,
    failure: String,
    advice: String,
    outside: bool,
}

fn fix_task(state: &RunState) -> Option<FixTask> {
    let t = state.test.as_ref().filter(|t| !t.passed)?;
    let files = state.file_hashes.keys();
    let tests = protected_tests(Some(&t.command), &state.goal, files.clone());
    let code: Vec<String> = coder_files(&state.goal, &t.report.files_named, files)
        .into_iter()
        .filter(|f| !tests.contains(f))
        .map(|f| format!("`{f}`"))
        .collect();
    let what = if code.is_empty() {
        FixUnnamedCode.to_string()
    } else {
        code.join(" and ")
    };
    let key = &t.report.key_line;
    let missing = t.report.missing_name.clone();
    let fix = match &missing {
        Some((name, module)) => AddMissingFunction { name, module }.to_string(),
        None => FixCode { what: &what }.to_string(),
    };
    let advice = match &t.outside_cause {
        Some(cause) => AdviceOutside { cause }.to_string(),
        None => AdviceInside.to_string(),
    };
    Some(FixTask {
        fix,
        adds_function: missing.is_some(),
        command: t.command.clone(),
        failure: clip(key, 300),
        advice,
        outside: t.outside_cause.is_some(),
    })
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

/// The coder's task after its change was undone (`crate::graph::rules::endings::regression`): what
/// went wrong, then the earlier failure as a task.
pub fn undone_task(state: &RunState, files: &[String], worse: &str) -> Option<String> {
    let task = task_from_failure(state)?;
    let files: Vec<String> = files.iter().map(|f| format!("`{f}`")).collect();
    Some(
        UndoneTask {
            files: &files.join(" and "),
            worse: &clip(worse, 200),
            task: &task,
        }
        .to_string(),
    )
}

/// The coder's next task when its step changed the code (a new world, not a return to an
/// earlier one) and the verification of that change still fails as tests do: the new failure,
/// straight back to the coder. A planner call there could only restate it, and a small
/// model's planner restates the failure it saw before ("median is not defined" after the coder
/// added `median`). A step that changed nothing, or a command that cannot run, goes to the
/// planner, which can change course or give up — unless it was a repair step that ended at
/// its call cap with statements still to offer: the next step goes on with them
/// (`memory::line_offers`), and a planner call there only costs the time of a long prompt.
/// The planner's stop rules judge the hop.
pub fn follow_up_task(state: &RunState) -> Option<String> {
    let last = state.timeline.last().filter(|r| r.node == NodeName::Coder);
    let offers_left = last.is_some_and(|r| r.decision == Decision::Code(CoderEnd::CallCap))
        && state.lines.as_ref().is_some_and(|m| m.left);
    let t = state.test.as_ref()?;
    ((coder_changed_code(state) && t.after_code_change) || offers_left)
        .then(|| opening_failure(state))
        .flatten()
}

/// Whether the step just before was the coder's and changed the code.
pub fn coder_changed_code(state: &RunState) -> bool {
    let last = state.timeline.last();
    last.is_some_and(|r| r.node == NodeName::Coder && r.progress)
}

/// The tool result for a coder `done` with nothing changed in its step while the tests fail as
/// tests do, for a cause inside the repository — once per run: a small model's `done` is often its first move, not a verdict. A
/// second such `done` is taken (the tests may need something outside the repository).
/// `refused_in_step`: the current step (not yet in the timeline) refused one already.
pub fn empty_done_refusal(state: &RunState, refused_in_step: bool) -> Option<String> {
    let t = state.test.as_ref().filter(|t| !t.passed)?;
    // A failure that needs something outside the repository may well have nothing to change.
    let fixable_here = t.kind != Some(FailureKind::ToolingError) && t.outside_cause.is_none();
    let first = state.refused_empty_dones() == 0 && !refused_in_step;
    (fixable_here && first).then(|| {
        EmptyDoneRefused {
            command: &t.command,
            failure: &clip(&t.report.key_line, 300),
        }
        .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::state::TestResult;
    use kotef_core::Profile;
    use std::collections::BTreeMap;

    fn failing(summary: &str, outside: Option<&str>) -> RunState {
        let mut s = RunState::new("Fix f", Profile::Strict, BTreeMap::new());
        s.test = Some(TestResult {
            command: "python3 -m unittest".into(),
            passed: false,
            exit_code: Some(1),
            kind: Some(FailureKind::TestFailure),
            summary: summary.into(),
            error_signature: Some("e".into()),
            same_error_count: 0,
            step: 1,
            after_code_change: false,
            outside_cause: outside.map(str::to_string),
            timed_out: false,
            report: crate::graph::memory::failure::FailureReport::from_summary(summary),
        });
        s
    }

    fn news_in_the_generated_task(s: &RunState) -> Option<String> {
        news_in_task(s, &task_from_failure(s).unwrap_or_default())
    }

    #[test]
    fn a_task_written_from_the_failure_has_nothing_a_prompt_with_the_failure_lacks() {
        assert_eq!(
            news_in_the_generated_task(&failing("AssertionError: 1 != 2", None)),
            None
        );
    }

    #[test]
    fn a_missing_function_is_news() {
        let s = failing(
            "ImportError: cannot import name 'median' from 'stats' (/w/stats.py)",
            None,
        );
        assert_eq!(
            news_in_the_generated_task(&s).as_deref(),
            Some(
                "Add the missing function `median` to `stats.py` (keep every function it has now)."
            )
        );
    }

    #[test]
    fn a_cause_outside_the_repository_is_news() {
        let s = failing("OSError: no route", Some("the network"));
        assert_eq!(
            news_in_the_generated_task(&s).as_deref(),
            Some("That needs the network, outside the repository: if the code cannot pass without it, call done and say so.")
        );
    }

    #[test]
    fn a_task_the_planner_wrote_is_shown_as_it_is() {
        let s = failing("AssertionError: 1 != 2", None);
        assert_eq!(
            news_in_task(&s, "Rename `f` to `g`").as_deref(),
            Some("Rename `f` to `g`")
        );
    }
}
