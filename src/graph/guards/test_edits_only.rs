//! `planner_to_coder` (test edits only): in coder steps since the coder's last progress, its
//! only moves were changes to the protected tests, each refused. The coder reads the test as
//! the thing that is wrong; the run stops saying the test may be wrong or contradict itself
//! — the coder's own verdict, for a maintainer to check.

use super::{BeforePlanner, Facts, Fires, Row, StopGuard, BEFORE_PLANNER_CHECKED};
use crate::graph::memory::state::Fired;
use crate::graph::prompt::context::{protected_tests, still_failing};
use kotef_core::StopRule;

/// Coder steps without progress whose only moves were refused changes to the protected tests
/// before the run stops.
pub const TEST_EDIT_LIMIT: u32 = 2;

pub struct TestEditsOnly;

impl StopGuard<BeforePlanner> for TestEditsOnly {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::PlannerToCoder),
            variant: "test edits only",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: format!("{TEST_EDIT_LIMIT} coder steps without progress whose only moves were refused changes to the protected tests"),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let state = f.state;
        let steps = state.test_edit_steps();
        if steps < TEST_EDIT_LIMIT {
            return None;
        }
        let tests = protected_tests(
            state.test_command.as_deref(),
            &state.goal,
            state.file_hashes.keys(),
        );
        let named: Vec<String> = tests.iter().map(|t| format!("`{t}`")).collect();
        let named = if named.is_empty() {
            "the tests".to_string()
        } else {
            named.join(" and ")
        };
        Some(Fired {
            rule: StopRule::PlannerToCoder,
            reason: format!(
                "Loop detected: in {steps} coder steps without progress the coder only tried to change {named}, which the test command runs and which states what the code must do. The test may be wrong or contradict itself.{}",
                still_failing(state)
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::facts::testing::push_step;
    use crate::graph::memory::facts::testing::test_result;
    use crate::graph::memory::testing::run;
    use kotef_core::Limits;
    use kotef_core::{NodeName, Profile};

    fn after_test_edit_steps(n: u32) -> Option<Fired> {
        let mut s = run().build();
        s.test_command = Some("python3 -m unittest -q test_version".into());
        s.file_hashes = [("test_version.py", "a"), ("version.py", "b")]
            .map(|(p, h)| (p.to_string(), h.to_string()))
            .into();
        s.test = Some(test_result(
            "python3 -m unittest -q test_version",
            false,
            "AssertionError: 1 != 2",
        ));
        for _ in 0..n {
            push_step(&mut s, NodeName::Coder, false).only_test_edits = true;
        }
        TestEditsOnly.check(&Facts::before_planner(
            &s,
            &Limits::for_profile(Profile::Strict),
        ))
    }

    #[test]
    fn two_steps_of_only_refused_test_edits_stop_the_run_naming_the_test() {
        let Some(f) = after_test_edit_steps(TEST_EDIT_LIMIT) else {
            panic!("no stop");
        };
        assert_eq!(f.rule, StopRule::PlannerToCoder);
        assert!(
            f.reason.starts_with("Loop detected: in 2 coder steps without progress the coder only tried to change `test_version.py`"),
            "{}",
            f.reason
        );
        assert!(
            f.reason
                .contains("still fails with: AssertionError: 1 != 2"),
            "{}",
            f.reason
        );
    }

    #[test]
    fn one_step_of_refused_test_edits_is_not_yet_a_loop() {
        assert_eq!(after_test_edit_steps(TEST_EDIT_LIMIT - 1), None);
    }
}
