//! What the run's recorded facts say, derived when asked. The streaks the guards read — failed
//! model calls in a row, coder steps without progress, coder steps that went back to an
//! earlier state, steps since the last progress, coder steps whose only moves were refused
//! test edits — are computed from the call list and the timeline the graph loop writes, never
//! kept as counters of their own that some node has to remember to reset.

use crate::graph::memory::state::{RunState, StepRecord};
use kotef_core::NodeName;

/// A count of records as the `u32` the rules compare with their limits.
fn count<T>(records: impl Iterator<Item = T>) -> u32 {
    u32::try_from(records.count()).unwrap_or(u32::MAX)
}

impl RunState {
    /// The coder's steps, oldest first.
    pub fn coder_steps(&self) -> impl DoubleEndedIterator<Item = &StepRecord> {
        self.timeline.iter().filter(|r| r.node == NodeName::Coder)
    }

    /// Model calls that failed in a row, the latest among them (0 after a call that worked).
    pub fn failed_calls_in_a_row(&self) -> u32 {
        count(self.calls.iter().rev().take_while(|c| c.failed))
    }

    /// Coder steps in a row without progress (a step that went back to an earlier state is
    /// none; steps of other nodes in between neither count nor break the row).
    pub fn coder_steps_without_progress(&self) -> u32 {
        count(self.coder_steps_since_progress())
    }

    /// Of [`RunState::coder_steps_without_progress`], those that explored nothing: a repair
    /// step that tested changes new to the run, with line offers left
    /// ([`StepRecord::explored`]), is a search under way, not a coder going round.
    pub fn idle_coder_steps(&self) -> u32 {
        count(self.coder_steps_since_progress().filter(|r| !r.explored))
    }

    /// The coder's steps since its last progress, latest first.
    fn coder_steps_since_progress(&self) -> impl Iterator<Item = &StepRecord> {
        self.coder_steps().rev().take_while(|r| !r.progress)
    }

    /// The steps since the last step with progress (of any node).
    fn since_progress(&self) -> impl Iterator<Item = &StepRecord> {
        self.timeline.iter().rev().take_while(|r| !r.progress)
    }

    /// Coder steps since the last progress that returned the workspace to an earlier state,
    /// and the step the latest of them returned to.
    pub fn coder_revisits(&self) -> (u32, Option<u32>) {
        let revisits = || {
            self.since_progress()
                .filter(|r| r.node == NodeName::Coder)
                .filter_map(|r| r.revisit_of)
        };
        (count(revisits()), revisits().next())
    }

    /// Coder steps since the coder's last progress whose only moves were changes to the
    /// protected tests (each refused).
    pub fn test_edit_steps(&self) -> u32 {
        count(
            self.coder_steps()
                .rev()
                .take_while(|r| !r.progress)
                .filter(|r| r.only_test_edits),
        )
    }

    /// Steps since the last step with progress.
    pub fn steps_without_progress(&self) -> u32 {
        self.total_steps.saturating_sub(self.last_progress_step)
    }

    /// The run changed files and the verification after the latest change passed.
    pub fn verified_success(&self) -> bool {
        !self.files_changed().is_empty() && self.verified_after_last_change()
    }

    /// Give-ups refused so far because the coder had not had a fair try.
    pub fn refused_give_ups(&self) -> u32 {
        count(
            self.timeline.iter().filter(|r| {
                r.redirect == Some(crate::graph::memory::state::Redirect::GiveUpRefused)
            }),
        )
    }

    /// Whether a re-verification of the failure with `signature` was sent to the coder before.
    pub fn redirected(&self, signature: &str) -> bool {
        self.timeline.iter().any(|r| {
            matches!(&r.redirect, Some(crate::graph::memory::state::Redirect::Reverify { signature: s }) if s == signature)
        })
    }

    /// Coder `done`s refused so far because nothing had changed while the tests failed.
    pub fn refused_empty_dones(&self) -> u32 {
        count(self.timeline.iter().filter(|r| r.refused_empty_done))
    }

    /// Commands denied so far as merely off the strict allow-list.
    pub fn off_list_denials(&self) -> u32 {
        self.timeline.iter().map(|r| r.off_list_denials).sum()
    }

    /// The planner's `done` calls refused so far (nothing changed or verified yet).
    pub fn refused_dones(&self) -> u32 {
        count(
            self.timeline
                .iter()
                .filter(|r| r.decision == crate::graph::memory::state::Decision::DoneRefused),
        )
    }
}

/// Timelines for tests: steps as the graph loop records them.
#[cfg(test)]
pub mod testing {
    use crate::graph::memory::state::{RunState, StepRecord, TestResult};
    use crate::graph::memory::testing::{run, step};
    use kotef_core::NodeName;

