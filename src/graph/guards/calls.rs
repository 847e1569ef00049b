//! The model call's stops, asked by `llm::call`: a call that cannot finish in the time left or
//! a timed-out request that would be sent again unchanged ([`CALL_PACED`], sized by
//! `graph::rules::pacing`), a failed call ([`AFTER_FAILED_CALL`]: a rejected request, or
//! [`MODEL_FAILURE_LIMIT`] failures in a row), and the time budget running out while a model
//! call or tool call is in flight ([`AT_DEADLINE`]: it is cancelled).

use super::{Checkpoint, Fires, Row, StopGuard};
use crate::graph::memory::state::Fired;
use crate::graph::rules::budgets::{deadline_cancelled, model_failure, MODEL_FAILURE_LIMIT};
use crate::graph::rules::pacing::{CallPlan, MIN_REPLY_TOKENS};
use kotef_core::{Limits, StopRule};
use kotef_model::ModelError;

/// `llm::call`, once the call is sized to the server's speed and the time left.
pub struct CallPaced;

impl Checkpoint for CallPaced {
    type Facts<'a> = &'a CallPlan;
    const CHECKED: &'static str = "`llm::call` before every model call (`graph::rules::pacing`)";
    const SUCCESS_WINS: bool = false;
}

/// The call's plan said not to send it, for `rule`.
fn not_started(plan: &CallPlan, wanted: StopRule) -> Option<Fired> {
    match plan {
        CallPlan::NotStarted { rule, reason } if *rule == wanted => Some(Fired {
            rule: *rule,
            reason: reason.clone(),
        }),
        _ => None,
    }
}

/// `budget`: the call cannot finish in the time left.
pub struct CannotFinish;

impl StopGuard<CallPaced> for CannotFinish {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::Budget),
            variant: "a call that cannot finish",
            checked: CallPaced::CHECKED,
            threshold: format!("at the server's measured speed, the prompt's uncached tokens and a reply of {MIN_REPLY_TOKENS} tokens need more than the time left (the call is not started; a reply cap that does not fit is lowered instead)"),
        }
    }

    fn check(&self, plan: &&CallPlan) -> Option<Fired> {
        not_started(plan, StopRule::Budget)
    }
}

/// `model_error`: a request that timed out would come again.
pub struct TimedOutTwice;

impl StopGuard<CallPaced> for TimedOutTwice {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::ModelError),
            variant: "timed out twice",
            checked: CallPaced::CHECKED,
            threshold: "a request that timed out comes again after it was already sent once more with half its reply cap (a timed-out request is never sent again unchanged)".into(),
        }
    }

    fn check(&self, plan: &&CallPlan) -> Option<Fired> {
        not_started(plan, StopRule::ModelError)
    }
}

/// The guards asked on a sized call, in order.
pub const CALL_PACED: &[&dyn StopGuard<CallPaced>] = &[&CannotFinish, &TimedOutTwice];

/// A model call that failed (all its retries included).
#[derive(Debug, Clone, Copy)]
pub struct FailedCall<'a> {
    pub error: &'a ModelError,
    /// The error as the report may show it (redacted).
    pub text: &'a str,
    /// Failed calls in a row, this one included.
    pub in_a_row: u32,
}

/// `llm::call`, after a failed call.
pub struct AfterFailedCall;

impl Checkpoint for AfterFailedCall {
    type Facts<'a> = FailedCall<'a>;
    const CHECKED: &'static str = "`llm::call` after a failed call (one call = all its retries)";
    const SUCCESS_WINS: bool = false;
}

/// `model_error`: a rejected request, or too many failed calls in a row.
pub struct ModelFailure;

impl StopGuard<AfterFailedCall> for ModelFailure {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::ModelError),
            variant: "",
            checked: AfterFailedCall::CHECKED,
            threshold: format!(
                "{MODEL_FAILURE_LIMIT} failed calls in a row, or a rejected request"
            ),
        }
    }

    fn check(&self, f: &FailedCall<'_>) -> Option<Fired> {
        model_failure(f.error, f.text, f.in_a_row)
    }
}

/// The guards asked after a failed call.
pub const AFTER_FAILED_CALL: &[&dyn StopGuard<AfterFailedCall>] = &[&ModelFailure];

/// The time budget ran out while `what` (a model call, a tool call) was in flight.
#[derive(Debug, Clone, Copy)]
pub struct Cancelled<'a> {
    pub what: &'a str,
    pub limits: &'a Limits,
}

/// The deadline, in `llm::call` and the coder's tool calls.
pub struct AtDeadline;

impl Checkpoint for AtDeadline {
    type Facts<'a> = Cancelled<'a>;
    const CHECKED: &'static str = "`llm::call` and the coder's tool calls, at the deadline";
    const SUCCESS_WINS: bool = false;
}

/// `budget` (time): what was in flight at the deadline was cancelled.
pub struct Deadline;

impl StopGuard<AtDeadline> for Deadline {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::Budget),
            variant: "time, at the deadline",
            checked: AtDeadline::CHECKED,
            threshold: "`time_budget_s` runs out while a model call or tool call is in flight (it is cancelled)".into(),
        }
    }

    fn check(&self, f: &Cancelled<'_>) -> Option<Fired> {
        Some(deadline_cancelled(f.what, f.limits))
    }
}

/// The guards asked at the deadline.
pub const AT_DEADLINE: &[&dyn StopGuard<AtDeadline>] = &[&Deadline];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::runner::first_stop;

    #[test]
    fn a_call_not_started_for_time_is_a_budget_stop() {
        let plan = CallPlan::NotStarted {
            rule: StopRule::Budget,
            reason: "too slow".into(),
        };
        let stop = first_stop(CALL_PACED, &&plan).map(|s| s.fired);
        assert_eq!(
            stop,
            Some(Fired {
                rule: StopRule::Budget,
                reason: "too slow".into()
            })
        );
    }

    #[test]
    fn a_call_that_is_sent_stops_nothing() {
        let plan = CallPlan::Send {
            reply_cap: None,
            note: None,
        };
        assert_eq!(first_stop(CALL_PACED, &&plan), None);
    }
}
