//! How a run ends when the planner or the verifier decides it: `done` judged against the
//! last verification ([`done_verdict`]), the coder's fixed-and-done ([`fixed_and_done`]), a
//! verified success that wins over a loop rule ([`success_over_stop`]), giving up, and the
//! undo of a change that made the tests worse ([`regression`]).

use crate::graph::memory::state::{CoderEnd, Decision, Ending, Fired, RunState, TestResult};
use kotef_core::{NodeName, StopRule, TerminalStatus};

/// The stop reason of a stuck or partial ending with the failure the tests still show
/// appended (a "time budget ran out" or "the planner said done" alone tells a maintainer
/// nothing to do). `None` when it names that failure already (a guard wrote it in), the run
/// succeeded or hit a constraint, or no test fails.
pub fn reason_with_failure(state: &RunState) -> Option<String> {
    let e = state.ending.as_ref()?;
    let hint = crate::graph::prompt::context::still_failing(state);
    let unfinished = matches!(
        e.status,
        TerminalStatus::AbortedStuck | TerminalStatus::DonePartial
    );
    let add = unfinished && !hint.is_empty() && !names_the_failure(&e.reason, state);
    add.then(|| format!("{}{hint}", e.reason))
}

/// Whether a stop reason already holds the sentence the last failing verification makes
/// (`context::failure_sentence` of its command and key line): compared with that value, not
/// with a fixed phrase.
fn names_the_failure(reason: &str, state: &RunState) -> bool {
    state.test.as_ref().filter(|t| !t.passed).is_some_and(|t| {
        reason.contains(&crate::graph::prompt::context::failure_sentence(
            &t.command,
            &t.report.key_line,
        ))
    })
}

/// The ending when the planner says `done`: success only with a passing verification after
/// the last change.
pub fn done_verdict(state: &RunState, reason: &str) -> Ending {
    if state.verified_after_last_change() {
        let command = state
            .test
            .as_ref()
            .map(|t| t.command.as_str())
            .unwrap_or("");
        return ending(
            TerminalStatus::DoneSuccess,
            None,
            format!(
                "The planner finished and the last verification (`{command}`) passed after the latest change: {reason}"
            ),
        );
    }
    let why = match &state.test {
        None => "no verification ran".to_string(),
        Some(t) if !t.passed => format!("the last verification (`{}`) failed", t.command),
        Some(_) => "files changed after the last passing verification".to_string(),
    };
    ending(
        TerminalStatus::DonePartial,
        None,
        format!("The planner said done but {why}; what remains is written to .sdd/issues.md."),
    )
}

/// A verification that is worse than the one before it, after a coder change: more failing
/// tests, or code that no longer loads (`kotef_tools::failure_severity`). The change is then
/// undone and the coder gets the earlier failure again: a small model's "fix" that breaks a
/// passing test is further from the goal than no change.
pub fn regression(before: Option<&TestResult>, after: &TestResult) -> bool {
    let Some(before) = before.filter(|b| !b.passed && b.command == after.command) else {
        return false;
    };
    let severity = |t: &TestResult| t.report.severity;
    !after.passed
        && after.after_code_change
        && matches!((severity(before), severity(after)), (Some(b), Some(a)) if a > b)
}

/// The fix is in: a verification failed earlier in this run, the coder's latest step changed
/// files and called `done`, and the verification of exactly those files passed. The run ends
/// `done_success` there, without a planner call that could only say `done` (or waste the
/// pass). A coder that stopped without `done`, or a run that never failed, goes back to the
/// planner as usual.
pub fn fixed_and_done(state: &RunState) -> Option<Ending> {
    let coder_done = state
        .timeline
        .iter()
        .rev()
        .find(|r| r.node == NodeName::Coder)
        .is_some_and(|r| r.decision == Decision::Code(CoderEnd::Done));
    let failed_before = !state.failures.entries.is_empty();
    (state.verified_success() && coder_done && failed_before).then(|| {
        let command = state.test.as_ref().map_or("", |t| t.command.as_str());
        ending(
            TerminalStatus::DoneSuccess,
            None,
            format!(
                "`{command}` failed earlier in this run and passes on the coder's changes, which it called done."
            ),
        )
    })
}

/// A stop rule that fires after verified success (the run changed files and the verification
/// of exactly these files passed) does not turn a fix into a failure: the run ends
/// `done_success`, naming the rule that would have stopped it.
pub fn success_over_stop(state: &RunState, fired: &Fired) -> Option<Ending> {
    state.verified_success().then(|| {
        Ending::verified_success(
            last_command(state),
            &format!(
                "{} would have stopped the run ({})",
                fired.rule, fired.reason
            ),
        )
    })
}

/// The last verification's command ("" before any).
fn last_command(state: &RunState) -> &str {
    state.test.as_ref().map_or("", |t| t.command.as_str())
}

/// The ending when the planner gives up (routes to the snitch).
pub fn gave_up(reason: &str) -> Ending {
    ending(
        TerminalStatus::AbortedStuck,
        None,
        format!("The planner gave up: {reason}"),
    )
}

/// The ending of a run that reached `done` without any verdict (never expected).
pub fn no_verdict() -> Ending {
    ending(
        TerminalStatus::DonePartial,
        None,
        "The run ended without a verdict.".into(),
    )
}

/// The ending of a run that reached the snitch without a recorded cause (never expected).
pub fn no_cause() -> Ending {
    ending(
        TerminalStatus::AbortedStuck,
        None,
        "The run reached the snitch without a recorded cause.".into(),
    )
}

fn ending(status: TerminalStatus, rule: Option<StopRule>, reason: String) -> Ending {
    Ending {
        status,
        rule,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::facts::testing::test_result;
    use kotef_core::Profile;
    use std::collections::BTreeMap;

    fn failing_then_stopped(reason: &str) -> RunState {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        s.test = Some(test_result(
            "cargo test",
            false,
            "test_failure: `cargo test` exited with code 1\nAssertionError: 1 != 2",
        ));
        s.stop(StopRule::NoProgress, reason);
        s
    }

    #[test]
    fn a_reason_that_names_the_failure_already_is_kept_as_written() {
        let s = failing_then_stopped(
            "Stuck. `cargo test` still fails with: AssertionError: 1 != 2. Provide it.",
        );
        assert_eq!(reason_with_failure(&s), None);
    }

    #[test]
    fn a_reason_naming_another_failure_gets_the_current_one() {
        let s = failing_then_stopped("Stuck. `cargo test` still fails with: KeyError: 'a'.");
        assert_eq!(
            reason_with_failure(&s).as_deref(),
            Some("Stuck. `cargo test` still fails with: KeyError: 'a'. `cargo test` still fails with: AssertionError: 1 != 2 (see whether it can be fixed inside the repository at all).")
        );
    }
}