    /// A verification of `command` that `passed` (exit 0) or failed as tests do (exit 1,
    /// signature `e`) with `summary`, after a code change.
    pub fn test_result(command: &str, passed: bool, summary: &str) -> TestResult {
        TestResult {
            command: command.into(),
            passed,
            exit_code: Some(if passed { 0 } else { 1 }),
            kind: (!passed).then_some(kotef_tools::FailureKind::TestFailure),
            summary: summary.into(),
            error_signature: (!passed).then(|| "e".to_string()),
            same_error_count: 0,
            step: 1,
            after_code_change: true,
            outside_cause: None,
            timed_out: false,
            report: crate::graph::memory::failure::FailureReport::from_summary(summary),
        }
    }

    /// A strict run that changed `a.txt` and then verified exactly that state with `passed`
    /// (`cargo test`, signature `e`).
    pub fn changed_and_verified(passed: bool) -> RunState {
        let mut s = run()
            .files(&[("a.txt", "h0")])
            .tested(TestResult {
                after_code_change: false,
                ..test_result("cargo test", passed, "")
            })
            .build();
        s.file_hashes.insert("a.txt".into(), "h1".into());
        s.hashes_at_last_verification = Some(s.file_hashes.clone());
        s
    }

    /// Appends a step of `node` with `progress`, as the graph loop does after it ran.
    pub fn push_step(s: &mut RunState, node: NodeName, progress: bool) -> &mut StepRecord {
        s.total_steps += 1;
        if progress {
            s.last_progress_step = s.total_steps;
        }
        let record = step(node).numbered(s.total_steps);
        s.timeline.push(StepRecord { progress, ..record });
        let last = s.timeline.len() - 1;
        &mut s.timeline[last]
    }
}

#[cfg(test)]
mod tests {
    use super::testing::push_step;
    use super::*;
    use crate::graph::memory::state::CallRecord;

    fn state() -> RunState {
        crate::graph::memory::testing::run().build()
    }

    fn call(failed: bool) -> CallRecord {
        CallRecord {
            failed,
            ..CallRecord::new(NodeName::Coder)
        }
    }

    #[test]
    fn failed_calls_are_counted_back_to_the_last_one_that_worked() {
        let mut s = state();
        for failed in [true, false, true, true] {
            s.record_call(call(failed));
        }
        assert_eq!(s.failed_calls_in_a_row(), 2);
        s.record_call(call(false));
        assert_eq!(s.failed_calls_in_a_row(), 0);
    }

    #[test]
    fn coder_steps_without_progress_ignore_the_steps_of_other_nodes() {
        let mut s = state();
        push_step(&mut s, NodeName::Coder, true);
        push_step(&mut s, NodeName::Coder, false);
        push_step(&mut s, NodeName::Verifier, true);
        push_step(&mut s, NodeName::Coder, false);
        assert_eq!(s.coder_steps_without_progress(), 2);
        push_step(&mut s, NodeName::Coder, true);
        assert_eq!(s.coder_steps_without_progress(), 0);
    }

    #[test]
    fn coder_steps_that_explored_are_without_progress_but_not_idle() {
        let mut s = state();
        push_step(&mut s, NodeName::Coder, false).explored = true;
        push_step(&mut s, NodeName::Coder, false);
        push_step(&mut s, NodeName::Coder, false).explored = true;
        assert_eq!(
            (s.coder_steps_without_progress(), s.idle_coder_steps()),
            (3, 1)
        );
    }

    #[test]
    fn revisits_count_since_the_last_progress_of_any_node() {
        let mut s = state();
        push_step(&mut s, NodeName::Coder, false).revisit_of = Some(2);
        push_step(&mut s, NodeName::Verifier, true);
        push_step(&mut s, NodeName::Coder, false).revisit_of = Some(3);
        push_step(&mut s, NodeName::Verifier, false).revisit_of = Some(1);
        push_step(&mut s, NodeName::Coder, false).revisit_of = Some(6);
        assert_eq!(s.coder_revisits(), (2, Some(6)));
    }

    #[test]
    fn refused_test_edits_count_until_the_coder_makes_progress() {
        let mut s = state();
        push_step(&mut s, NodeName::Coder, false).only_test_edits = true;
        push_step(&mut s, NodeName::Coder, true);
        push_step(&mut s, NodeName::Coder, false).only_test_edits = true;
        push_step(&mut s, NodeName::Coder, false);
        push_step(&mut s, NodeName::Coder, false).only_test_edits = true;
        assert_eq!(s.test_edit_steps(), 2);
    }

    #[test]
    fn steps_without_progress_run_from_the_last_progress() {
        let mut s = state();
        push_step(&mut s, NodeName::Coder, true);
        push_step(&mut s, NodeName::Planner, false);
        push_step(&mut s, NodeName::Verifier, false);
        assert_eq!(s.steps_without_progress(), 2);
    }
}
