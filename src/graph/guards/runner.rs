//! The registry runner: the one place where a guard's stop ends the run. It asks a stop-only
//! registry in order, and settles the first stop once: at a checkpoint where a verified
//! success wins ([`Checkpoint::SUCCESS_WINS`]) a run whose verification of its latest change
//! passed ends in success, naming the rule that would have stopped it; anywhere else the
//! rule ends the run with the status it implies.

use super::{Checkpoint, Row, StopGuard};
use crate::graph::memory::state::{Ending, Fired, RunState};
use crate::graph::rules::endings::success_over_stop;

/// Where success over a stop is decided, as the stop-rule table says.
pub const RUNNER_CHECKED: &str = "the registry runner, on a stop at a planner checkpoint";

/// A stop a registry fired, with its checkpoint's rule on success.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    pub fired: Fired,
    success_wins: bool,
}

impl Stop {
    /// A stop fired at the checkpoint `C`.
    pub fn at<C: Checkpoint>(fired: Fired) -> Self {
        Self {
            fired,
            success_wins: C::SUCCESS_WINS,
        }
    }
}

/// How a stop ended the run.
#[derive(Debug, Clone, PartialEq)]
pub enum Settled {
    /// The rule ended the run.
    Stopped(Fired),
    /// A verified success won over the rule.
    Succeeded(Ending),
}

/// The first stop among `guards`, asked in order.
pub fn first_stop<C: Checkpoint>(
    guards: &[&dyn StopGuard<C>],
    facts: &C::Facts<'_>,
) -> Option<Stop> {
    guards
        .iter()
        .find_map(|g| g.check(facts))
        .map(Stop::at::<C>)
}

/// Ends the run by `stop` (first ending wins), or in success where a verified success wins.
pub fn settle(state: &mut RunState, stop: Stop) -> Settled {
    if stop.success_wins {
        if let Some(ending) = success_over_stop(state, &stop.fired) {
            finish(state, ending.clone());
            return Settled::Succeeded(ending);
        }
    }
    let Fired { rule, reason } = stop.fired.clone();
    state.stop(rule, reason);
    Settled::Stopped(stop.fired)
}

/// Asks `guards` on facts that do not borrow the run, and settles the first stop.
pub fn ask<C: Checkpoint>(
    state: &mut RunState,
    guards: &[&dyn StopGuard<C>],
    facts: &C::Facts<'_>,
) -> Option<Settled> {
    first_stop(guards, facts).map(|stop| settle(state, stop))
}

/// Ends the run as a guard decided: in success, or as the planner chose (first ending wins).
pub fn finish(state: &mut RunState, ending: Ending) {
    state.finish(ending);
}

/// The runner's row of the stop-rule table.
pub fn row() -> Row {
    Row::without_rule(
        "none (success over a stop)",
        RUNNER_CHECKED,
        "the last verification passed after the latest change (and the run changed files): a loop or no-progress rule firing then ends the run in success, naming the rule",
        "`done_success`",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::memory::facts::testing::changed_and_verified;
    use kotef_core::{StopRule, TerminalStatus};

    /// A checkpoint where a verified success does not win (as the budgets').
    struct Elsewhere;

    impl Checkpoint for Elsewhere {
        type Facts<'a> = ();
        const CHECKED: &'static str = "elsewhere";
        const SUCCESS_WINS: bool = false;
    }

    fn loop_rule() -> Fired {
        Fired {
            rule: StopRule::NoProgress,
            reason: "looping".into(),
        }
    }

    #[test]
    fn a_planner_stop_after_verified_success_ends_the_run_in_success() {
        let mut s = changed_and_verified(true);
        let settled = settle(&mut s, Stop::at::<super::super::BeforePlanner>(loop_rule()));
        assert!(matches!(settled, Settled::Succeeded(_)));
        assert_eq!(
            s.ending.map(|e| e.status),
            Some(TerminalStatus::DoneSuccess)
        );
    }

    #[test]
    fn a_stop_elsewhere_after_verified_success_still_stops_the_run() {
        let mut s = changed_and_verified(true);
        let stop = Stop::at::<Elsewhere>(loop_rule());
        assert_eq!(settle(&mut s, stop), Settled::Stopped(loop_rule()));
        assert_eq!(s.ending.and_then(|e| e.rule), Some(StopRule::NoProgress));
    }

    #[test]
    fn a_planner_stop_without_verified_success_stops_the_run() {
        let mut s = changed_and_verified(false);
        let settled = settle(&mut s, Stop::at::<super::super::OnHop>(loop_rule()));
        assert_eq!(settled, Settled::Stopped(loop_rule()));
    }

    /// Every `.rs` file under `dir`, recursively.
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn only_the_registry_runner_ends_a_run_by_a_stop_rule() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&root, &mut files);
        let call = concat!("state", ".stop(");
        let stopping: Vec<String> = files
            .iter()
            .filter(|p| std::fs::read_to_string(p).is_ok_and(|text| text.contains(call)))
            .filter_map(|p| p.strip_prefix(&root).ok())
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(stopping, ["graph/guards/runner.rs"]);
    }
}
