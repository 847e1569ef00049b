//! Stop rules and progress heuristics as pure functions over data, each with its contract name.
//!
//! The planner step calls [`pre_decision`] before asking the model (rules that need no new
//! decision: fix attempts, no progress, model failures) and [`clamp_decision`] after (edge
//! limits and exact repeats). Budgets and the global step cap are checked by the graph loop
//! before every step with [`budget_stop`] and [`step_cap_reached`].

use super::state::{PlannerDecision, ResearchState, RunState, TestResult};
use kotef_core::{Edge, Limits, NodeName, StopRule};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// A fired rule and its one-sentence reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Fired {
    pub rule: StopRule,
    pub reason: String,
}

fn fired(rule: StopRule, reason: String) -> Option<Fired> {
    Some(Fired { rule, reason })
}

/// Consecutive failed model calls after which `model_error` fires.
pub const MODEL_FAILURE_LIMIT: u32 = 3;
/// Identical planner decisions on an identical state after which the edge's rule fires.
pub const EXACT_REPEAT_LIMIT: u32 = 3;
/// Consecutive coder steps without a net change after which another coder hop is refused.
pub const CODER_NOOP_LIMIT: u32 = 3;

/// Research progress: the researcher reached the model (not a repeated query answered from
/// memory) and came back with results never seen before in this run.
pub fn research_progress(before: &ResearchState, after: &ResearchState) -> bool {
    after.attempts > before.attempts
        && after.results_hash.is_some()
        && after.results_hash != before.results_hash
        && !before
            .seen_hashes
            .contains(after.results_hash.as_deref().unwrap_or_default())
}

/// File progress: the set of (path, content hash) changed — not just the number of files.
pub fn files_progress(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> bool {
    before != after
}

/// Test progress: a first result, a pass/fail flip, or a different failing command or error
/// signature.
pub fn test_progress(before: Option<&TestResult>, after: Option<&TestResult>) -> bool {
    match (before, after) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(b), Some(a)) => {
            a.passed != b.passed
                || (!a.passed && (a.command != b.command || a.error_signature != b.error_signature))
        }
    }
}

/// A fingerprint of everything a planner decision should depend on: file contents, the last
/// test result and what research found. Counters and step numbers are left out on purpose,
/// so the same situation gives the same fingerprint however often it comes back.
pub fn state_fingerprint(state: &RunState) -> String {
    let mut h = Sha256::new();
    for (p, c) in &state.file_hashes {
        h.update(p.as_bytes());
        h.update([0]);
        h.update(c.as_bytes());
        h.update([1]);
    }
    if let Some(t) = &state.test {
        h.update(t.command.as_bytes());
        h.update([t.passed as u8]);
        h.update(t.error_signature.as_deref().unwrap_or_default().as_bytes());
    }
    h.update([2]);
    h.update(
        state
            .research
            .results_hash
            .as_deref()
            .unwrap_or_default()
            .as_bytes(),
    );
    hex::encode(&h.finalize()[..12])
}

/// The identity of a decision for the exact-repeat rule: where to and with what.
pub fn decision_key(d: &PlannerDecision) -> String {
    match d.next {
        NodeName::Researcher => format!("researcher:{}", d.query.as_deref().unwrap_or("").trim()),
        NodeName::Coder => format!("coder:{}", d.task.as_deref().unwrap_or("").trim()),
        other => other.as_str().to_string(),
    }
}

/// Rules checked at the start of a planner step, before the model is asked.
pub fn pre_decision(state: &RunState, limits: &Limits) -> Option<Fired> {
    if state.consecutive_model_failures >= MODEL_FAILURE_LIMIT {
        return fired(
            StopRule::ModelError,
            format!(
                "The model failed {} calls in a row, so the run stopped instead of waiting on it.",
                state.consecutive_model_failures
            ),
        );
    }
    if let Some(t) = &state.test {
        if !t.passed && state.failures.attempts >= limits.fix_attempts {
            return fired(
                StopRule::FixAttempts,
                format!(
                    "bounded_attempts_exceeded: verification still fails (`{}`) after {} fix attempts, the {} profile's limit.",
                    t.command,
                    state.failures.attempts,
                    state.profile.as_str()
                ),
            );
        }
    }
    let idle = state.total_steps.saturating_sub(state.last_progress_step);
    if idle >= limits.no_progress_steps {
        return fired(
            StopRule::NoProgress,
            format!(
                "{idle} steps passed without progress (no new files, test results or research), the limit is {}.",
                limits.no_progress_steps
            ),
        );
    }
    None
}

