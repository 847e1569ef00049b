//! Guards: every decision that ends, redirects or succeeds a run, one file each. A guard holds its
//! threshold, its check over the run's facts ([`crate::graph::memory::facts`]), the text it gives,
//! its row of the stop-rule table and its tests; it applies the rules of `graph::rules` and imports
//! no other guard (only this module and the [`runner`]). Each is asked at a typed checkpoint
//! ([`Checkpoint`]): a checkpoint fixes the facts its guards see and whether a verified success
//! wins over their stops. Stop-only checkpoints take [`StopGuard`]s, which can only answer with a
//! stop; the planner's proposal takes [`Guard`]s ([`Verdict`]); the verifier's result takes
//! [`after_verify::VerifyGuard`]s. A registry lists the guards of each checkpoint in the order they
//! are asked, the registry runner ([`runner`]) is the one place a stop ends the run, and the
//! stop-rule table (`docs/stop-rules.md`, included below) is generated from the registries
//! ([`crate::graph::stop_table`]): a test fails when they differ.
//!
//! A new heuristic is one new file here plus one line in its checkpoint's registry.
#![doc = include_str!("../../../docs/stop-rules.md")]

use crate::graph::memory::state::{Ending, Fired, PlannerDecision, Redirect, RunState};
use kotef_core::{Limits, StopRule};

pub mod after_verify;
pub mod budget;
pub mod calls;
pub mod coder_noop;
pub mod commands;
pub mod contradicting_tests;
pub mod edge_limit;
pub mod exact_repeat;
pub mod fix_attempts;
pub mod no_progress;
pub mod oscillation;
pub mod outside_repository;
pub mod planner_ends;
pub mod premature_done;
pub mod premature_give_up;
pub mod reverify;
pub mod runner;
pub mod test_edits_only;
pub mod verified_success_wins;

/// Coder steps that make a fair try: fewer, and a give-up is refused and a cause outside the
/// repository is not yet final.
/// Shared by the outside-repository and premature give-up guards (no guard imports another).
pub const FAIR_TRY_CODER_STEPS: usize = 2;

/// A place in the run where guards are asked: the facts they see there, where the table says
/// it is, and whether a verified success wins over a stop there (the planner's checkpoints:
/// a loop rule firing after a verified fix does not turn it into a failure).
pub trait Checkpoint: 'static {
    /// What the guards of this checkpoint judge.
    type Facts<'a>;
    /// Where it is, as the stop-rule table says.
    const CHECKED: &'static str;
    /// Whether the registry runner ends the run in success when one of its guards stops a
    /// run whose last verification of its latest change passed.
    const SUCCESS_WINS: bool;
}

/// A guard at a stop-only checkpoint: it can only let the run go on or stop it.
pub trait StopGuard<C: Checkpoint>: Sync {
    /// Its row in the stop-rule table.
    fn row(&self) -> Row;
    /// The stop it fires on the facts, if any.
    fn check(&self, facts: &C::Facts<'_>) -> Option<Fired>;
}

/// What a guard says of the run at its checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Nothing to say: the next guard is asked.
    Continue,
    /// The proposal is refused; the note goes to the planner's next prompt.
    Refuse(String),
    /// The coder gets `task` instead of the proposed hop, for the reason `why`.
    Redirect { task: String, why: Redirect },
    /// The run ends in success here.
    Succeed(Ending),
    /// The run ends as the planner chose (`done` or `snitch`); the step keeps the planner's
    /// reason.
    End(Ending),
    /// The run stops with this rule and reason (unless a verified success wins).
    Stop(Fired),
}

/// What a guard's row says it fires.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fires {
    /// One rule of the contract.
    Rule(StopRule),
    /// The rule of the proposed hop's edge (`planner_to_<node>`).
    EdgeRule,
    /// No rule: the row redirects or refuses, or ends the run by itself, with this status.
    NoRule { status: &'static str },
}

