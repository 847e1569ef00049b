//! A planner `done` before the run changed or verified anything is refused once: the
//! verifier checks the current state (when there is a test command) and the planner decides
//! again with the result in front of it. A second such `done` is taken as it is
//! (`done_partial`).

use super::{Facts, Guard, Row, Verdict, ON_PROPOSAL_CHECKED};
use crate::graph::prompt::messages::DoneRefused;
use kotef_core::NodeName;

pub struct PrematureDone;

impl Guard for PrematureDone {
    fn row(&self) -> Row {
        Row::without_rule(
            "(refused once)",
            ON_PROPOSAL_CHECKED,
            "the planner says `done` with nothing changed or verified yet",
            "— (the verifier checks the state, then the planner decides again)",
        )
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        let state = f.state;
        let done = f.hop.is_some_and(|h| h.decision.next == NodeName::Done);
        let nothing_done = state.files_changed().is_empty() && state.test.is_none();
        if !done || !nothing_done || state.refused_dones() > 0 {
            return Verdict::Continue;
        }
        Verdict::Refuse(DoneRefused.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::testing::on_hop;
    use crate::graph::memory::facts::testing::changed_and_verified;
    use crate::graph::memory::state::Decision;
    use crate::graph::memory::testing::step;

    #[test]
    fn a_done_before_anything_happened_is_refused_with_what_to_do() {
        let Verdict::Refuse(note) = on_hop(NodeName::Done, 0, |_| {}, &PrematureDone) else {
            panic!("not refused");
        };
        assert!(
            note.starts_with("`done` refused: nothing has been changed or verified yet."),
            "{note}"
        );
    }

    #[test]
    fn a_second_done_is_taken() {
        let v = on_hop(
            NodeName::Done,
            0,
            |s| {
                s.timeline.push(
                    step(NodeName::Planner)
                        .numbered(1)
                        .deciding(Decision::DoneRefused),
                )
            },
            &PrematureDone,
        );
        assert_eq!(v, Verdict::Continue);
    }

    #[test]
    fn a_done_after_a_change_is_not_refused() {
        let v = on_hop(
            NodeName::Done,
            0,
            |s| *s = changed_and_verified(false),
            &PrematureDone,
        );
        assert_eq!(v, Verdict::Continue);
    }
}
