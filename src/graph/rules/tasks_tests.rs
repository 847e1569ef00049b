//! Tests of the coder's tasks (`tasks`): the opening task, the follow-up, the refusal of an
//! empty `done`, a failure outside the repository.

#![cfg(test)]

use crate::graph::memory::failure::FailureReport;
use crate::graph::memory::line_offers::LineMemory;
use crate::graph::memory::state::{CoderEnd, Decision, RunState};
use crate::graph::memory::testing::{opened_with, step, verification};
use crate::graph::rules::tasks::{
    empty_done_refusal, follow_up_task, opening_task, task_from_failure,
};
use kotef_core::NodeName;
use kotef_tools::FailureKind;

fn add_coder_step(s: &mut RunState) {
    let n = s.timeline.len() as u32 + 1;
    s.timeline.push(step(NodeName::Coder).numbered(n));
}

#[test]
fn a_failing_opening_verification_becomes_the_coders_task() {
    let task = opening_task(&opened_with(verification(false, "e"))).unwrap_or_default();
    assert!(task.contains("AssertionError: 1 != 2"), "{task}");
}

#[test]
fn a_missing_function_becomes_an_add_task() {
    let mut s = opened_with(verification(false, "e"));
    let summary = "ImportError: cannot import name 'median' from 'stats' (/w/stats.py)";
    let t = s.test.as_mut().unwrap();
    t.summary = summary.into();
    t.report = FailureReport::from_summary(summary);
    let task = opening_task(&s).unwrap_or_default();
    assert!(
        task.starts_with("Add the missing function `median` to `stats.py`"),
        "{task}"
    );
}

#[test]
fn a_passing_opening_verification_leaves_the_choice_to_the_planner() {
    assert_eq!(opening_task(&opened_with(verification(true, ""))), None);
}

#[test]
fn a_test_command_that_cannot_run_goes_to_the_planner() {
    let mut s = opened_with(verification(false, "e"));
    s.test.as_mut().unwrap().kind = Some(FailureKind::ToolingError);
    assert_eq!(opening_task(&s), None);
}

#[test]
fn only_the_runs_first_step_opens_with_the_coder() {
    let mut s = opened_with(verification(false, "e"));
    s.timeline.push(
        step(NodeName::Planner)
            .numbered(1)
            .deciding(Decision::Route(NodeName::Verifier)),
    );
    assert_eq!(opening_task(&s), None);
}

fn outside_after(coder_steps: usize) -> RunState {
    let mut s = opened_with(verification(false, "e"));
    s.test.as_mut().unwrap().outside_cause =
        Some("a network host name that does not resolve here".into());
    for _ in 0..coder_steps {
        add_coder_step(&mut s);
    }
    s
}

fn after_coder_change(progress: bool) -> RunState {
    let mut s = opened_with(verification(false, "e"));
    s.test.as_mut().unwrap().after_code_change = true;
    add_coder_step(&mut s);
    s.timeline.last_mut().unwrap().progress = progress;
    s
}

#[test]
fn a_coder_change_that_still_fails_sends_the_new_failure_back_to_the_coder() {
    let task = follow_up_task(&after_coder_change(true)).unwrap_or_default();
    assert!(task.contains("AssertionError: 1 != 2"), "{task}");
}

#[test]
fn a_coder_step_without_progress_goes_to_the_planner() {
    assert_eq!(follow_up_task(&after_coder_change(false)), None);
}

/// A repair step that made no net change and ended at its call cap, with offers `left` or not.
fn after_repair_at_its_cap(left: bool) -> RunState {
    let mut s = after_coder_change(false);
    s.test.as_mut().unwrap().after_code_change = false;
    s.timeline.last_mut().unwrap().decision = Decision::Code(CoderEnd::CallCap);
    let mut memory = LineMemory::new("cargo test");
    memory.left = left;
    s.lines = Some(memory);
    s
}

#[test]
fn a_repair_step_at_its_call_cap_with_statements_left_goes_back_to_the_coder() {
    let task = follow_up_task(&after_repair_at_its_cap(true)).unwrap_or_default();
    assert!(task.contains("AssertionError: 1 != 2"), "{task}");
}

#[test]
fn a_repair_step_at_its_call_cap_with_nothing_left_to_offer_goes_to_the_planner() {
    assert_eq!(follow_up_task(&after_repair_at_its_cap(false)), None);
}

#[test]
fn a_coder_change_the_command_cannot_run_goes_to_the_planner() {
    let mut s = after_coder_change(true);
    s.test.as_mut().unwrap().kind = Some(FailureKind::ToolingError);
    assert_eq!(follow_up_task(&s), None);
}

#[test]
fn a_coder_done_with_nothing_changed_on_failing_tests_is_refused_with_the_failure() {
    let why = empty_done_refusal(&opened_with(verification(false, "e")), false).unwrap_or_default();
    assert!(
        why.starts_with("Refused: you called done but changed nothing, and `cargo test` still fails with: AssertionError: 1 != 2."),
        "{why}"
    );
}

#[test]
fn a_coder_done_with_nothing_changed_is_refused_once_per_run() {
    let mut s = opened_with(verification(false, "e"));
    assert_eq!(empty_done_refusal(&s, true), None);
    add_coder_step(&mut s);
    s.timeline.last_mut().unwrap().refused_empty_done = true;
    assert_eq!(empty_done_refusal(&s, false), None);
}

#[test]
fn a_task_from_a_failure_outside_the_repository_says_the_coder_may_stop() {
    let task = task_from_failure(&outside_after(0)).unwrap_or_default();
    assert!(
        task.ends_with("That needs a network host name that does not resolve here, outside the repository: if the code cannot pass without it, call done and say so."),
        "{task}"
    );
}

#[test]
fn a_coder_done_on_a_failure_outside_the_repository_is_taken() {
    assert_eq!(empty_done_refusal(&outside_after(0), false), None);
}

#[test]
fn a_coder_done_on_passing_tests_is_taken() {
    assert_eq!(
        empty_done_refusal(&opened_with(verification(true, "")), false),
        None
    );
}
