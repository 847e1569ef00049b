//! Tests of how a run ends (`endings`): the stop reason with the failure, `done`, giving up,
//! a regression, fixed-and-done and success over a stop.

#![cfg(test)]

use crate::graph::memory::facts::testing::changed_and_verified;
use crate::graph::memory::failure::FailureReport;
use crate::graph::memory::state::{
    CoderEnd, Decision, FailureEntry, Fired, RunState, StepRecord, TestResult,
};
use crate::graph::memory::testing::{opened_with, run, step, verification};
use crate::graph::rules::endings::*;
use kotef_core::{NodeName, StopRule, TerminalStatus};
use kotef_tools::FailureKind;

fn coder_step(end: CoderEnd) -> StepRecord {
    step(NodeName::Coder)
        .numbered(1)
        .deciding(Decision::Code(end))
        .with_progress()
}

#[test]
fn a_partial_ending_names_the_failure_the_tests_still_show() {
    let mut s = opened_with(verification(false, "e"));
    s.finish(done_verdict(&s, "nothing to change"));
    assert_eq!(
        reason_with_failure(&s).unwrap_or_default(),
        "The planner said done but the last verification (`cargo test`) failed; what remains is written to .sdd/issues.md. `cargo test` still fails with: AssertionError: 1 != 2 (see whether it can be fixed inside the repository at all)."
    );
}

#[test]
fn a_budget_stop_names_the_failure_the_tests_still_show() {
    let mut s = opened_with(verification(false, "e"));
    s.stop(StopRule::Budget, "The time budget ran out.");
    assert_eq!(
        reason_with_failure(&s).unwrap_or_default(),
        "The time budget ran out. `cargo test` still fails with: AssertionError: 1 != 2 (see whether it can be fixed inside the repository at all)."
    );
}

#[test]
fn a_stop_reason_names_a_command_that_cannot_run_without_the_classifiers_kind() {
    let mut s = opened_with(verification(false, "e"));
    let summary = "tooling_error: `cargo test` exited with 127 (command not found)";
    if let Some(t) = s.test.as_mut() {
        t.report = FailureReport::from_summary(summary);
    }
    s.stop(StopRule::Budget, "The time budget ran out.");
    assert_eq!(
        reason_with_failure(&s).unwrap_or_default(),
        "The time budget ran out. `cargo test` still fails: exited with 127 (command not found) (see whether it can be fixed inside the repository at all)."
    );
}

#[test]
fn a_stop_reason_says_there_is_no_test_command_in_words() {
    let mut s = opened_with(verification(false, "e"));
    if let Some(t) = s.test.as_mut() {
        t.command = crate::graph::prompt::context::NO_TEST_COMMAND.into();
        t.report = FailureReport::from_summary("tooling_error: `(no test command)` could not start: no test command configured or detected");
    }
    s.stop(StopRule::Budget, "The time budget ran out.");
    assert_eq!(
        reason_with_failure(&s).unwrap_or_default(),
        "The time budget ran out. No test command was configured (`test_command` in kotef.toml) or detected, so nothing could check the change."
    );
}

fn failing(summary: &str, after_change: bool) -> TestResult {
    TestResult {
        summary: summary.into(),
        after_code_change: after_change,
        report: FailureReport::from_summary(summary),
        ..verification(false, summary)
    }
}

#[test]
fn a_change_that_fails_more_tests_is_a_regression() {
    let before = failing("FAILED (failures=1); AssertionError: None != -1", false);
    let after = failing("FAILED (failures=2); AssertionError: None != 1", true);
    assert!(regression(Some(&before), &after));
}

#[test]
fn a_change_that_breaks_the_syntax_is_a_regression() {
    let before = failing("FAILED (failures=1); AssertionError: 1 != 2", false);
    let after = failing("IndentationError: unexpected indent", true);
    assert!(regression(Some(&before), &after));
}

#[test]
fn adding_a_missing_function_that_then_fails_tests_is_not_a_regression() {
    let before = failing(
        "FAILED (errors=1); ImportError: cannot import name 'median'",
        false,
    );
    let after = failing("FAILED (failures=2); AssertionError: 2.0 != 2.5", true);
    assert!(!regression(Some(&before), &after));
}

#[test]
fn the_same_number_of_failures_is_not_a_regression() {
    let before = failing("FAILED (failures=1); AssertionError: 1 != 2", false);
    let after = failing("FAILED (failures=1); AssertionError: 3 != 2", true);
    assert!(!regression(Some(&before), &after));
}

#[test]
fn done_is_success_only_after_a_passing_verification_of_the_last_change() {
    let mut s = run().build();
    assert_eq!(done_verdict(&s, "r").status, TerminalStatus::DonePartial);
    s.test = Some(verification(true, ""));
    s.hashes_at_last_verification = Some(s.file_hashes.clone());
    let e = done_verdict(&s, "r");
    assert_eq!(e.status, TerminalStatus::DoneSuccess);
    assert!(e.reason.contains("`cargo test`"), "{}", e.reason);
    s.file_hashes.insert("a".into(), "2".into());
    assert_eq!(done_verdict(&s, "r").status, TerminalStatus::DonePartial);
}

#[test]
fn giving_up_is_aborted_stuck_without_a_rule() {
    let e = gave_up("cannot");
    assert_eq!((e.status, e.rule), (TerminalStatus::AbortedStuck, None));
}

fn fixed(end: CoderEnd, failed_before: bool) -> RunState {
    let mut s = changed_and_verified(true);
    s.timeline.push(coder_step(end));
    if failed_before {
        s.failures.entries.push(FailureEntry {
            step: 0,
            command: "t".into(),
            exit_code: Some(1),
            kind: FailureKind::TestFailure,
            summary: "e".into(),
        });
    }
    s
}

#[test]
fn a_fix_the_coder_called_done_on_ends_the_run_without_a_planner_call() {
    assert_eq!(
        fixed_and_done(&fixed(CoderEnd::Done, true)).map(|e| e.status),
        Some(TerminalStatus::DoneSuccess)
    );
}

#[test]
fn a_coder_that_did_not_call_done_leaves_the_end_to_the_planner() {
    assert_eq!(fixed_and_done(&fixed(CoderEnd::TurnsUsed, true)), None);
}

#[test]
fn a_pass_in_a_run_that_never_failed_leaves_the_end_to_the_planner() {
    assert_eq!(fixed_and_done(&fixed(CoderEnd::Done, false)), None);
}

#[test]
fn a_loop_rule_after_verified_success_ends_in_success() {
    let f = Fired {
        rule: StopRule::PlannerToCoder,
        reason: "loop".into(),
    };
    assert_eq!(
        success_over_stop(&changed_and_verified(true), &f).map(|e| e.status),
        Some(TerminalStatus::DoneSuccess)
    );
    assert_eq!(success_over_stop(&changed_and_verified(false), &f), None);
}
