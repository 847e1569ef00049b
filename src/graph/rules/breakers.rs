//! The coder's breakers inside one step, which end the step (not the run) and name why in the
//! timeline: the same failing tool call [`REPEATED_FAILURE_LIMIT`] times, the same successful
//! call [`REPEATED_CALL_LIMIT`] times with no file changed in between, [`NO_TOOL_CALL_LIMIT`]
//! replies in a row without a tool call (the second gets one corrective message), the step's
//! hard cap `coder_step_calls`, and the budget review's [`REVIEW_HARD_CAP`].

use kotef_core::Limits;

/// The same failing tool call (tool, arguments, error) this often ends a coder step.
pub const REPEATED_FAILURE_LIMIT: u32 = 3;
/// The same successful tool call, with nothing changed in between, this often ends a coder step.
pub const REPEATED_CALL_LIMIT: u32 = 3;
/// Replies in a row with neither a tool call nor `done` that end a coder step.
pub const NO_TOOL_CALL_LIMIT: u32 = 3;
/// Budget reviews in one coder step after which the prompt carries a warning.
pub const REVIEW_SOFT_CAP: u32 = 3;
/// Budget reviews in one coder step after which the step ends as no progress.
pub const REVIEW_HARD_CAP: u32 = 6;

/// What the budget review decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetReview {
    /// Work looks complete: one turn asking the coder to call `done`.
    AskForDone,
    /// Keep going (with a warning in the prompt once the soft cap is passed).
    Continue { warn: bool },
    /// The hard cap: end the step as no progress.
    EndStep,
}

/// The budget review: `streak` is the number of reviews in this step including this one;
/// `changed_files` whether the step changed anything; `last_turn_changed` whether the latest
/// turn still changed files.
pub fn budget_review(streak: u32, changed_files: bool, last_turn_changed: bool) -> BudgetReview {
    if streak >= REVIEW_HARD_CAP {
        BudgetReview::EndStep
    } else if changed_files && !last_turn_changed {
        BudgetReview::AskForDone
    } else {
        BudgetReview::Continue {
            warn: streak >= REVIEW_SOFT_CAP,
        }
    }
}

/// What to do after a reply with neither a tool call nor `done`, the `streak`-th in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoToolCall {
    /// Ask again (the step's notes record the empty turn).
    Continue,
    /// The second in a row: one corrective message showing what a tool call looks like.
    Correct,
    /// The third in a row: end the step.
    EndStep,
}

pub fn no_tool_call(streak: u32) -> NoToolCall {
    if streak >= NO_TOOL_CALL_LIMIT {
        NoToolCall::EndStep
    } else if streak + 1 == NO_TOOL_CALL_LIMIT {
        NoToolCall::Correct
    } else {
        NoToolCall::Continue
    }
}

/// Whether the same failing tool call, seen `times` times in this step, ends the step.
pub fn repeated_failure_ends_step(times: u32) -> bool {
    times >= REPEATED_FAILURE_LIMIT
}

/// What to do with a successful tool call seen `times` times in this step with no file
/// changed since its first time: run it, run it and say the result cannot have changed, or
/// end the step (small models re-read one file until the budget runs out).
pub fn repeated_call(times: u32) -> RepeatedCall {
    match times {
        0 | 1 => RepeatedCall::Fresh,
        t if t < REPEATED_CALL_LIMIT => RepeatedCall::Nudge,
        _ => RepeatedCall::EndStep,
    }
}

/// See [`repeated_call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatedCall {
    Fresh,
    Nudge,
    EndStep,
}

/// Whether a coder step that has made `calls` model calls may make another.
pub fn coder_step_cap_reached(calls: u32, limits: &Limits) -> bool {
    calls >= limits.coder_step_calls.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::Profile;

    fn limits() -> Limits {
        Limits::for_profile(Profile::Strict)
    }

    #[test]
    fn the_third_reply_without_tool_calls_ends_the_step() {
        assert_eq!(no_tool_call(1), NoToolCall::Continue);
        assert_eq!(no_tool_call(2), NoToolCall::Correct);
        assert_eq!(no_tool_call(3), NoToolCall::EndStep);
    }

    #[test]
    fn a_repeated_unchanged_call_is_run_then_nudged_then_ends_the_step() {
        assert_eq!(
            [1, 2, 3].map(repeated_call),
            [
                RepeatedCall::Fresh,
                RepeatedCall::Nudge,
                RepeatedCall::EndStep
            ]
        );
    }

    #[test]
    fn the_third_identical_failing_call_ends_the_step() {
        assert!(!repeated_failure_ends_step(2));
        assert!(repeated_failure_ends_step(3));
    }

    #[test]
    fn the_coder_step_call_cap() {
        let l = Limits {
            coder_step_calls: 5,
            ..limits()
        };
        assert!(!coder_step_cap_reached(4, &l));
        assert!(coder_step_cap_reached(5, &l));
    }

    #[test]
    fn review_asks_for_done_only_when_work_settled() {
        assert_eq!(budget_review(1, true, false), BudgetReview::AskForDone);
        assert_eq!(
            budget_review(1, true, true),
            BudgetReview::Continue { warn: false }
        );
        assert_eq!(
            budget_review(1, false, false),
            BudgetReview::Continue { warn: false }
        );
        assert_eq!(
            budget_review(3, false, false),
            BudgetReview::Continue { warn: true }
        );
        assert_eq!(budget_review(6, true, false), BudgetReview::EndStep);
    }
}