/// A guard's row of the stop-rule table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The contract's rule it fires.
    pub rule: Fires,
    /// What sets this row apart from the rule's other rows (empty: nothing).
    pub variant: &'static str,
    /// Where it is checked.
    pub checked: &'static str,
    /// When it fires.
    pub threshold: String,
}

impl Row {
    /// The row of a guard that fires no rule: `label` names it, `status` says what follows.
    pub fn without_rule(
        label: &'static str,
        checked: &'static str,
        threshold: &str,
        status: &'static str,
    ) -> Self {
        Self {
            rule: Fires::NoRule { status },
            variant: label,
            checked,
            threshold: threshold.to_string(),
        }
    }

    /// The row's cells: rule, where, threshold, status.
    pub fn cells(&self) -> [String; 4] {
        let variant = if self.variant.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.variant)
        };
        let (rule, status) = match self.rule {
            Fires::Rule(r) => (
                format!("`{r}`{variant}"),
                format!("`{}`", r.terminal_status().as_str()),
            ),
            // Every edge's rule ends a run stuck.
            Fires::EdgeRule => (
                format!("`planner_to_<node>`{variant}"),
                format!("`{}`", StopRule::PlannerToCoder.terminal_status().as_str()),
            ),
            Fires::NoRule { status } => (self.variant.to_string(), status.to_string()),
        };
        [
            rule,
            self.checked.to_string(),
            self.threshold.clone(),
            status,
        ]
    }
}

/// What a guard judges: the run's facts and limits, and at [`ON_HOP`] the planner's proposed
/// hop.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub state: &'a RunState,
    pub limits: &'a Limits,
    /// The hop the planner proposed, already counted (only at [`ON_HOP`]).
    pub hop: Option<Hop<'a>>,
}

/// A proposed hop, as the hop guards see it.
#[derive(Debug, Clone, Copy)]
pub struct Hop<'a> {
    pub decision: &'a PlannerDecision,
    /// How often this exact proposal has now been made on this exact state.
    pub repeats: u32,
}

impl<'a> Facts<'a> {
    /// The facts at the start of a planner step.
    pub fn before_planner(state: &'a RunState, limits: &'a Limits) -> Self {
        Self {
            state,
            limits,
            hop: None,
        }
    }

    /// The facts when the planner proposed `hop`.
    pub fn on_hop(state: &'a RunState, limits: &'a Limits, hop: Hop<'a>) -> Self {
        Self {
            state,
            limits,
            hop: Some(hop),
        }
    }
}

/// Where the planner's guards are asked: at the start of a planner step, before the model.
pub const BEFORE_PLANNER_CHECKED: &str = "planner, before asking the model";

/// Where the proposal guards are asked: on the model's proposal, before anything else.
pub const ON_PROPOSAL_CHECKED: &str = "planner, on the model's proposal";

/// Where the hop guards are asked: after the model's proposal, with the hop counted.
pub const ON_HOP_CHECKED: &str = "planner, after the model's proposal";

/// The start of a planner step, before the model is asked.
pub struct BeforePlanner;

impl Checkpoint for BeforePlanner {
    type Facts<'a> = Facts<'a>;
    const CHECKED: &'static str = BEFORE_PLANNER_CHECKED;
    const SUCCESS_WINS: bool = true;
}

/// The planner's proposal (any next node), before anything else.
pub struct OnProposal;

impl Checkpoint for OnProposal {
    type Facts<'a> = Facts<'a>;
    const CHECKED: &'static str = ON_PROPOSAL_CHECKED;
    const SUCCESS_WINS: bool = true;
}

/// A proposed hop to the researcher, the coder or the verifier, counted.
pub struct OnHop;

impl Checkpoint for OnHop {
    type Facts<'a> = Facts<'a>;
    const CHECKED: &'static str = ON_HOP_CHECKED;
    const SUCCESS_WINS: bool = true;
}

