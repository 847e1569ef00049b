//! The run's budgets and hard limits as pure checks: tokens, time, model calls and dollars
//! ([`budget_stop`], before every step and every model call), the step cap, failed model
//! calls, commands the strict profile denies ([`command_denied`]) and a command that ran into
//! a resource limit ([`resource_limit`]).

use crate::graph::memory::state::Fired;
use kotef_core::{Limits, Profile, StopRule};
use kotef_model::ModelError;

fn fired(rule: StopRule, reason: String) -> Option<Fired> {
    Some(Fired { rule, reason })
}

/// What the run has used so far, for the budget rules.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub tokens: u64,
    pub elapsed_s: u64,
    pub model_calls: u32,
    /// Dollars, when the model's price is known.
    pub cost_usd: Option<f64>,
}

/// One of the run's four budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetKind {
    Tokens,
    Time,
    ModelCalls,
    Dollars,
}

impl BudgetKind {
    /// The four, in the order they are checked.
    pub const ALL: [BudgetKind; 4] = [Self::Tokens, Self::Time, Self::ModelCalls, Self::Dollars];
}

/// The token, wall-clock, model-call and dollar budgets.
pub fn budget_stop(spent: &Spent, limits: &Limits) -> Option<Fired> {
    BudgetKind::ALL
        .iter()
        .find_map(|kind| budget_spent(*kind, spent, limits))
}

/// The budget `kind`, when it ran out.
pub fn budget_spent(kind: BudgetKind, spent: &Spent, limits: &Limits) -> Option<Fired> {
    let (name, used, cap, unit) = match kind {
        BudgetKind::Tokens => ("token", spent.tokens, limits.token_budget, "tokens used"),
        BudgetKind::Time => ("time", spent.elapsed_s, limits.time_budget_s, "s used"),
        BudgetKind::ModelCalls => (
            "model-call",
            u64::from(spent.model_calls),
            u64::from(limits.max_model_calls),
            "calls made",
        ),
        BudgetKind::Dollars => {
            let (Some(cost), Some(cap)) = (spent.cost_usd, limits.cost_budget_usd) else {
                return None;
            };
            if cost < cap {
                return None;
            }
            return fired(
                StopRule::Budget,
                format!("The dollar budget ran out: ${cost:.4} of ${cap:.4} spent."),
            );
        }
    };
    if used >= cap {
        return fired(
            StopRule::Budget,
            format!("The {name} budget ran out: {used} of {cap} {unit}."),
        );
    }
    None
}

/// The time budget ran out while a model call or command was in flight; it was cancelled.
pub fn deadline_cancelled(what: &str, limits: &Limits) -> Fired {
    Fired {
        rule: StopRule::Budget,
        reason: format!(
            "The time budget ran out: {} s used, and the {what} in flight was cancelled.",
            limits.time_budget_s
        ),
    }
}

/// Why a dollar budget cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CostBudgetError {
    #[error("cost_budget_usd must be a positive number of dollars (got {0})")]
    NotPositive(f64),
}

/// USD per million tokens at which a dollar budget becomes a token budget when the model's
/// price is unknown: a Sonnet-class price ($3 in, $15 out per million) at kotef's usual
/// mix of about ten prompt tokens per completion token ((10 × 3 + 15) / 11 ≈ $4.09), rounded
/// down to $4, so `max-cost-usd: "0.50"` allows 125,000 tokens.
pub const FALLBACK_USD_PER_MTOK: f64 = 4.0;

/// A dollar budget must be positive. Without a known price it cannot be counted, so it becomes
/// a token budget ([`FALLBACK_USD_PER_MTOK`]; a lower token budget stays) and the returned
/// warning says so, for the log and the report.
pub fn dollars_without_price(
    limits: &mut Limits,
    price_known: bool,
    model: &str,
) -> Result<Option<String>, CostBudgetError> {
    let Some(cap) = limits.cost_budget_usd else {
        return Ok(None);
    };
    if !cap.is_finite() || cap <= 0.0 {
        return Err(CostBudgetError::NotPositive(cap));
    }
    if price_known {
        return Ok(None);
    }
    // Truncation is the rounding wanted: never more tokens than the dollars buy.
    let tokens = ((cap / FALLBACK_USD_PER_MTOK) * 1_000_000.0) as u64;
    limits.cost_budget_usd = None;
    limits.token_budget = limits.token_budget.min(tokens.max(1));
    Ok(Some(format!(
        "The price of `{model}` is unknown, so the ${cap} budget counts tokens instead: at most \
         {} tokens (${cap} at ${FALLBACK_USD_PER_MTOK} per million tokens). Set the price \
         (`price-per-mtok: \"IN,OUT\"` in the Action, KOTEF_PRICE_PER_MTOK, or [model] \
         price_prompt_per_mtok and price_completion_per_mtok) to count dollars.",
        limits.token_budget
    )))
}

