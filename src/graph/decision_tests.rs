//! Tests of the graph's pure decisions that are not guards: progress and fingerprints
//! (`progress`), endings (`endings`), budgets and denials (`budgets`), the coder's breakers
//! (`breakers`), and the coder's tasks (`tasks`) they lead to.

#![cfg(test)]

use super::breakers::*;
use super::budgets::*;
use super::endings::*;
use super::failure::FailureReport;
use super::progress::*;
use super::state::{
    CoderEnd, Decision, Fired, PlannerDecision, ResearchState, RunState, TestResult,
};
use crate::graph::facts::testing::changed_and_verified;
use crate::graph::state::{FailureEntry, StepRecord};
use crate::graph::tasks::{empty_done_refusal, follow_up_task, opening_task, task_from_failure};
use kotef_core::Profile;
use kotef_core::{Limits, NodeName, StopRule, TerminalStatus};
use kotef_model::ModelError;
use kotef_tools::FailureKind;
use std::collections::BTreeMap;

fn limits() -> Limits {
    Limits::for_profile(Profile::Strict)
}

fn decision(next: NodeName) -> PlannerDecision {
    PlannerDecision {
        next,
        reason: "r".into(),
        plan: vec![],
        query: Some("q".into()),
        task: Some("t".into()),
        verify: None,
    }
}

fn test(passed: bool, sig: &str) -> TestResult {
    TestResult {
        command: "cargo test".into(),
        passed,
        exit_code: Some(if passed { 0 } else { 101 }),
        kind: None,
        summary: String::new(),
        error_signature: (!passed).then(|| sig.to_string()),
        same_error_count: 0,
        step: 1,
        after_code_change: false,
        outside_cause: None,
        timed_out: false,
        report: FailureReport::default(),
    }
}

fn opened_with(t: TestResult) -> RunState {
    let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
    s.test = Some(TestResult {
        kind: Some(FailureKind::TestFailure),
        summary: "AssertionError: 1 != 2".into(),
        report: FailureReport::from_summary("AssertionError: 1 != 2"),
        ..t
    });
    s
}

#[test]
fn a_failing_opening_verification_becomes_the_coders_task() {
    let task = opening_task(&opened_with(test(false, "e"))).unwrap_or_default();
    assert!(task.contains("AssertionError: 1 != 2"), "{task}");
}