/// Rules that judge the planner's proposed hop: edge loop limits, exact repeats on an
/// identical state, and a coder that keeps changing nothing. `counters_after` are the loop
/// counters with this hop already counted; `repeats` how often this exact decision has now
/// been made on this exact state.
pub fn clamp_decision(
    decision: &PlannerDecision,
    counters_after: &kotef_core::LoopCounters,
    repeats: u32,
    coder_noop_count: u32,
    limits: &Limits,
) -> Option<Fired> {
    let edge = decision.next.edge()?;
    let rule = StopRule::for_edge(edge);
    let hops = counters_after.get(edge);
    if repeats >= EXACT_REPEAT_LIMIT {
        return fired(
            rule,
            format!(
                "Loop detected: the planner chose {} with the same request {repeats} times on an unchanged state.",
                edge.node()
            ),
        );
    }
    if hops > limits.edge_limit(edge) {
        return fired(
            rule,
            format!(
                "Loop detected: planner→{} {hops} times without progress, the limit is {}.",
                edge.node(),
                limits.edge_limit(edge)
            ),
        );
    }
    if edge == Edge::Coder && coder_noop_count >= CODER_NOOP_LIMIT {
        return fired(
            rule,
            format!(
                "Loop detected: the coder made no net change in {coder_noop_count} steps in a row, so it is not asked again."
            ),
        );
    }
    None
}

/// The token and wall-clock budgets.
pub fn budget_stop(tokens_used: u64, elapsed_s: u64, limits: &Limits) -> Option<Fired> {
    if tokens_used >= limits.token_budget {
        return fired(
            StopRule::Budget,
            format!(
                "The token budget ran out: {tokens_used} of {} tokens used.",
                limits.token_budget
            ),
        );
    }
    if elapsed_s >= limits.time_budget_s {
        return fired(
            StopRule::Budget,
            format!(
                "The time budget ran out: {elapsed_s} s of {} s used.",
                limits.time_budget_s
            ),
        );
    }
    None
}