/// Whether the next step would be the last one allowed: that step is kept for the snitch, so a
/// run never exceeds `max_steps`.
pub fn step_cap_reached(total_steps: u32, limits: &Limits) -> Option<Fired> {
    if total_steps + 1 >= limits.max_steps {
        return fired(
            StopRule::MaxSteps,
            format!(
                "The global cap of {} steps was reached before any other rule fired.",
                limits.max_steps
            ),
        );
    }
    None
}

/// Consecutive failed model calls after which `model_error` fires.
pub const MODEL_FAILURE_LIMIT: u32 = 3;

/// After a failed model call (all its retries included): `model_error` for a request the
/// provider rejects, or after [`MODEL_FAILURE_LIMIT`] failed calls in a row.
pub fn model_failure(err: &ModelError, err_text: &str, consecutive: u32) -> Option<Fired> {
    if matches!(err, ModelError::Rejected { .. } | ModelError::Config(_)) {
        return fired(
            StopRule::ModelError,
            format!("The model provider rejected the request: {err_text}"),
        );
    }
    if consecutive >= MODEL_FAILURE_LIMIT {
        return fired(
            StopRule::ModelError,
            format!("The model failed {consecutive} calls in a row (last: {err_text})."),
        );
    }
    None
}

/// Commands off the strict profile's allow-list a run may try before that ends it.
pub const SOFT_DENIAL_LIMIT: u32 = 3;

/// How a denied command weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// On the denylist or reaching outside the workspace: a policy violation in itself.
    Hard,
    /// Only off the strict allow-list; `count` such denials so far in the run, this one included.
    OffList { count: u32 },
}

/// A command the profile's policy denied. Under `strict` a hard denial ends the run at once;
/// a command merely off the allow-list is a tool error the agent can correct, until
/// [`SOFT_DENIAL_LIMIT`] of them end the run. Under `yolo` a denial never ends the run.
pub fn command_denied(
    profile: Profile,
    command: &str,
    reason: &str,
    denial: Denial,
) -> Option<Fired> {
    if profile != Profile::Strict {
        return None;
    }
    let reason = match denial {
        Denial::Hard => {
            format!("The command `{command}` is not allowed under the strict profile: {reason}")
        }
        Denial::OffList { count } if count >= SOFT_DENIAL_LIMIT => format!(
            "{count} commands outside the strict profile's allow-list were tried; the last, `{command}`: {reason}"
        ),
        Denial::OffList { .. } => return None,
    };
    Some(Fired {
        rule: StopRule::Constraint,
        reason,
    })
}

/// The test command itself is refused by the run's policy (denylisted, say): nothing can be
/// verified, so the run ends under any profile.
pub fn test_command_denied(command: &str, reason: &str) -> Fired {
    Fired {
        rule: StopRule::Constraint,
        reason: format!("The test command `{command}` is not allowed: {reason}"),
    }
}

