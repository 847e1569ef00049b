//! `planner_to_<node>` (exact repeat): the planner proposed the same hop with the same
//! request on an unchanged state again and again; asking it once more cannot tell anything
//! new.

use super::{Facts, Fires, OnHop, Row, StopGuard, ON_HOP_CHECKED};
use crate::graph::memory::state::Fired;
use kotef_core::StopRule;

/// Identical planner decisions on an identical state after which the edge's rule fires.
pub const EXACT_REPEAT_LIMIT: u32 = 3;

pub struct ExactRepeat;

impl StopGuard<OnHop> for ExactRepeat {
    fn row(&self) -> Row {
        Row {
            rule: Fires::EdgeRule,
            variant: "exact repeat",
            checked: ON_HOP_CHECKED,
            threshold: format!("{EXACT_REPEAT_LIMIT} identical decisions on an identical state"),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let hop = f.hop?;
        let edge = hop.decision.next.edge()?;
        if hop.repeats < EXACT_REPEAT_LIMIT {
            return None;
        }
        Some(Fired {
            rule: StopRule::for_edge(edge),
            reason: format!(
                "Loop detected: the planner chose {} with the same request {} times on an unchanged state.",
                edge.node(),
                hop.repeats
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::testing::stop_on_hop;
    use kotef_core::NodeName;

    #[test]
    fn the_same_request_three_times_on_an_unchanged_state_fires_the_edges_rule() {
        let Some(f) = stop_on_hop(NodeName::Verifier, 3, |_| {}, &ExactRepeat) else {
            panic!("no stop");
        };
        assert_eq!(f.rule, StopRule::PlannerToVerifier);
        assert_eq!(
            f.reason,
            "Loop detected: the planner chose verifier with the same request 3 times on an unchanged state."
        );
    }

    #[test]
    fn twice_is_not_yet_a_loop() {
        assert_eq!(
            stop_on_hop(NodeName::Verifier, 2, |_| {}, &ExactRepeat),
            None
        );
    }

    #[test]
    fn done_has_no_edge_to_repeat() {
        assert_eq!(stop_on_hop(NodeName::Done, 9, |_| {}, &ExactRepeat), None);
    }
}
