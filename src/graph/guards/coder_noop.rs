//! `planner_to_coder` (no-op coder): the coder made no progress in several steps in a row.
//! Checked before the planner is asked ([`CoderNoop`]) — whatever it would choose next, the
//! run has shown it cannot change the code towards the goal — and on a proposed hop to the
//! coder ([`CoderNoopHop`]).

use super::{Facts, Fires, Guard, Row, Verdict, BEFORE_PLANNER_CHECKED, ON_HOP_CHECKED};
use crate::graph::context::still_failing;
use crate::graph::state::Fired;
use kotef_core::NodeName;
use kotef_core::StopRule;

/// Consecutive coder steps without progress after which another coder hop is refused.
pub const CODER_NOOP_LIMIT: u32 = 3;

pub struct CoderNoop;

impl Guard for CoderNoop {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::PlannerToCoder),
            variant: "no-op coder",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: format!("{CODER_NOOP_LIMIT} coder steps in a row without progress"),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        let state = f.state;
        let steps = state.coder_steps_without_progress();
        if steps < CODER_NOOP_LIMIT {
            return Verdict::Continue;
        }
        Verdict::Stop(Fired {
            rule: StopRule::PlannerToCoder,
            reason: format!(
                "Loop detected: the coder made no progress in {steps} steps in a row, so the run stopped instead of asking the planner again.{}",
                still_failing(state)
            ),
        })
    }
}

pub struct CoderNoopHop;

impl Guard for CoderNoopHop {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::PlannerToCoder),
            variant: "no-op coder",
            checked: ON_HOP_CHECKED,
            threshold: format!(
                "a hop to the coder after {CODER_NOOP_LIMIT} coder steps in a row without progress"
            ),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        let to_coder = f.hop.is_some_and(|h| h.decision.next == NodeName::Coder);
        let steps = f.state.coder_steps_without_progress();
        if !to_coder || steps < CODER_NOOP_LIMIT {
            return Verdict::Continue;
        }
        Verdict::Stop(Fired {
            rule: StopRule::PlannerToCoder,
            reason: format!(
                "Loop detected: the coder made no progress in {steps} steps in a row, so it is not asked again."
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::facts::testing::push_step;
    use crate::graph::state::RunState;
    use kotef_core::Limits;
    use kotef_core::Profile;
    use std::collections::BTreeMap;

    fn after_idle_coder_steps(n: u32) -> Verdict {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
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
            Verdict::Stop(Fired {
                rule: StopRule::PlannerToCoder,
                reason: "Loop detected: the coder made no progress in 3 steps in a row, so the run stopped instead of asking the planner again.".into(),
            })
        );
    }

    fn hop_after_idle_coder_steps(n: u32) -> Verdict {
        crate::graph::guards::testing::on_hop(
            NodeName::Coder,
            1,
            |s| {
                for _ in 0..n {
                    push_step(s, NodeName::Coder, false);
                }
            },
            &CoderNoopHop,
        )
    }

    #[test]
    fn a_hop_to_a_coder_that_changed_nothing_three_times_is_refused() {
        assert_eq!(
            hop_after_idle_coder_steps(CODER_NOOP_LIMIT),
            Verdict::Stop(Fired {
                rule: StopRule::PlannerToCoder,
                reason: "Loop detected: the coder made no progress in 3 steps in a row, so it is not asked again.".into(),
            })
        );
    }

    #[test]
    fn a_hop_after_two_idle_coder_steps_is_not() {
        assert_eq!(
            hop_after_idle_coder_steps(CODER_NOOP_LIMIT - 1),
            Verdict::Continue
        );
    }

    #[test]
    fn two_idle_coder_steps_do_not() {
        assert_eq!(
            after_idle_coder_steps(CODER_NOOP_LIMIT - 1),
            Verdict::Continue
        );
    }
}
