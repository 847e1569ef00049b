//! The `--json` run summary of the contract, and the loop counters it carries.

use crate::status::{Edge, StopRule, TerminalStatus};
use serde::{Deserialize, Serialize};

/// Planner→node hops since that edge last saw progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopCounters {
    pub planner_to_researcher: u32,
    pub planner_to_coder: u32,
    pub planner_to_verifier: u32,
}

impl LoopCounters {
    pub fn get(&self, edge: Edge) -> u32 {
        match edge {
            Edge::Researcher => self.planner_to_researcher,
            Edge::Coder => self.planner_to_coder,
            Edge::Verifier => self.planner_to_verifier,
        }
    }

    pub fn get_mut(&mut self, edge: Edge) -> &mut u32 {
        match edge {
            Edge::Researcher => &mut self.planner_to_researcher,
            Edge::Coder => &mut self.planner_to_coder,
            Edge::Verifier => &mut self.planner_to_verifier,
        }
    }
}

/// One JSON object printed by `kotef run --json` and `kotef scenario --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub terminal_status: TerminalStatus,
    pub stop_rule: Option<StopRule>,
    pub stop_reason: String,
    pub loop_counters: LoopCounters,
    pub total_steps: u32,
    pub model_calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub fix_attempts: u32,
    pub report_path: String,
    pub issues_md_path: String,
    /// The run's transcript (`.sdd/runs/<id>.transcript.jsonl`), when one was written. An
    /// optional field kotef adds to the contract's summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_serialises_with_contract_field_names() {
        let s = RunSummary {
            terminal_status: TerminalStatus::AbortedStuck,
            stop_rule: Some(StopRule::PlannerToResearcher),
            stop_reason: "x".into(),
            loop_counters: LoopCounters::default(),
            total_steps: 1,
            model_calls: 2,
            prompt_tokens: 3,
            completion_tokens: 4,
            fix_attempts: 0,
            report_path: "/r.md".into(),
            issues_md_path: "/i.md".into(),
            transcript_path: None,
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["terminal_status"], "aborted_stuck");
        assert_eq!(v["stop_rule"], "planner_to_researcher");
        assert_eq!(v["loop_counters"]["planner_to_verifier"], 0);
        let none = RunSummary {
            stop_rule: None,
            ..s
        };
        assert!(serde_json::to_value(&none).unwrap()["stop_rule"].is_null());
    }
}