/// A heuristic or rule over the planner's proposal: it may refuse it, redirect it, end the run
/// in success or stop it.
pub trait Guard: Sync {
    /// Its row in the stop-rule table.
    fn row(&self) -> Row;
    /// Its verdict on the run as it is now.
    fn check(&self, facts: &Facts<'_>) -> Verdict;
}

/// The guards asked at the start of a planner step, in order; the first that stops the run
/// decides.
pub const BEFORE_PLANNER: &[&dyn StopGuard<BeforePlanner>] = &[
    &oscillation::Oscillation,
    &fix_attempts::FixAttempts,
    &outside_repository::OutsideRepository,
    &test_edits_only::TestEditsOnly,
    &coder_noop::CoderNoop,
    &no_progress::NoProgress,
];

/// The guards asked on the planner's proposal (any next node), in order; the first verdict
/// that is not `Continue` is taken: success, a refused `done`, the coder sent the failure
/// instead of the proposed hop, or the run's end the planner chose (`done`, `snitch`).
pub const ON_PROPOSAL: &[&dyn Guard] = &[
    &verified_success_wins::VerifiedSuccessWins,
    &premature_done::PrematureDone,
    &premature_give_up::PrematureGiveUp,
    &reverify::Reverify,
    &planner_ends::DoneVerified,
    &planner_ends::DoneUnverified,
    &planner_ends::GaveUp,
];

/// The guards asked on a proposed hop to the researcher, the coder or the verifier, in order.
pub const ON_HOP: &[&dyn StopGuard<OnHop>] = &[&exact_repeat::ExactRepeat, &edge_limit::EdgeLimit];

/// The first verdict among `guards` that is not `Continue`, asked in order.
pub fn first_verdict(guards: &[&dyn Guard], facts: &Facts<'_>) -> Verdict {
    guards
        .iter()
        .map(|g| g.check(facts))
        .find(|v| *v != Verdict::Continue)
        .unwrap_or(Verdict::Continue)
}

/// Facts for the guards' tests.
#[cfg(test)]
pub mod testing {
    use super::{Facts, Guard, Hop, OnHop, StopGuard, Verdict};
    use crate::graph::memory::state::{Fired, PlannerDecision, RunState};
    use crate::graph::memory::testing::run;
    use kotef_core::{Limits, NodeName, Profile};

    /// What `check` says of a hop to `next` proposed `repeats` times, on a strict run that
    /// `setup` prepared.
    fn judge<T>(
        next: NodeName,
        repeats: u32,
        setup: impl FnOnce(&mut RunState),
        check: impl FnOnce(&Facts<'_>) -> T,
    ) -> T {
        let mut s = run().build();
        setup(&mut s);
        let decision = PlannerDecision {
            next,
            reason: "r".into(),
            plan: Vec::new(),
            query: None,
            task: None,
            verify: None,
        };
        let limits = Limits::for_profile(Profile::Strict);
        let hop = Hop {
            decision: &decision,
            repeats,
        };
        check(&Facts::on_hop(&s, &limits, hop))
    }

    /// `guard`'s verdict on a proposal of `next` (`repeats` times), on a strict run that
    /// `setup` prepared.
    pub fn on_hop(
        next: NodeName,
        repeats: u32,
        setup: impl FnOnce(&mut RunState),
        guard: &dyn Guard,
    ) -> Verdict {
        judge(next, repeats, setup, |f| guard.check(f))
    }

    /// What the hop guard `guard` fires on a hop to `next` proposed `repeats` times.
    pub fn stop_on_hop(
        next: NodeName,
        repeats: u32,
        setup: impl FnOnce(&mut RunState),
        guard: &dyn StopGuard<OnHop>,
    ) -> Option<Fired> {
        judge(next, repeats, setup, |f| guard.check(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::testing::run;

    #[test]
    fn a_fresh_run_passes_every_guard_before_the_planner() {
        let s = run().build();
        let l = Limits::for_profile(kotef_core::Profile::Strict);
        let facts = Facts::before_planner(&s, &l);
        assert_eq!(
            runner::first_stop(BEFORE_PLANNER, &facts).map(|s| s.fired),
            None
        );
    }
}
