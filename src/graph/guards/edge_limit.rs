//! `planner_to_<node>` (edge): the planner sent the run to one node more often than the
//! edge's limit allows without progress in between (progress resets the edge's counter).

use super::{Facts, Fires, OnHop, Row, StopGuard, ON_HOP_CHECKED};
use crate::graph::memory::state::Fired;
use kotef_core::StopRule;

pub struct EdgeLimit;

impl StopGuard<OnHop> for EdgeLimit {
    fn row(&self) -> Row {
        Row {
            rule: Fires::EdgeRule,
            variant: "edge",
            checked: ON_HOP_CHECKED,
            threshold: "more than `edge_limit_<node>` hops without progress".into(),
        }
    }

    fn check(&self, f: &Facts<'_>) -> Option<Fired> {
        let edge = f.hop.and_then(|h| h.decision.next.edge())?;
        let hops = f.state.loop_counters.get(edge);
        let limit = f.limits.edge_limit(edge);
        if hops <= limit {
            return None;
        }
        Some(Fired {
            rule: StopRule::for_edge(edge),
            reason: format!(
                "Loop detected: planner→{} {hops} times without progress, the limit is {limit}.",
                edge.node()
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::testing::stop_on_hop;
    use kotef_core::NodeName;

    fn researcher_after(hops: u32) -> Option<Fired> {
        stop_on_hop(
            NodeName::Researcher,
            1,
            |s| s.loop_counters.planner_to_researcher = hops,
            &EdgeLimit,
        )
    }

    #[test]
    fn a_hop_past_the_edges_limit_fires_its_rule() {
        let Some(f) = researcher_after(6) else {
            panic!("no stop");
        };
        assert_eq!(f.rule, StopRule::PlannerToResearcher);
        assert_eq!(
            f.reason,
            "Loop detected: planner→researcher 6 times without progress, the limit is 5."
        );
    }

    #[test]
    fn hops_up_to_the_limit_are_allowed() {
        assert_eq!(researcher_after(5), None);
    }

    #[test]
    fn each_edge_has_its_own_rule() {
        let verifier = stop_on_hop(
            NodeName::Verifier,
            1,
            |s| s.loop_counters.planner_to_verifier = 4,
            &EdgeLimit,
        );
        let coder = stop_on_hop(
            NodeName::Coder,
            1,
            |s| s.loop_counters.planner_to_coder = 6,
            &EdgeLimit,
        );
        let rule = |v: Option<Fired>| match v {
            Some(f) => Some(f.rule),
            _ => None,
        };
        assert_eq!(
            (rule(verifier), rule(coder)),
            (
                Some(StopRule::PlannerToVerifier),
                Some(StopRule::PlannerToCoder)
            )
        );
    }
}
