//! `planner_to_coder` (no-op coder): the coder made no progress in several steps in a row.
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

pub struct CoderNoop;

impl StopGuard<BeforePlanner> for CoderNoop {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::PlannerToCoder),
            variant: "no-op coder",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: format!("{CODER_NOOP_LIMIT} coder steps in a row without progress"),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let state = f.state;
        let steps = state.coder_steps_without_progress();
        if steps < CODER_NOOP_LIMIT {
            return None;
        }
        Some(Fired {
            rule: StopRule::PlannerToCoder,
            reason: format!(
                "Loop detected: the coder made no progress in {steps} steps in a row, so the run stopped instead of asking the planner again.{}",
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
        let mut s = run().build();
        push_step(&mut s, NodeName::Coder, true);
        for _ in 0..n {
            push_step(&mut s, NodeName::Coder, false);
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
}
