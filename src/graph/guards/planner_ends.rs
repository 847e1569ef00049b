//! The planner's own endings, asked last on its proposal: `done` is success only with a
//! passing verification after the last change ([`DoneVerified`]), else partial
//! ([`DoneUnverified`]); `snitch` gives up ([`GaveUp`]). The endings are in
//! [`crate::graph::rules::endings`].

use super::{Facts, Guard, Row, Verdict};
use crate::graph::rules::endings::{done_verdict, gave_up};
use kotef_core::NodeName;

/// The planner's reason, as the ending quotes it.
fn reason(f: &Facts<'_>) -> String {
    match f.hop.map(|h| h.decision.reason.as_str()) {
        Some(r) if !r.is_empty() => r.to_string(),
        _ => "(no reason given)".to_string(),
    }
}

fn proposes(f: &Facts<'_>, next: NodeName) -> bool {
    f.hop.is_some_and(|h| h.decision.next == next)
}

/// `done` after a passing verification of the last change.
pub struct DoneVerified;

impl Guard for DoneVerified {
    fn row(&self) -> Row {
        Row::without_rule(
            "none (success)",
            "planner, on the model's proposal: `done`",
            "the last verification passed after the last change",
            "`done_success`",
        )
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        if proposes(f, NodeName::Done) && f.state.verified_after_last_change() {
            return Verdict::End(done_verdict(f.state, &reason(f)));
        }
        Verdict::Continue
    }
}

/// `done` without one.
pub struct DoneUnverified;

impl Guard for DoneUnverified {
    fn row(&self) -> Row {
        Row::without_rule(
            "none (partial)",
            "planner, on the model's proposal: `done`",
            "no passing verification after the last change",
            "`done_partial`",
        )
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        if proposes(f, NodeName::Done) {
            return Verdict::End(done_verdict(f.state, &reason(f)));
        }
        Verdict::Continue
    }
}

/// `snitch`: the planner gives up.
pub struct GaveUp;

impl Guard for GaveUp {
    fn row(&self) -> Row {
        Row::without_rule(
            "none (gave up)",
            "planner, on the model's proposal: `snitch`",
            "—",
            "`aborted_stuck`",
        )
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        if proposes(f, NodeName::Snitch) {
            return Verdict::End(gave_up(&reason(f)));
        }
        Verdict::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::testing::on_hop;
    use crate::graph::memory::facts::testing::changed_and_verified;
    use kotef_core::TerminalStatus;

    fn ending(passed: bool, next: NodeName) -> Option<TerminalStatus> {
        let setup =
            |s: &mut crate::graph::memory::state::RunState| *s = changed_and_verified(passed);
        let verdicts = [&DoneVerified as &dyn Guard, &DoneUnverified, &GaveUp]
            .map(|g| on_hop(next, 0, setup, g));
        verdicts.into_iter().find_map(|v| match v {
            Verdict::End(e) => Some(e.status),
            _ => None,
        })
    }

    #[test]
    fn done_after_a_verified_change_is_success() {
        assert_eq!(
            ending(true, NodeName::Done),
            Some(TerminalStatus::DoneSuccess)
        );
    }

    #[test]
    fn done_without_a_passing_verification_is_partial() {
        assert_eq!(
            ending(false, NodeName::Done),
            Some(TerminalStatus::DonePartial)
        );
    }

    #[test]
    fn snitch_gives_up_stuck() {
        assert_eq!(
            ending(true, NodeName::Snitch),
            Some(TerminalStatus::AbortedStuck)
        );
    }

    #[test]
    fn a_hop_ends_nothing() {
        assert_eq!(ending(true, NodeName::Coder), None);
    }
}
