//! `no_progress` (contradicting tests): the repair loop's tests pull two ways, asked after
//! every tested attempt ([`IN_REPAIR`]): two tests that check one thing for two values, seen
//! in a single trade-off ([`MirroredTests`]), or [`TRADE_OFFS`] attempts that each made the
//! failing tests pass and broke another ([`ContradictingTests`]). No change can satisfy both,
//! so the run stops instead of spending its budget. The rules are in
//! `graph::rules::contradiction`; the repair loop asks these guards through the runner.

use crate::graph::guards::{Checkpoint, Fires, Row, StopGuard};
use crate::graph::memory::state::Fired;
use crate::graph::rules::contradiction::{
    contradiction, contradiction_reason, mirrored, mirrored_reason, TestSet, TRADE_OFFS,
};
use kotef_core::StopRule;

/// What the repair loop's guards see: the tests at the start and of every tested attempt so
/// far (the latest last), and the test command.
#[derive(Debug, Clone, Copy)]
pub struct RepairFacts<'a> {
    pub start: &'a TestSet,
    pub tested: &'a [TestSet],
    pub command: &'a str,
}

/// The repair loop, after a tested attempt that failed.
pub struct InRepair;

impl Checkpoint for InRepair {
    type Facts<'a> = RepairFacts<'a>;
    const CHECKED: &'static str = "the repair loop, after a tested attempt";
    const SUCCESS_WINS: bool = false;
}

/// Two tests that check one thing for two values.
pub struct MirroredTests;

impl StopGuard<InRepair> for MirroredTests {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::NoProgress),
            variant: "mirrored tests",
            checked: InRepair::CHECKED,
            threshold: "one attempt made the failing tests pass and broke another whose failed comparison mirrors theirs (two tests check one thing for two values)".into(),
        }
    }

    fn check(&self, f: &RepairFacts<'_>) -> Option<Fired> {
        let m = mirrored(f.start, f.tested.last()?)?;
        Some(Fired {
            rule: StopRule::NoProgress,
            reason: mirrored_reason(&m, f.command),
        })
    }
}

/// Attempt after attempt trades the failing tests for others.
pub struct ContradictingTests;

impl StopGuard<InRepair> for ContradictingTests {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::NoProgress),
            variant: "contradicting tests",
            checked: InRepair::CHECKED,
            threshold: format!("{TRADE_OFFS} attempts ran the same tests as the start, made every test that failed at the start pass and broke another, and none failed fewer"),
        }
    }

    fn check(&self, f: &RepairFacts<'_>) -> Option<Fired> {
        let (wanted, broken) = contradiction(f.start, f.tested)?;
        Some(Fired {
            rule: StopRule::NoProgress,
            reason: contradiction_reason(&wanted, &broken, f.command),
        })
    }
}

/// The guards asked after a tested attempt, in order.
pub const IN_REPAIR: &[&dyn StopGuard<InRepair>] = &[&MirroredTests, &ContradictingTests];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::runner::first_stop;

    #[test]
    fn a_loop_with_no_tested_attempt_is_not_stopped() {
        let start = TestSet::default();
        let facts = RepairFacts {
            start: &start,
            tested: &[],
            command: "pytest",
        };
        assert_eq!(first_stop(IN_REPAIR, &facts), None);
    }
}