#[test]
fn a_missing_function_becomes_an_add_task() {
    let mut s = opened_with(test(false, "e"));
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
fn a_partial_ending_names_the_failure_the_tests_still_show() {
    let mut s = opened_with(test(false, "e"));
    s.finish(done_verdict(&s, "nothing to change"));
    assert_eq!(
        reason_with_failure(&s).unwrap_or_default(),
        "The planner said done but the last verification (`cargo test`) failed; what remains is written to .sdd/issues.md. `cargo test` still fails with: AssertionError: 1 != 2 (see whether it can be fixed inside the repository at all)."
    );
}

#[test]
fn a_budget_stop_names_the_failure_the_tests_still_show() {
    let mut s = opened_with(test(false, "e"));
    s.stop(StopRule::Budget, "The time budget ran out.");
    assert_eq!(
        reason_with_failure(&s).unwrap_or_default(),
        "The time budget ran out. `cargo test` still fails with: AssertionError: 1 != 2 (see whether it can be fixed inside the repository at all)."
    );
}

#[test]
fn a_stop_reason_names_a_command_that_cannot_run_without_the_classifiers_kind() {
    let mut s = opened_with(test(false, "e"));
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
    let mut s = opened_with(test(false, "e"));
    if let Some(t) = s.test.as_mut() {
        t.command = crate::graph::context::NO_TEST_COMMAND.into();
        t.report = FailureReport::from_summary(
            "tooling_error: `(no test command)` could not start: no test command configured or detected",
        );
    }
    s.stop(StopRule::Budget, "The time budget ran out.");
    assert_eq!(
        reason_with_failure(&s).unwrap_or_default(),
        "The time budget ran out. No test command was configured (`test_command` in kotef.toml) or detected, so nothing could check the change."
    );
}

#[test]
fn a_passing_opening_verification_leaves_the_choice_to_the_planner() {
    assert_eq!(opening_task(&opened_with(test(true, ""))), None);
}

#[test]
fn a_test_command_that_cannot_run_goes_to_the_planner() {
    let mut s = opened_with(test(false, "e"));
    s.test.as_mut().unwrap().kind = Some(FailureKind::ToolingError);
    assert_eq!(opening_task(&s), None);
}

#[test]
fn only_the_runs_first_step_opens_with_the_coder() {
    let mut s = opened_with(test(false, "e"));
    s.timeline.push(StepRecord {
        step: 1,
        node: NodeName::Planner,
        decision: Decision::Route(NodeName::Verifier),
        reason: String::new(),
        progress: false,
        revisit_of: None,
        only_test_edits: false,
        redirect: None,
        refused_empty_done: false,
        off_list_denials: 0,
    });
    assert_eq!(opening_task(&s), None);
}

fn add_coder_step(s: &mut RunState) {
    s.timeline.push(StepRecord {
        step: s.timeline.len() as u32 + 1,
        node: NodeName::Coder,
        decision: Decision::Code(CoderEnd::Done),
        reason: String::new(),
        progress: false,
        revisit_of: None,
        only_test_edits: false,
        redirect: None,
        refused_empty_done: false,
        off_list_denials: 0,
    });
}

fn outside_after(coder_steps: usize) -> RunState {
    let mut s = opened_with(test(false, "e"));
    s.test.as_mut().unwrap().outside_cause =
        Some("a network host name that does not resolve here".into());
    for _ in 0..coder_steps {
        add_coder_step(&mut s);
    }
    s
}

fn after_coder_change(progress: bool) -> RunState {
    let mut s = opened_with(test(false, "e"));
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

#[test]
fn a_coder_change_the_command_cannot_run_goes_to_the_planner() {
    let mut s = after_coder_change(true);
    s.test.as_mut().unwrap().kind = Some(FailureKind::ToolingError);
    assert_eq!(follow_up_task(&s), None);
}

#[test]
fn a_coder_done_with_nothing_changed_on_failing_tests_is_refused_with_the_failure() {
    let why = empty_done_refusal(&opened_with(test(false, "e")), false).unwrap_or_default();
    assert!(
        why.starts_with("Refused: you called done but changed nothing, and `cargo test` still fails with: AssertionError: 1 != 2."),
        "{why}"
    );
}

#[test]
fn a_coder_done_with_nothing_changed_is_refused_once_per_run() {
    let mut s = opened_with(test(false, "e"));
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
        empty_done_refusal(&opened_with(test(true, "")), false),
        None
    );
}

fn failing(summary: &str, after_change: bool) -> TestResult {
    TestResult {
        summary: summary.into(),
        after_code_change: after_change,
        report: FailureReport::from_summary(summary),
        ..test(false, summary)
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
fn research_progress_needs_a_real_call_with_new_results() {
    let before = ResearchState::default();
    let mut after = before.clone();
    after.attempts = 1;
    after.results_hash = Some("h1".into());
    assert!(research_progress(&before, &after));
    // A repeated query answered from memory: no new attempt.
    assert!(!research_progress(&after, &after));
    // A new query that found the same thing again.
    let mut seen = after.clone();
    seen.seen_hashes.insert("h1".into());
    let mut again = seen.clone();
    again.attempts = 2;
    assert!(!research_progress(&seen, &again));
}

#[test]
fn file_progress_compares_content_not_count() {
    let a: BTreeMap<_, _> = [("a".to_string(), "1".to_string())].into();
    let b: BTreeMap<_, _> = [("a".to_string(), "2".to_string())].into();
    assert!(files_progress(&a, &b));
    assert!(!files_progress(&a, &a.clone()));
    let renamed: BTreeMap<_, _> = [("b".to_string(), "1".to_string())].into();
    assert!(files_progress(&a, &renamed));
}

#[test]
fn a_first_verification_is_progress() {
    assert!(verification_progress(None, &test(false, "x"), false));
}

#[test]
fn new_error_text_on_the_same_files_is_noise() {
    assert!(!same_files(
        test(false, "at 10:01:02 pid 4242"),
        test(false, "at 10:01:09 pid 4250")
    ));
}

/// Whether a verification after `before` on the same files is progress.
fn same_files(before: TestResult, after: TestResult) -> bool {
    verification_progress(Some(&before), &after, false)
}

#[test]
fn a_pass_fail_flip_is_progress() {
    assert!(same_files(test(false, "x"), test(true, "")));
    assert!(!same_files(test(true, ""), test(true, "")));
}

#[test]
fn a_verification_of_changed_files_is_progress() {
    assert!(verification_progress(
        Some(&test(false, "x")),
        &test(false, "x"),
        true
    ));
}

#[test]
fn budgets_and_step_cap() {
    let l = Limits {
        token_budget: 100,
        time_budget_s: 10,
        max_steps: 5,
        ..limits()
    };
    let spent = |tokens, elapsed_s| Spent {
        tokens,
        elapsed_s,
        ..Spent::default()
    };
    assert_eq!(budget_stop(&spent(99, 9), &l), None);
    assert_eq!(
        budget_stop(&spent(100, 0), &l).unwrap().rule,
        StopRule::Budget
    );
    assert_eq!(
        budget_stop(&spent(0, 10), &l).unwrap().rule,
        StopRule::Budget
    );
    assert_eq!(step_cap_reached(3, &l), None);
    assert_eq!(step_cap_reached(4, &l).unwrap().rule, StopRule::MaxSteps);
}

#[test]
fn the_model_call_budget_fires_at_its_limit() {
    let l = Limits {
        max_model_calls: 4,
        ..limits()
    };
    let spent = |model_calls| Spent {
        model_calls,
        ..Spent::default()
    };
    assert_eq!(budget_stop(&spent(3), &l), None);
    let f = budget_stop(&spent(4), &l).unwrap();
    assert_eq!(f.rule, StopRule::Budget);
    assert!(f.reason.contains("model-call budget"), "{}", f.reason);
}

#[test]
fn the_dollar_budget_fires_when_spent() {
    let l = Limits {
        cost_budget_usd: Some(0.5),
        ..limits()
    };
    let spent = |cost_usd| Spent {
        cost_usd,
        ..Spent::default()
    };
    assert_eq!(budget_stop(&spent(Some(0.49)), &l), None);
    assert_eq!(budget_stop(&spent(None), &l), None);
    let f = budget_stop(&spent(Some(0.5)), &l).unwrap();
    assert!(f.reason.contains("dollar budget"), "{}", f.reason);
}

#[test]
fn a_dollar_budget_without_a_price_becomes_a_token_budget_and_says_so() {
    let with = |cap| Limits {
        cost_budget_usd: cap,
        ..limits()
    };
    let mut l = with(None);
    assert_eq!(dollars_without_price(&mut l, false, "m"), Ok(None));
    let mut l = with(Some(1.0));
    assert_eq!(dollars_without_price(&mut l, true, "m"), Ok(None));
    assert_eq!(
        l.cost_budget_usd,
        Some(1.0),
        "a priced model keeps its dollars"
    );
    let mut l = with(Some(0.5));
    let note = dollars_without_price(&mut l, false, "openai:my-model")
        .unwrap()
        .unwrap();
    assert_eq!((l.cost_budget_usd, l.token_budget), (None, 125_000));
    assert!(
        note.contains("`openai:my-model`")
            && note.contains("125000 tokens")
            && note.contains("price-per-mtok"),
        "{note}"
    );
    // A lower token budget stays.
    let mut l = Limits {
        token_budget: 1_000,
        ..with(Some(0.5))
    };
    dollars_without_price(&mut l, false, "m").unwrap();
    assert_eq!(l.token_budget, 1_000);
    assert_eq!(
        dollars_without_price(&mut with(Some(-1.0)), true, "m"),
        Err(CostBudgetError::NotPositive(-1.0))
    );
}

#[test]
fn the_deadline_names_what_it_cancelled() {
    let f = deadline_cancelled("model call", &limits());
    assert_eq!(f.rule, StopRule::Budget);
    assert!(f.reason.contains("model call in flight was cancelled"));
}

#[test]
fn three_failed_calls_in_a_row_fire_model_error() {
    let e = ModelError::Server {
        status: 500,
        message: "down".into(),
    };
    assert_eq!(model_failure(&e, "down", 2), None);
    assert_eq!(
        model_failure(&e, "down", 3).unwrap().rule,
        StopRule::ModelError
    );
}

#[test]
fn a_rejected_request_fires_model_error_at_once() {
    let e = ModelError::Rejected {
        status: 401,
        message: "bad key".into(),
    };
    let f = model_failure(&e, "bad key", 1).unwrap();
    assert!(f.reason.contains("rejected"));
}

#[test]
fn a_hard_denial_ends_only_strict_runs() {
    let f = command_denied(Profile::Strict, "sudo x", "no", Denial::Hard).unwrap();
    assert_eq!(f.rule, StopRule::Constraint);
    assert_eq!(
        command_denied(Profile::Yolo, "sudo x", "no", Denial::Hard),
        None
    );
}

#[test]
fn a_command_off_the_allow_list_is_forgiven_until_the_limit() {
    let at = |count| {
        command_denied(Profile::Strict, "awk x", "no", Denial::OffList { count }).map(|f| f.rule)
    };
    assert_eq!(
        (at(1), at(SOFT_DENIAL_LIMIT - 1), at(SOFT_DENIAL_LIMIT)),
        (None, None, Some(StopRule::Constraint))
    );
}

#[test]
fn done_is_success_only_after_a_passing_verification_of_the_last_change() {
    let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
    assert_eq!(done_verdict(&s, "r").status, TerminalStatus::DonePartial);
    s.test = Some(test(true, ""));
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

#[test]
fn a_world_seen_before_is_a_revisit() {
    let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
    s.file_hashes.insert("a".into(), "A".into());
    s.seen_states.insert(world_fingerprint(&s), 2);
    s.file_hashes.insert("a".into(), "B".into());
    assert_eq!(revisit_of(&s), None);
    s.file_hashes.insert("a".into(), "A".into());
    assert_eq!(revisit_of(&s), Some(2));
}

#[test]
fn the_world_ignores_error_text_but_sees_a_verified_outcome() {
    let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
    let unverified = world_fingerprint(&s);
    s.test = Some(test(false, "x"));
    s.hashes_at_last_verification = Some(s.file_hashes.clone());
    let failed = world_fingerprint(&s);
    assert_ne!(failed, unverified);
    s.test = Some(test(false, "y"));
    assert_eq!(world_fingerprint(&s), failed);
    s.file_hashes.insert("a".into(), "1".into());
    let changed = world_fingerprint(&s);
    s.test = Some(test(true, ""));
    assert_eq!(
        world_fingerprint(&s),
        changed,
        "the outcome was not of these files"
    );
}

#[test]
fn the_third_reply_without_tool_calls_ends_the_step() {
    assert_eq!(no_tool_call(1), NoToolCall::Continue);
    assert_eq!(no_tool_call(2), NoToolCall::Correct);
    assert_eq!(no_tool_call(3), NoToolCall::EndStep);
}

#[test]
fn a_repeated_unchanged_call_is_run_then_nudged_then_ends_the_step() {
    assert_eq!(
        [1, 2, 3].map(repeated_call),
        [
            RepeatedCall::Fresh,
            RepeatedCall::Nudge,
            RepeatedCall::EndStep
        ]
    );
}

#[test]
fn the_third_identical_failing_call_ends_the_step() {
    assert!(!repeated_failure_ends_step(2));
    assert!(repeated_failure_ends_step(3));
}

#[test]
fn the_coder_step_call_cap() {
    let l = Limits {
        coder_step_calls: 5,
        ..limits()
    };
    assert!(!coder_step_cap_reached(4, &l));
    assert!(coder_step_cap_reached(5, &l));
}

#[test]
fn review_asks_for_done_only_when_work_settled() {
    assert_eq!(budget_review(1, true, false), BudgetReview::AskForDone);
    assert_eq!(
        budget_review(1, true, true),
        BudgetReview::Continue { warn: false }
    );
    assert_eq!(
        budget_review(1, false, false),
        BudgetReview::Continue { warn: false }
    );
    assert_eq!(
        budget_review(3, false, false),
        BudgetReview::Continue { warn: true }
    );
    assert_eq!(budget_review(6, true, false), BudgetReview::EndStep);
}

#[test]
fn fingerprint_ignores_counters_but_sees_files_and_tests() {
    let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
    let f0 = state_fingerprint(&s);
    s.total_steps = 9;
    s.loop_counters.planner_to_coder = 3;
    assert_eq!(state_fingerprint(&s), f0);
    s.file_hashes.insert("a".into(), "1".into());
    let f1 = state_fingerprint(&s);
    assert_ne!(f1, f0);
    s.test = Some(test(false, "x"));
    s.hashes_at_last_verification = Some(s.file_hashes.clone());
    assert_ne!(state_fingerprint(&s), f1);
}

#[test]
fn decision_keys_include_query_and_task() {
    let mut d = decision(NodeName::Researcher);
    assert_eq!(decision_key(&d), "researcher:q");
    d.next = NodeName::Coder;
    assert_eq!(decision_key(&d), "coder:t");
    d.next = NodeName::Verifier;
    assert_eq!(decision_key(&d), "verifier");
}

fn coder_step(end: CoderEnd) -> StepRecord {
    StepRecord {
        step: 1,
        node: NodeName::Coder,
        decision: Decision::Code(end),
        reason: String::new(),
        progress: true,
        revisit_of: None,
        only_test_edits: false,
        redirect: None,
        refused_empty_done: false,
        off_list_denials: 0,
    }
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
