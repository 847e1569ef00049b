//! `no_progress` (outside the repository): the tests fail for a cause outside the repository
//! (a host name that does not resolve, a file under `/etc`; `TestResult::outside_cause`)
//! after the coder had a fair try. Whatever the coder changes, that cause stays, so the run
//! stops saying what a maintainer has to provide.

use super::{
    BeforePlanner, Facts, Fires, Row, StopGuard, BEFORE_PLANNER_CHECKED, FAIR_TRY_CODER_STEPS,
};
use crate::graph::memory::state::Fired;
use kotef_core::StopRule;

pub struct OutsideRepository;

impl StopGuard<BeforePlanner> for OutsideRepository {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::NoProgress),
            variant: "outside the repository",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: format!("the tests fail for a cause outside the repository (a host that does not resolve, a refused connection, a file outside the workspace) after {FAIR_TRY_CODER_STEPS} coder steps"),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let state = f.state;
        let t = state.test.as_ref().filter(|t| !t.passed)?;
        let cause = t.outside_cause.as_deref()?;
        let coder_steps = state.coder_steps().count();
        if coder_steps < FAIR_TRY_CODER_STEPS {
            return None;
        }
        Some(Fired {
            rule: StopRule::NoProgress,
            reason: format!(
                "The tests need something outside the repository: {cause}. {coder_steps} coder steps could not change that, and no change to the code can. {}. Provide it where the tests run, or change the test.",
                crate::graph::prompt::context::failure_sentence(&t.command, &t.report.key_line)
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::facts::testing::push_step;
    use crate::graph::memory::facts::testing::test_result;
    use crate::graph::memory::state::TestResult;
    use crate::graph::memory::testing::run;
    use kotef_core::Limits;
    use kotef_core::{NodeName, Profile};

    fn outside_after(coder_steps: usize) -> Option<Fired> {
        let mut s = run().build();
        s.test = Some(TestResult {
            outside_cause: Some("a network host name that does not resolve here".into()),
            ..test_result("cargo test", false, "AssertionError: 1 != 2")
        });
        for _ in 0..coder_steps {
            push_step(&mut s, NodeName::Coder, false);
        }
        OutsideRepository.check(&Facts::before_planner(
            &s,
            &Limits::for_profile(Profile::Strict),
        ))
    }

    #[test]
    fn a_failure_outside_the_repository_stops_the_run_after_a_fair_try() {
        assert_eq!(
            outside_after(2),
            Some(Fired {
                rule: StopRule::NoProgress,
                reason: "The tests need something outside the repository: a network host name that does not resolve here. 2 coder steps could not change that, and no change to the code can. `cargo test` still fails with: AssertionError: 1 != 2. Provide it where the tests run, or change the test.".into(),
            })
        );
    }

    #[test]
    fn a_failure_outside_the_repository_gets_a_fair_try_first() {
        assert_eq!(outside_after(1), None);
    }
}
