//! `budget` and `max_steps`: the run's token, time, model-call and dollar budgets, asked by
//! the graph loop before every step ([`BEFORE_STEP`], with the step cap) and by `llm::call`
//! before every model call ([`BEFORE_CALL`]). The rules themselves are pure functions in
//! [`crate::graph::rules::budgets`].

use super::{Checkpoint, Fires, Row, StopGuard};
use crate::graph::memory::state::Fired;
use crate::graph::rules::budgets::{budget_spent, step_cap_reached, BudgetKind, Spent};
use kotef_core::{Limits, StopRule};

/// What the budget guards judge: the limits, what the run has used, and its steps so far.
#[derive(Debug, Clone, Copy)]
pub struct RunFacts<'a> {
    pub limits: &'a Limits,
    pub spent: Spent,
    pub total_steps: u32,
}

/// The graph loop, before every step but the snitch's.
pub struct BeforeStep;

impl Checkpoint for BeforeStep {
    type Facts<'a> = RunFacts<'a>;
    const CHECKED: &'static str = "graph loop before every step";
    const SUCCESS_WINS: bool = false;
}

/// `llm::call`, before every model call.
pub struct BeforeCall;

impl Checkpoint for BeforeCall {
    type Facts<'a> = RunFacts<'a>;
    const CHECKED: &'static str = "`llm::call` before every model call";
    const SUCCESS_WINS: bool = false;
}

/// Where the budgets are checked (both checkpoints).
const BUDGET_CHECKED: &str = "graph loop before every step; `llm::call` before every model call";

/// One budget: it stops the run once what it counts reaches its cap.
pub struct Budget(pub BudgetKind);

impl Budget {
    fn budget_row(&self) -> Row {
        let (variant, threshold) = match self.0 {
            BudgetKind::Tokens => ("tokens", "`token_budget`"),
            BudgetKind::Time => ("time", "`time_budget_s`"),
            BudgetKind::ModelCalls => ("model calls", "`max_model_calls`"),
            BudgetKind::Dollars => (
                "dollars",
                "`cost_budget_usd`, from the price table or the configured prices",
            ),
        };
        Row {
            rule: Fires::Rule(StopRule::Budget),
            variant,
            checked: BUDGET_CHECKED,
            threshold: threshold.to_string(),
        }
    }
}

impl StopGuard<BeforeStep> for Budget {
    fn row(&self) -> Row {
        self.budget_row()
    }

    fn check(&self, f: &RunFacts<'_>) -> Option<Fired> {
        budget_spent(self.0, &f.spent, f.limits)
    }
}

impl StopGuard<BeforeCall> for Budget {
    fn row(&self) -> Row {
        self.budget_row()
    }

    fn check(&self, f: &RunFacts<'_>) -> Option<Fired> {
        budget_spent(self.0, &f.spent, f.limits)
    }
}

/// `max_steps`: the next step would be the last one allowed, which is kept for the snitch.
pub struct StepCap;

impl StopGuard<BeforeStep> for StepCap {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::MaxSteps),
            variant: "",
            checked: "graph loop before every step (the last step is kept for the snitch)",
            threshold: "`max_steps`".into(),
        }
    }

    fn check(&self, f: &RunFacts<'_>) -> Option<Fired> {
        step_cap_reached(f.total_steps, f.limits)
    }
}

const TOKENS: Budget = Budget(BudgetKind::Tokens);
const TIME: Budget = Budget(BudgetKind::Time);
const MODEL_CALLS: Budget = Budget(BudgetKind::ModelCalls);
const DOLLARS: Budget = Budget(BudgetKind::Dollars);

/// The guards asked before every step, in order.
pub const BEFORE_STEP: &[&dyn StopGuard<BeforeStep>] =
    &[&TOKENS, &TIME, &MODEL_CALLS, &DOLLARS, &StepCap];

/// The guards asked before every model call, in order.
pub const BEFORE_CALL: &[&dyn StopGuard<BeforeCall>] = &[&TOKENS, &TIME, &MODEL_CALLS, &DOLLARS];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::runner::first_stop;
    use kotef_core::Profile;

    fn before_step(spent: Spent, total_steps: u32) -> Option<StopRule> {
        let limits = Limits {
            token_budget: 100,
            max_steps: 10,
            ..Limits::for_profile(Profile::Strict)
        };
        let facts = RunFacts {
            limits: &limits,
            spent,
            total_steps,
        };
        first_stop(BEFORE_STEP, &facts).map(|s| s.fired.rule)
    }

    #[test]
    fn a_spent_budget_stops_the_run_before_the_step_cap() {
        let spent = Spent {
            tokens: 100,
            ..Spent::default()
        };
        assert_eq!(before_step(spent, 9), Some(StopRule::Budget));
    }

    #[test]
    fn the_step_before_the_last_ends_the_run_by_the_step_cap() {
        assert_eq!(before_step(Spent::default(), 9), Some(StopRule::MaxSteps));
        assert_eq!(before_step(Spent::default(), 8), None);
    }
}
