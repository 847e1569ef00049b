//! A give-up before the coder had a fair try — nothing changed yet, fewer than
//! [`FAIR_TRY_CODER_STEPS`] coder steps, and a test that fails as tests do — is refused once
//! per run: the coder gets the failure as its task (a small model's first verdict is often a
//! guess).

use super::{Facts, Guard, Row, Verdict, FAIR_TRY_CODER_STEPS, ON_PROPOSAL_CHECKED};
use crate::graph::memory::state::Redirect;
use crate::graph::rules::tasks::opening_failure;
use kotef_core::NodeName;

pub struct PrematureGiveUp;

impl Guard for PrematureGiveUp {
    fn row(&self) -> Row {
        Row::without_rule(
            "(give-up refused)",
            ON_PROPOSAL_CHECKED,
            "the planner says `snitch` before the coder had a fair try (nothing changed, fewer than 2 coder steps), once per run",
            "— (the coder gets the failure as its task)",
        )
    }

    fn check(&self, f: &Facts<'_>) -> Verdict {
        let state = f.state;
        let gives_up = f.hop.is_some_and(|h| h.decision.next == NodeName::Snitch);
        let untried =
            state.files_changed().is_empty() && state.coder_steps().count() < FAIR_TRY_CODER_STEPS;
        if !gives_up || !untried || state.refused_give_ups() > 0 {
            return Verdict::Continue;
        }
        match opening_failure(state) {
            Some(task) => Verdict::Redirect {
                task,
                why: Redirect::GiveUpRefused,
            },
            None => Verdict::Continue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::testing::on_hop;
    use crate::graph::memory::facts::testing::push_step;
    use crate::graph::memory::facts::testing::test_result;
    use crate::graph::memory::state::RunState;

    fn failing(s: &mut RunState) {
        s.test = Some(test_result("cargo test", false, "AssertionError: 1 != 2"));
    }

    fn give_up_after(coder_steps: usize, refused_before: bool) -> Verdict {
        on_hop(
            NodeName::Snitch,
            0,
            |s| {
                failing(s);
                for _ in 0..coder_steps {
                    push_step(s, NodeName::Coder, false);
                }
                if refused_before {
                    push_step(s, NodeName::Planner, false).redirect = Some(Redirect::GiveUpRefused);
                }
            },
            &PrematureGiveUp,
        )
    }

    #[test]
    fn a_give_up_after_one_coder_step_that_changed_nothing_is_refused() {
        let Verdict::Redirect { task, why } = give_up_after(1, false) else {
            panic!("not redirected");
        };
        assert_eq!(why, Redirect::GiveUpRefused);
        assert!(task.contains("AssertionError: 1 != 2"), "{task}");
    }

    #[test]
    fn a_give_up_is_refused_only_once() {
        assert_eq!(give_up_after(1, true), Verdict::Continue);
    }

    #[test]
    fn a_give_up_after_two_coder_steps_is_taken() {
        assert_eq!(
            give_up_after(FAIR_TRY_CODER_STEPS, false),
            Verdict::Continue
        );
    }
}