/// A command (the tests, or one the agent ran) that ran into a resource limit for one command
/// (processes, memory, file size, disk) ends the run: no fix should need a fork bomb or
/// gigabytes of output, and the next command would do the same.
pub fn resource_limit(command: &str, why: &str) -> Fired {
    Fired {
        rule: StopRule::Constraint,
        reason: format!("The command `{command}` hit a resource limit: {why}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::Profile;
    use kotef_model::ModelError;

    fn limits() -> Limits {
        Limits::for_profile(Profile::Strict)
    }

    #[test]
    fn budgets_and_step_cap() {
        let l = Limits {
            token_budget: 100,
            time_budget_s: 10,
            max_steps: 5,
            ..limits()
        };
        let spent = |tokens, elapsed_s| Spent {
            tokens,
            elapsed_s,
            ..Spent::default()
        };
        assert_eq!(budget_stop(&spent(99, 9), &l), None);
        assert_eq!(
            budget_stop(&spent(100, 0), &l).unwrap().rule,
            StopRule::Budget
        );
        assert_eq!(
            budget_stop(&spent(0, 10), &l).unwrap().rule,
            StopRule::Budget
        );
        assert_eq!(step_cap_reached(3, &l), None);
        assert_eq!(step_cap_reached(4, &l).unwrap().rule, StopRule::MaxSteps);
    }

    #[test]
    fn the_model_call_budget_fires_at_its_limit() {
        let l = Limits {
            max_model_calls: 4,
            ..limits()
        };
        let spent = |model_calls| Spent {
            model_calls,
            ..Spent::default()
        };
        assert_eq!(budget_stop(&spent(3), &l), None);
        let f = budget_stop(&spent(4), &l).unwrap();
        assert_eq!(f.rule, StopRule::Budget);
        assert!(f.reason.contains("model-call budget"), "{}", f.reason);
    }

    #[test]
    fn the_dollar_budget_fires_when_spent() {
        let l = Limits {
            cost_budget_usd: Some(0.5),
            ..limits()
        };
        let spent = |cost_usd| Spent {
            cost_usd,
            ..Spent::default()
        };
        assert_eq!(budget_stop(&spent(Some(0.49)), &l), None);
        assert_eq!(budget_stop(&spent(None), &l), None);
        let f = budget_stop(&spent(Some(0.5)), &l).unwrap();
        assert!(f.reason.contains("dollar budget"), "{}", f.reason);
    }

    #[test]
    fn a_dollar_budget_without_a_price_becomes_a_token_budget_and_says_so() {
        let with = |cap| Limits {
            cost_budget_usd: cap,
            ..limits()
        };
        let mut l = with(None);
        assert_eq!(dollars_without_price(&mut l, false, "m"), Ok(None));
        let mut l = with(Some(1.0));
        assert_eq!(dollars_without_price(&mut l, true, "m"), Ok(None));
        assert_eq!(
            l.cost_budget_usd,
            Some(1.0),
            "a priced model keeps its dollars"
        );
        let mut l = with(Some(0.5));
        let note = dollars_without_price(&mut l, false, "openai:my-model")
            .unwrap()
            .unwrap();
        assert_eq!((l.cost_budget_usd, l.token_budget), (None, 125_000));
        assert!(
            note.contains("`openai:my-model`")
                && note.contains("125000 tokens")
                && note.contains("price-per-mtok"),
            "{note}"
        );
        // A lower token budget stays.
        let mut l = Limits {
            token_budget: 1_000,
            ..with(Some(0.5))
        };
        dollars_without_price(&mut l, false, "m").unwrap();
        assert_eq!(l.token_budget, 1_000);
        assert_eq!(
            dollars_without_price(&mut with(Some(-1.0)), true, "m"),
            Err(CostBudgetError::NotPositive(-1.0))
        );
    }

    #[test]
    fn the_deadline_names_what_it_cancelled() {
        let f = deadline_cancelled("model call", &limits());
        assert_eq!(f.rule, StopRule::Budget);
        assert!(f.reason.contains("model call in flight was cancelled"));
    }

    #[test]
    fn three_failed_calls_in_a_row_fire_model_error() {
        let e = ModelError::Server {
            status: 500,
            message: "down".into(),
        };
        assert_eq!(model_failure(&e, "down", 2), None);
        assert_eq!(
            model_failure(&e, "down", 3).unwrap().rule,
            StopRule::ModelError
        );
    }

    #[test]
    fn a_rejected_request_fires_model_error_at_once() {
        let e = ModelError::Rejected {
            status: 401,
            message: "bad key".into(),
        };
        let f = model_failure(&e, "bad key", 1).unwrap();
        assert!(f.reason.contains("rejected"));
    }

    #[test]
    fn a_hard_denial_ends_only_strict_runs() {
        let f = command_denied(Profile::Strict, "sudo x", "no", Denial::Hard).unwrap();
        assert_eq!(f.rule, StopRule::Constraint);
        assert_eq!(
            command_denied(Profile::Yolo, "sudo x", "no", Denial::Hard),
            None
        );
    }

    #[test]
    fn a_command_off_the_allow_list_is_forgiven_until_the_limit() {
        let at = |count| {
            command_denied(Profile::Strict, "awk x", "no", Denial::OffList { count })
                .map(|f| f.rule)
        };
        assert_eq!(
            (at(1), at(SOFT_DENIAL_LIMIT - 1), at(SOFT_DENIAL_LIMIT)),
            (None, None, Some(StopRule::Constraint))
        );
    }
}
