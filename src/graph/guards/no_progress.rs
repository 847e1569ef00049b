//! `no_progress`: steps of any shape passed without progress (no new files, test results or
//! research) up to the profile's limit.

use super::{BeforePlanner, Facts, Fires, Row, StopGuard, BEFORE_PLANNER_CHECKED};
use crate::graph::memory::state::Fired;
use kotef_core::StopRule;

pub struct NoProgress;

impl StopGuard<BeforePlanner> for NoProgress {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::NoProgress),
            variant: "",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: "`no_progress_steps` steps without progress".into(),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let state = f.state;
        let limits = f.limits;
        let idle = state.steps_without_progress();
        if idle < limits.no_progress_steps {
            return None;
        }
        Some(Fired {
            rule: StopRule::NoProgress,
            reason: format!(
                "{idle} steps passed without progress (no new files, test results or research), the limit is {}.",
                limits.no_progress_steps
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::testing::run;
    use kotef_core::Limits;
    use kotef_core::Profile;

    fn idle(steps: u32) -> Option<Fired> {
        let mut s = run().build();
        s.last_progress_step = 5;
        s.total_steps = 5 + steps;
        let limits = Limits {
            no_progress_steps: 10,
            ..Limits::for_profile(Profile::Strict)
        };
        NoProgress.check(&Facts::before_planner(&s, &limits))
    }

    #[test]
    fn steps_of_any_shape_without_progress_fire_no_progress_at_the_limit() {
        assert_eq!(
            idle(10),
            Some(Fired {
                rule: StopRule::NoProgress,
                reason: "10 steps passed without progress (no new files, test results or research), the limit is 10.".into(),
            })
        );
    }

    #[test]
    fn fewer_idle_steps_do_not() {
        assert_eq!(idle(9), None);
    }
}
