//! Verified success wins: once the verification after the latest change passed (and the run
//! changed something), the planner may only end the run or give the coder a new task. Any
//! other choice — re-verifying the unchanged tree, research, giving up, or the coder again
//! after a coder step that changed nothing — ends the run `done_success` instead, saying why.

use super::{Facts, Guard, Row, Verdict, ON_PROPOSAL_CHECKED};
use crate::graph::memory::state::Ending;
use kotef_core::NodeName;

pub struct VerifiedSuccessWins;

impl Guard for VerifiedSuccessWins {
    fn row(&self) -> Row {
        Row::without_rule(
            "none (verified success wins)",
            ON_PROPOSAL_CHECKED,
            "a passing verification after the latest change, and the planner chose verifier, researcher or snitch, or the coder again after a coder step that changed nothing",
            "`done_success`",
        )
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        let state = f.state;
        let Some(next) = f.hop.map(|h| h.decision.next) else {
            return Verdict::Continue;
        };
        if !state.verified_success() {
            return Verdict::Continue;
        }
        let why = match next {
            NodeName::Verifier | NodeName::Researcher | NodeName::Snitch => {
                format!("the planner chose {} next", next.as_str())
            }
            // A coder sent back after the pass that then changed nothing has nothing left to do.
            NodeName::Coder if state.coder_steps_without_progress() > 0 => {
                "the coder's step after it changed nothing".to_string()
            }
            _ => return Verdict::Continue,
        };
        let command = state.test.as_ref().map_or("", |t| t.command.as_str());
        Verdict::Succeed(Ending::verified_success(command, &why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::testing::on_hop;
    use crate::graph::memory::facts::testing::{changed_and_verified, push_step};
    use crate::graph::memory::state::RunState;
    use kotef_core::TerminalStatus;

    fn after(passed: bool, next: NodeName, more: impl FnOnce(&mut RunState)) -> Verdict {
        on_hop(
            next,
            0,
            |s| {
                *s = changed_and_verified(passed);
                more(s);
            },
            &VerifiedSuccessWins,
        )
    }

    fn status(v: Verdict) -> Option<TerminalStatus> {
        match v {
            Verdict::Succeed(e) => Some(e.status),
            _ => None,
        }
    }

    #[test]
    fn verified_success_ends_a_run_whose_planner_re_verifies() {
        assert_eq!(
            status(after(true, NodeName::Verifier, |_| {})),
            Some(TerminalStatus::DoneSuccess)
        );
    }

    #[test]
    fn verified_success_still_lets_the_coder_take_a_new_task() {
        assert_eq!(after(true, NodeName::Coder, |_| {}), Verdict::Continue);
    }

    #[test]
    fn a_failing_verification_does_not_end_the_run() {
        assert_eq!(after(false, NodeName::Verifier, |_| {}), Verdict::Continue);
    }

    #[test]
    fn a_coder_that_changed_nothing_after_a_pass_ends_the_run_in_success() {
        let v = after(true, NodeName::Coder, |s| {
            push_step(s, NodeName::Coder, false);
        });
        assert_eq!(status(v), Some(TerminalStatus::DoneSuccess));
    }
}
