//! The verifier's decisions, asked after every verification ([`AFTER_VERIFY`]): undo a coder change
//! that made the tests worse ([`Regression`]), end the run when the coder's fix passes
//! ([`FixedAndDone`]), send a failing opening verification to the coder ([`OpeningTask`]), and send
//! a change that still fails back to the coder ([`FollowUp`]). The rules are in
//! [`crate::graph::rules::endings`] and [`crate::graph::rules::tasks`]; the verifier does what the
//! first verdict says (an undo that cannot be done whole asks the next guard).

use super::Row;
use crate::graph::memory::state::{Ending, RunState, TestResult};
use crate::graph::rules::endings::{fixed_and_done, regression};
use crate::graph::rules::tasks::{follow_up_task, opening_task};

/// Where these guards are asked.
pub const AFTER_VERIFY_CHECKED: &str = "verifier, after a verification";

/// What the verifier's guards see: the run with its new result, the result before it, and
/// whether the coder's latest change could be undone (it was made through the file tools).
#[derive(Debug, Clone, Copy)]
pub struct VerifyFacts<'a> {
    pub state: &'a RunState,
    pub before: Option<&'a TestResult>,
    pub undoable: bool,
}

/// What the verifier does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Nothing to say: the next guard is asked.
    Continue,
    /// Undo the coder's change, which made the tests worse (`worse`: the new key line).
    Undo { worse: String },
    /// The run ends in success here.
    Succeed(Ending),
    /// The coder gets `task` now (the opening verification failed).
    Coder { task: String },
    /// The coder gets `task` after the planner's stop rules (no planner call).
    FollowUp { task: String },
}

/// A guard of the verifier's result.
pub trait VerifyGuard: Sync {
    /// Its row in the stop-rule table.
    fn row(&self) -> Row;
    /// What the verifier does next on these facts.
    fn check(&self, facts: &VerifyFacts<'_>) -> Next;
}

/// More failing tests than before, or code that no longer loads: the change is undone.
pub struct Regression;

impl VerifyGuard for Regression {
    fn row(&self) -> Row {
        Row::without_rule(
            "(undo)",
            "verifier, after a verification of a coder change that failed",
            "more failing tests than before, or code that no longer loads (`regression`)",
            "— (the change is undone; the coder gets the earlier failure and why)",
        )
    }

    fn check(&self, f: &VerifyFacts<'_>) -> Next {
        match &f.state.test {
            Some(t) if f.undoable && regression(f.before, t) => Next::Undo {
                worse: t.report.key_line.clone(),
            },
            _ => Next::Continue,
        }
    }
}

/// The coder's fix passes and it called `done`: success without a planner call.
pub struct FixedAndDone;

impl VerifyGuard for FixedAndDone {
    fn row(&self) -> Row {
        Row::without_rule(
            "none (fixed and done)",
            "verifier, after a verification that passed",
            "a verification failed earlier, the coder's latest step changed files and called `done`, and they pass (`fixed_and_done`)",
            "`done_success` (no planner call)",
        )
    }

    fn check(&self, f: &VerifyFacts<'_>) -> Next {
        let passed = f.state.test.as_ref().is_some_and(|t| t.passed);
        match fixed_and_done(f.state).filter(|_| passed) {
            Some(ending) => Next::Succeed(ending),
            None => Next::Continue,
        }
    }
}

/// A failing opening verification is the coder's task.
pub struct OpeningTask;

impl VerifyGuard for OpeningTask {
    fn row(&self) -> Row {
        Row::without_rule(
            "(opening task)",
            "verifier, after a verification",
            "the run opened with the verifier and the tests fail as tests do (`opening_task`)",
            "— (the failure goes to the coder as its task, with no planner call)",
        )
    }

    fn check(&self, f: &VerifyFacts<'_>) -> Next {
        match opening_task(f.state) {
            Some(task) => Next::Coder { task },
            None => Next::Continue,
        }
    }
}

/// A coder change that still fails goes back to the coder.
pub struct FollowUp;

impl VerifyGuard for FollowUp {
    fn row(&self) -> Row {
        Row::without_rule(
            "(follow-up)",
            "verifier, after a verification (the planner's stop rules judge the hop first)",
            "the coder's step changed the code, or a repair step ended at its call cap with statements still to offer, and the verification still fails as tests do (`follow_up_task`)",
            "— (the new failure goes to the coder with no planner call)",
        )
    }

    fn check(&self, f: &VerifyFacts<'_>) -> Next {
        match follow_up_task(f.state) {
            Some(task) => Next::FollowUp { task },
            None => Next::Continue,
        }
    }
}

/// The guards asked after a verification, in order.
pub const AFTER_VERIFY: &[&dyn VerifyGuard] =
    &[&Regression, &FixedAndDone, &OpeningTask, &FollowUp];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::facts::testing::changed_and_verified;
    use crate::graph::memory::failure::FailureReport;
    use crate::graph::memory::testing::{run, step, verification};
    use kotef_core::NodeName;

    fn first(state: &RunState) -> Next {
        let facts = VerifyFacts {
            state,
            before: None,
            undoable: false,
        };
        AFTER_VERIFY
            .iter()
            .map(|g| g.check(&facts))
            .find(|n| *n != Next::Continue)
            .unwrap_or(Next::Continue)
    }

    #[test]
    fn a_pass_the_coder_did_not_call_done_on_leaves_the_end_to_the_planner() {
        assert_eq!(first(&changed_and_verified(true)), Next::Continue);
    }

    fn failing(summary: &str, after_code_change: bool) -> TestResult {
        TestResult {
            summary: summary.into(),
            after_code_change,
            report: FailureReport::from_summary(summary),
            ..verification(false, summary)
        }
    }

    /// The first verdict after a change that made one failing test two.
    fn after_a_worse_change(undoable: bool) -> Next {
        let before = failing("FAILED (failures=1); AssertionError: None != -1", false);
        let state = run()
            .step(step(NodeName::Coder).with_progress())
            .tested(failing(
                "FAILED (failures=2); AssertionError: None != 1",
                true,
            ))
            .build();
        let facts = VerifyFacts {
            state: &state,
            before: Some(&before),
            undoable,
        };
        AFTER_VERIFY
            .iter()
            .map(|g| g.check(&facts))
            .find(|n| *n != Next::Continue)
            .unwrap_or(Next::Continue)
    }

    #[test]
    fn a_change_that_fails_more_tests_is_undone() {
        assert_eq!(
            after_a_worse_change(true),
            Next::Undo {
                worse: "FAILED (failures=2); AssertionError: None != 1".into()
            }
        );
    }

    #[test]
    fn a_worse_change_that_cannot_be_undone_stands_and_goes_back_to_the_coder() {
        assert!(
            matches!(after_a_worse_change(false), Next::FollowUp { .. }),
            "{:?}",
            after_a_worse_change(false)
        );
    }
}
