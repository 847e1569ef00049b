//! Tests of progress and fingerprints (`progress`).

#![cfg(test)]

use crate::graph::memory::progress::*;
use crate::graph::memory::state::{PlannerDecision, ResearchState, TestResult};
use crate::graph::memory::testing::{run, verification};
use kotef_core::NodeName;
use std::collections::BTreeMap;

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
    assert!(verification_progress(
        None,
        &verification(false, "x"),
        false
    ));
}

#[test]
fn new_error_text_on_the_same_files_is_noise() {
    assert!(!same_files(
        verification(false, "at 10:01:02 pid 4242"),
        verification(false, "at 10:01:09 pid 4250")
    ));
}

/// Whether a verification after `before` on the same files is progress.
fn same_files(before: TestResult, after: TestResult) -> bool {
    verification_progress(Some(&before), &after, false)
}

#[test]
fn a_pass_fail_flip_is_progress() {
    assert!(same_files(verification(false, "x"), verification(true, "")));
    assert!(!same_files(verification(true, ""), verification(true, "")));
}

#[test]
fn a_verification_of_changed_files_is_progress() {
    assert!(verification_progress(
        Some(&verification(false, "x")),
        &verification(false, "x"),
        true
    ));
}

#[test]
fn a_world_seen_before_is_a_revisit() {
    let mut s = run().build();
    s.file_hashes.insert("a".into(), "A".into());
    s.seen_states.insert(world_fingerprint(&s), 2);
    s.file_hashes.insert("a".into(), "B".into());
    assert_eq!(revisit_of(&s), None);
    s.file_hashes.insert("a".into(), "A".into());
    assert_eq!(revisit_of(&s), Some(2));
}

#[test]
fn the_world_ignores_error_text_but_sees_a_verified_outcome() {
    let mut s = run().build();
    let unverified = world_fingerprint(&s);
    s.test = Some(verification(false, "x"));
    s.hashes_at_last_verification = Some(s.file_hashes.clone());
    let failed = world_fingerprint(&s);
    assert_ne!(failed, unverified);
    s.test = Some(verification(false, "y"));
    assert_eq!(world_fingerprint(&s), failed);
    s.file_hashes.insert("a".into(), "1".into());
    let changed = world_fingerprint(&s);
    s.test = Some(verification(true, ""));
    assert_eq!(
        world_fingerprint(&s),
        changed,
        "the outcome was not of these files"
    );
}

#[test]
fn fingerprint_ignores_counters_but_sees_files_and_tests() {
    let mut s = run().build();
    let f0 = state_fingerprint(&s);
    s.total_steps = 9;
    s.loop_counters.planner_to_coder = 3;
    assert_eq!(state_fingerprint(&s), f0);
    s.file_hashes.insert("a".into(), "1".into());
    let f1 = state_fingerprint(&s);
    assert_ne!(f1, f0);
    s.test = Some(verification(false, "x"));
    s.hashes_at_last_verification = Some(s.file_hashes.clone());
    assert_ne!(state_fingerprint(&s), f1);
}

#[test]
fn changes_line_attempts_ruled_out_change_the_state_but_not_the_world() {
    let mut s = run().build();
    let (state, world) = (state_fingerprint(&s), world_fingerprint(&s));
    let mut memory = crate::graph::memory::line_offers::LineMemory::new("pytest");
    memory.tested.insert("calc.py: a - b".into());
    s.lines = Some(memory);
    assert_ne!(state_fingerprint(&s), state);
    assert_eq!(world_fingerprint(&s), world);
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
