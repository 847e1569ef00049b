//! `model_error` before the planner: the model failed several calls in a row (each call with
//! all its retries), so the run stops instead of waiting on it. (`llm::call` applies the same
//! limit right after a failed call, and stops at once on a request the server rejected.)

use super::{Facts, Fires, Guard, Row, Verdict, BEFORE_PLANNER_CHECKED};
use crate::graph::state::Fired;
use kotef_core::StopRule;

/// Consecutive failed model calls after which `model_error` fires.
pub const MODEL_FAILURE_LIMIT: u32 = 3;

pub struct ModelFailures;

impl Guard for ModelFailures {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::ModelError),
            variant: "",
            checked: BEFORE_PLANNER_CHECKED,
            threshold: format!(
                "{MODEL_FAILURE_LIMIT} failed model calls in a row (one call = all its retries)"
            ),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        let state = f.state;
        let failed = state.failed_calls_in_a_row();
        if failed < MODEL_FAILURE_LIMIT {
            return Verdict::Continue;
        }
        Verdict::Stop(Fired {
            rule: StopRule::ModelError,
            reason: format!(
                "The model failed {failed} calls in a row, so the run stopped instead of waiting on it."
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::state::CallRecord;
    use crate::graph::state::RunState;
    use kotef_core::Limits;
    use kotef_core::{NodeName, Profile};
    use std::collections::BTreeMap;

    fn after_failed_calls(n: u32) -> Verdict {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        for _ in 0..n {
            s.record_call(CallRecord {
                failed: true,
                ..CallRecord::new(NodeName::Coder)
            });
        }
        ModelFailures.check(&Facts::before_planner(
            &s,
            &Limits::for_profile(Profile::Strict),
        ))
    }

    #[test]
    fn three_failed_calls_in_a_row_fire_model_error() {
        assert_eq!(
            after_failed_calls(MODEL_FAILURE_LIMIT),
            Verdict::Stop(Fired {
                rule: StopRule::ModelError,
                reason: "The model failed 3 calls in a row, so the run stopped instead of waiting on it.".into(),
            })
        );
    }

    #[test]
    fn two_failed_calls_do_not() {
        assert_eq!(
            after_failed_calls(MODEL_FAILURE_LIMIT - 1),
            Verdict::Continue
        );
    }
}
