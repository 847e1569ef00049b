//! The contract's names: terminal statuses, stop rules, graph nodes and planner edges.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a run ended. Exactly four; every run ends in one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerminalStatus {
    DoneSuccess,
    DonePartial,
    AbortedStuck,
    AbortedConstraint,
}

impl TerminalStatus {
    pub const ALL: [TerminalStatus; 4] = [
        Self::DoneSuccess,
        Self::DonePartial,
        Self::AbortedStuck,
        Self::AbortedConstraint,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::DoneSuccess => "done_success",
            Self::DonePartial => "done_partial",
            Self::AbortedStuck => "aborted_stuck",
            Self::AbortedConstraint => "aborted_constraint",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Exit status of `kotef run` for this ending (the contract's table).
    pub fn exit_code(self) -> i32 {
        match self {
            Self::DoneSuccess => 0,
            Self::DonePartial => 2,
            Self::AbortedStuck => 3,
            Self::AbortedConstraint => 4,
        }
    }

    pub fn emoji(self) -> &'static str {
        match self {
            Self::DoneSuccess => "✅",
            Self::DonePartial => "🟡",
            Self::AbortedStuck => "🛑",
            Self::AbortedConstraint => "⛔",
        }
    }
}

impl fmt::Display for TerminalStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which stop rule ended a run (`None` in a summary when the run ended by itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopRule {
    PlannerToResearcher,
    PlannerToCoder,
    PlannerToVerifier,
    NoProgress,
    FixAttempts,
    MaxSteps,
    Constraint,
    Budget,
    ModelError,
}

impl StopRule {
    pub const ALL: [StopRule; 9] = [
        Self::PlannerToResearcher,
        Self::PlannerToCoder,
        Self::PlannerToVerifier,
        Self::NoProgress,
        Self::FixAttempts,
        Self::MaxSteps,
        Self::Constraint,
        Self::Budget,
        Self::ModelError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::PlannerToResearcher => "planner_to_researcher",
            Self::PlannerToCoder => "planner_to_coder",
            Self::PlannerToVerifier => "planner_to_verifier",
            Self::NoProgress => "no_progress",
            Self::FixAttempts => "fix_attempts",
            Self::MaxSteps => "max_steps",
            Self::Constraint => "constraint",
            Self::Budget => "budget",
            Self::ModelError => "model_error",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The stop rule guarding a planner edge.
    pub fn for_edge(edge: Edge) -> Self {
        match edge {
            Edge::Researcher => Self::PlannerToResearcher,
            Edge::Coder => Self::PlannerToCoder,
            Edge::Verifier => Self::PlannerToVerifier,
        }
    }

    /// The terminal status this rule implies.
    pub fn terminal_status(self) -> TerminalStatus {
        match self {
            Self::Constraint => TerminalStatus::AbortedConstraint,
            _ => TerminalStatus::AbortedStuck,
        }
    }
}

impl fmt::Display for StopRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The nodes of the graph (and `done`, the planner's way of ending).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum NodeName {
    Planner,
    Researcher,
    Coder,
    Verifier,
    Snitch,
    Done,
}

impl NodeName {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Planner => "planner",
            Self::Researcher => "researcher",
            Self::Coder => "coder",
            Self::Verifier => "verifier",
            Self::Snitch => "snitch",
            Self::Done => "done",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Planner,
            Self::Researcher,
            Self::Coder,
            Self::Verifier,
            Self::Snitch,
            Self::Done,
        ]
        .into_iter()
        .find(|n| n.as_str() == s)
    }

    /// The planner edge leading to this node, if it has a loop counter.
    pub fn edge(self) -> Option<Edge> {
        match self {
            Self::Researcher => Some(Edge::Researcher),
            Self::Coder => Some(Edge::Coder),
            Self::Verifier => Some(Edge::Verifier),
            _ => None,
        }
    }
}

impl fmt::Display for NodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A planner edge with a loop counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Edge {
    Researcher,
    Coder,
    Verifier,
}

impl Edge {
    pub const ALL: [Edge; 3] = [Self::Researcher, Self::Coder, Self::Verifier];

    pub fn counter_name(self) -> &'static str {
        StopRule::for_edge(self).as_str()
    }

    pub fn node(self) -> NodeName {
        match self {
            Self::Researcher => NodeName::Researcher,
            Self::Coder => NodeName::Coder,
            Self::Verifier => NodeName::Verifier,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_parse() {
        for s in TerminalStatus::ALL {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.as_str()));
            assert_eq!(TerminalStatus::parse(s.as_str()), Some(s));
        }
        for r in StopRule::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
            assert_eq!(StopRule::parse(r.as_str()), Some(r));
        }
    }

    #[test]
    fn exit_codes_follow_the_contract() {
        assert_eq!(TerminalStatus::DoneSuccess.exit_code(), 0);
        assert_eq!(TerminalStatus::DonePartial.exit_code(), 2);
        assert_eq!(TerminalStatus::AbortedStuck.exit_code(), 3);
        assert_eq!(TerminalStatus::AbortedConstraint.exit_code(), 4);
    }

    #[test]
    fn only_constraint_maps_to_aborted_constraint() {
        for r in StopRule::ALL {
            let expected = if r == StopRule::Constraint {
                TerminalStatus::AbortedConstraint
            } else {
                TerminalStatus::AbortedStuck
            };
            assert_eq!(r.terminal_status(), expected);
        }
    }
}
