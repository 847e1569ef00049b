//! `fix_attempts`: the verification still fails after as many fix attempts (failing
//! verifications after code changes) as the profile allows.

use super::{BeforePlanner, Facts, Fires, Row, StopGuard, BEFORE_PLANNER_CHECKED};
use crate::graph::memory::state::Fired;
use kotef_core::StopRule;

pub struct FixAttempts;

impl StopGuard<BeforePlanner> for FixAttempts {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::FixAttempts),
            variant: "",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: "`fix_attempts` failing verifications after code changes".into(),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let state = f.state;
        let limits = f.limits;
        let t = state.test.as_ref().filter(|t| !t.passed)?;
        if state.failures.attempts < limits.fix_attempts {
            return None;
        }
        Some(Fired {
            rule: StopRule::FixAttempts,
            reason: format!(
                "The tests still fail (`{}`) after {} fix attempts, the {} profile's limit.",
                t.command,
                state.failures.attempts,
                state.profile.as_str()
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::facts::testing::test_result;
    use crate::graph::memory::testing::run;
    use kotef_core::Limits;
    use kotef_core::Profile;

    fn yolo_after(attempts: u32, passed: bool) -> Option<Fired> {
        let mut s = run().profile(Profile::Yolo).build();
        s.test = Some(test_result("cargo test", passed, ""));
        s.failures.attempts = attempts;
        FixAttempts.check(&Facts::before_planner(
            &s,
            &Limits::for_profile(Profile::Yolo),
        ))
    }

    #[test]
    fn fix_attempts_fire_at_the_profile_limit() {
        let Some(f) = yolo_after(3, false) else {
            panic!("no stop");
        };
        assert_eq!(
            f.reason,
            "The tests still fail (`cargo test`) after 3 fix attempts, the yolo profile's limit."
        );
    }

    #[test]
    fn fewer_attempts_do_not_fire() {
        assert_eq!(yolo_after(2, false), None);
    }

    #[test]
    fn a_passing_last_verification_never_fires() {
        assert_eq!(yolo_after(3, true), None);
    }
}
