//! `planner_to_coder` (no-op coder): the coder made no progress in several steps in a row.
//! A repair step that tested changes new to the run with line offers left is a search under
//! way (new test results, the seed's progress), so it counts towards a longer bound only
//! ([`CODER_EXPLORE_LIMIT`]).
//! Checked before the planner is asked ([`CoderNoop`]): whatever it would choose next, the
//! run has shown it cannot change the code towards the goal. (A check of the same count on a
//! proposed hop to the coder could never fire: this one ends the run first, in the same
//! planner step.)

use super::{BeforePlanner, Facts, Fires, Row, StopGuard, BEFORE_PLANNER_CHECKED};
use crate::graph::memory::state::Fired;
use crate::graph::prompt::context::still_failing;
use kotef_core::StopRule;

/// Consecutive coder steps without progress after which another coder hop is refused.
pub const CODER_NOOP_LIMIT: u32 = 3;

/// Consecutive coder steps without progress, exploring or not, after which another coder hop
/// is refused. In held-out run 41 two tasks ended after three repair steps that each tested
/// new line attempts (48 calls apiece), with 36 s and 102 s of their budget left; the line
/// offers are finite and made once per run, and this bounds them as well.
pub const CODER_EXPLORE_LIMIT: u32 = 6;

pub struct CoderNoop;

impl StopGuard<BeforePlanner> for CoderNoop {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::PlannerToCoder),
            variant: "no-op coder",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: format!(
                "{CODER_NOOP_LIMIT} coder steps in a row without progress \
                 ({CODER_EXPLORE_LIMIT} when they tested new changes)"
            ),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let state = f.state;
        let steps = state.coder_steps_without_progress();
        let idle = state.idle_coder_steps();
        let reason = if idle >= CODER_NOOP_LIMIT && idle == steps {
            format!("the coder made no progress in {steps} steps in a row")
        } else if idle >= CODER_NOOP_LIMIT {
            format!("the coder made no progress in {steps} steps in a row ({idle} of them tested nothing new)")
        } else if steps >= CODER_EXPLORE_LIMIT {
            format!("the coder made no progress in {steps} steps in a row, though {} of them tested new changes", steps - idle)
        } else {
            return None;
        };
        Some(Fired {
            rule: StopRule::PlannerToCoder,
            reason: format!(
                "Loop detected: {reason}, so the run stopped instead of asking the planner again.{}",
                still_failing(state)
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::facts::testing::push_step;
    use crate::graph::memory::testing::run;
    use kotef_core::Limits;
    use kotef_core::NodeName;
    use kotef_core::Profile;

    fn after_idle_coder_steps(n: u32) -> Option<Fired> {
        after_coder_steps(&vec![false; n as usize])
    }

    /// After one coder step with progress, coder steps without, each exploring or not.
    fn after_coder_steps(explored: &[bool]) -> Option<Fired> {
        let mut s = run().build();
        push_step(&mut s, NodeName::Coder, true);
        for &e in explored {
            push_step(&mut s, NodeName::Coder, false).explored = e;
            push_step(&mut s, NodeName::Verifier, false);
        }
        CoderNoop.check(&Facts::before_planner(
            &s,
            &Limits::for_profile(Profile::Strict),
        ))
    }

    #[test]
    fn a_coder_that_changed_nothing_three_times_stops_the_run_before_the_planner_is_asked() {
        assert_eq!(
            after_idle_coder_steps(CODER_NOOP_LIMIT),
            Some(Fired {
                rule: StopRule::PlannerToCoder,
                reason: "Loop detected: the coder made no progress in 3 steps in a row, so the run stopped instead of asking the planner again.".into(),
            })
        );
    }

    #[test]
    fn two_idle_coder_steps_do_not() {
        assert_eq!(after_idle_coder_steps(CODER_NOOP_LIMIT - 1), None);
    }

    #[test]
    fn three_steps_that_each_tested_new_changes_do_not() {
        assert_eq!(after_coder_steps(&[true, true, true]), None);
    }

    #[test]
    fn three_idle_steps_among_exploring_ones_stop_the_run_saying_so() {
        let fired = after_coder_steps(&[false, true, false, false]).map(|f| f.reason);
        assert_eq!(
            fired.as_deref(),
            Some("Loop detected: the coder made no progress in 4 steps in a row (3 of them tested nothing new), so the run stopped instead of asking the planner again.")
        );
    }

    #[test]
    fn exploring_steps_stop_the_run_at_the_longer_bound_saying_so() {
        let steps = vec![true; CODER_EXPLORE_LIMIT as usize];
        assert_eq!(after_coder_steps(&steps[1..]), None);
        let fired = after_coder_steps(&steps).map(|f| f.reason);
        assert_eq!(
            fired.as_deref(),
            Some("Loop detected: the coder made no progress in 6 steps in a row, though 6 of them tested new changes, so the run stopped instead of asking the planner again.")
        );
    }
}
