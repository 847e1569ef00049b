//! `planner_to_coder` (oscillation): since the last progress, coder steps went back to a
//! state the run had been in before — an A/B oscillation between versions of the code.

use super::{BeforePlanner, Facts, Fires, Row, StopGuard, BEFORE_PLANNER_CHECKED};
use crate::graph::memory::state::Fired;
use kotef_core::StopRule;

/// Coder steps since the last progress that went back to an earlier state after which
/// `planner_to_coder` fires.
pub const OSCILLATION_LIMIT: u32 = 2;

pub struct Oscillation;

impl StopGuard<BeforePlanner> for Oscillation {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::PlannerToCoder),
            variant: "oscillation",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: format!(
                "{OSCILLATION_LIMIT} coder steps since progress that returned to an earlier state"
            ),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let state = f.state;
        let (times, back_to) = state.coder_revisits();
        if times < OSCILLATION_LIMIT {
            return None;
        }
        Some(Fired {
            rule: StopRule::PlannerToCoder,
            reason: format!(
                "Loop detected: the coder returned the workspace to an earlier state {times} times since the last progress (the state of step {} again), an oscillation between versions.",
                back_to.unwrap_or_default()
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
    use kotef_core::{NodeName, Profile};

    fn after_revisits(steps: &[u32]) -> Option<Fired> {
        let mut s = run().build();
        for &earlier in steps {
            push_step(&mut s, NodeName::Coder, false).revisit_of = Some(earlier);
            push_step(&mut s, NodeName::Verifier, false);
        }
        Oscillation.check(&Facts::before_planner(
            &s,
            &Limits::for_profile(Profile::Strict),
        ))
    }

    #[test]
    fn a_coder_back_at_an_earlier_state_twice_fires_planner_to_coder_naming_the_step() {
        let Some(f) = after_revisits(&[2, 6]) else {
            panic!("no stop");
        };
        assert_eq!(f.rule, StopRule::PlannerToCoder);
        assert!(f.reason.contains("2 times"), "{}", f.reason);
        assert!(f.reason.contains("state of step 6 again"), "{}", f.reason);
    }

    #[test]
    fn one_return_is_not_yet_an_oscillation() {
        assert_eq!(after_revisits(&[2]), None);
    }
}