/// Whether the next step would be the last one allowed: that step is kept for the snitch, so a
/// run never exceeds `max_steps`.
pub fn step_cap_reached(total_steps: u32, limits: &Limits) -> Option<Fired> {
    if total_steps + 1 >= limits.max_steps {
        return fired(
            StopRule::MaxSteps,
            format!(
                "The global cap of {} steps was reached before any other rule fired.",
                limits.max_steps
            ),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::{LoopCounters, Profile};

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
        }
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
    fn test_progress_on_flip_or_new_signature() {
        assert!(test_progress(None, Some(&test(false, "x"))));
        assert!(!test_progress(
            Some(&test(false, "x")),
            Some(&test(false, "x"))
        ));
        assert!(test_progress(
            Some(&test(false, "x")),
            Some(&test(false, "y"))
        ));
        assert!(test_progress(
            Some(&test(false, "x")),
            Some(&test(true, ""))
        ));
        assert!(!test_progress(Some(&test(true, "")), Some(&test(true, ""))));
        assert!(!test_progress(Some(&test(true, "")), None));
    }

    #[test]
    fn fix_attempts_fire_at_the_profile_limit() {
        let mut s = RunState::new("g", Profile::Yolo, BTreeMap::new());
        let l = Limits::for_profile(Profile::Yolo);
        s.test = Some(test(false, "x"));
        s.failures.attempts = 2;
        assert_eq!(pre_decision(&s, &l), None);
        s.failures.attempts = 3;
        let f = pre_decision(&s, &l).unwrap();
        assert_eq!(f.rule, StopRule::FixAttempts);
        assert!(f.reason.contains("bounded_attempts_exceeded"));
        // A passing last verification never fires it.
        s.test = Some(test(true, ""));
        assert_eq!(pre_decision(&s, &l), None);
    }

    #[test]
    fn no_progress_counts_steps_of_any_shape() {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        s.total_steps = 14;
        s.last_progress_step = 5;
        assert_eq!(pre_decision(&s, &limits()), None);
        s.total_steps = 15;
        assert_eq!(
            pre_decision(&s, &limits()).unwrap().rule,
            StopRule::NoProgress
        );
    }

    #[test]
    fn model_failures_fire_model_error() {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        s.consecutive_model_failures = MODEL_FAILURE_LIMIT;
        assert_eq!(
            pre_decision(&s, &limits()).unwrap().rule,
            StopRule::ModelError
        );
    }

    #[test]
    fn edge_limits_fire_after_the_allowed_hops() {
        let l = limits();
        let mut c = LoopCounters {
            planner_to_researcher: 5,
            ..Default::default()
        };
        assert_eq!(
            clamp_decision(&decision(NodeName::Researcher), &c, 1, 0, &l),
            None
        );
        c.planner_to_researcher = 6;
        assert_eq!(
            clamp_decision(&decision(NodeName::Researcher), &c, 1, 0, &l)
                .unwrap()
                .rule,
            StopRule::PlannerToResearcher
        );
        c.planner_to_verifier = 4;
        assert_eq!(
            clamp_decision(&decision(NodeName::Verifier), &c, 1, 0, &l)
                .unwrap()
                .rule,
            StopRule::PlannerToVerifier
        );
        c.planner_to_coder = 6;
        assert_eq!(
            clamp_decision(&decision(NodeName::Coder), &c, 1, 0, &l)
                .unwrap()
                .rule,
            StopRule::PlannerToCoder
        );
        // done and snitch have no edge counter.
        assert_eq!(
            clamp_decision(&decision(NodeName::Done), &c, 9, 9, &l),
            None
        );
    }

    #[test]
    fn exact_repeats_fire_at_once() {
        let l = limits();
        let c = LoopCounters {
            planner_to_verifier: 1,
            ..Default::default()
        };
        assert_eq!(
            clamp_decision(&decision(NodeName::Verifier), &c, 2, 0, &l),
            None
        );
        let f = clamp_decision(&decision(NodeName::Verifier), &c, 3, 0, &l).unwrap();
        assert_eq!(f.rule, StopRule::PlannerToVerifier);
        assert!(f.reason.contains("same request"));
    }

    #[test]
    fn coder_noop_streak_refuses_more_coder_hops() {
        let l = limits();
        let c = LoopCounters {
            planner_to_coder: 1,
            ..Default::default()
        };
        assert_eq!(
            clamp_decision(&decision(NodeName::Coder), &c, 1, 2, &l),
            None
        );
        assert_eq!(
            clamp_decision(&decision(NodeName::Coder), &c, 1, 3, &l)
                .unwrap()
                .rule,
            StopRule::PlannerToCoder
        );
        assert_eq!(
            clamp_decision(&decision(NodeName::Verifier), &c, 1, 3, &l),
            None
        );
    }

    #[test]
    fn budgets_and_step_cap() {
        let l = Limits {
            token_budget: 100,
            time_budget_s: 10,
            max_steps: 5,
            ..limits()
        };
        assert_eq!(budget_stop(99, 9, &l), None);
        assert_eq!(budget_stop(100, 0, &l).unwrap().rule, StopRule::Budget);
        assert_eq!(budget_stop(0, 10, &l).unwrap().rule, StopRule::Budget);
        assert_eq!(step_cap_reached(3, &l), None);
        assert_eq!(step_cap_reached(4, &l).unwrap().rule, StopRule::MaxSteps);
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
}
