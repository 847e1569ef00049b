//! When the planner asks to verify files whose verification already failed (nothing changed
//! since), re-running it cannot tell anything new: the coder gets the failure as its task
//! instead — once per failure (error signature); a planner that insists again is left to the
//! loop rules.

use super::{Facts, Guard, Row, Verdict, ON_PROPOSAL_CHECKED};
use crate::graph::memory::state::Redirect;
use crate::graph::rules::tasks::task_from_failure;
use kotef_core::NodeName;

pub struct Reverify;

impl Guard for Reverify {
    fn row(&self) -> Row {
        Row::without_rule(
            "(redirected)",
            ON_PROPOSAL_CHECKED,
            "`verifier` on files whose verification already failed, once per failure",
            "— (the coder gets the failure as its task)",
        )
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        let state = f.state;
        let verifies = f.hop.is_some_and(|h| h.decision.next == NodeName::Verifier);
        let unchanged = state.hashes_at_last_verification.as_ref() == Some(&state.file_hashes);
        let Some(signature) = state.test.as_ref().and_then(|t| t.error_signature.clone()) else {
            return Verdict::Continue;
        };
        if !verifies || !unchanged || state.redirected(&signature) {
            return Verdict::Continue;
        }
        match task_from_failure(state) {
            Some(task) => Verdict::Redirect {
                task,
                why: Redirect::Reverify { signature },
            },
            None => Verdict::Continue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::testing::on_hop;
    use crate::graph::memory::facts::testing::{changed_and_verified, push_step};
    use crate::graph::memory::state::RunState;

    fn reverify(setup: impl FnOnce(&mut RunState)) -> Verdict {
        on_hop(NodeName::Verifier, 0, setup, &Reverify)
    }

    #[test]
    fn re_verifying_an_unchanged_failure_sends_the_coder_the_failure() {
        let v = reverify(|s| *s = changed_and_verified(false));
        let Verdict::Redirect { task, why } = v else {
            panic!("not redirected");
        };
        assert!(task.contains("`cargo test`"), "{task}");
        assert_eq!(
            why,
            Redirect::Reverify {
                signature: "e".into()
            }
        );
    }

    #[test]
    fn re_verifying_after_a_change_is_left_alone() {
        let v = reverify(|s| {
            *s = changed_and_verified(false);
            s.file_hashes.insert("b.txt".into(), "h2".into());
        });
        assert_eq!(v, Verdict::Continue);
    }

    #[test]
    fn a_failure_is_redirected_only_once() {
        let v = reverify(|s| {
            *s = changed_and_verified(false);
            push_step(s, NodeName::Planner, false).redirect = Some(Redirect::Reverify {
                signature: "e".into(),
            });
        });
        assert_eq!(v, Verdict::Continue);
    }

    #[test]
    fn re_verifying_a_pass_is_left_alone() {
        assert_eq!(
            reverify(|s| *s = changed_and_verified(true)),
            Verdict::Continue
        );
    }
}
