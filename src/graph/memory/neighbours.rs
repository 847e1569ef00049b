//! The failing test's neighbours (the other tests of its file, run by
//! `nodes::repair::passes`) as the judge of a pass: a change that makes the named test pass
//! and a neighbour that passed fail has fixed the symptom, not the bug. What failed at the
//! start is kept here; a later run of the same neighbours is read against it. Pure.

use std::collections::BTreeSet;

/// The neighbours' run at the start: the tests that failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbours {
    /// The test command whose passes they judge (it names the failing tests).
    pub of: String,
    /// The tests that failed in that run, by function name.
    pub failing: BTreeSet<String>,
}

impl Neighbours {
    /// The neighbours of `of`'s `named` tests from the run of `command` that reported
    /// `reported` as failed; `None` when the run did not finish, or its output does not name
    /// a named test among the failed (the output cannot be read by name, so a later run could
    /// not tell a new failure either).
    pub fn read(
        of: &str,
        command: &str,
        named: &[String],
        reported: &BTreeSet<String>,
        finished: bool,
    ) -> Option<Neighbours> {
        let readable = named.iter().any(|n| reported.contains(n));
        (finished && readable && command != of).then(|| Neighbours {
            of: of.to_string(),
            failing: reported.clone(),
        })
    }

    /// The tests a later run reports as failed that passed at the start, in name order.
    pub fn broken(&self, reported: &BTreeSet<String>) -> Vec<String> {
        reported.difference(&self.failing).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    fn named(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    const OF: &str = "python -m pytest t.py::T::test_a";
    const SIBLINGS: &str = "python -m pytest t.py";

    #[test]
    fn a_finished_run_that_names_the_failing_test_is_kept() {
        let n = Neighbours::read(OF, SIBLINGS, &named(&["test_a"]), &set(&["test_a"]), true);
        assert_eq!(n.map(|n| n.failing), Some(set(&["test_a"])));
    }

    /// Whether the neighbours of `test_a` read from a run of `command` reporting `reported`
    /// judge anything.
    fn judges(command: &str, reported: &[&str], finished: bool) -> bool {
        Neighbours::read(OF, command, &named(&["test_a"]), &set(reported), finished).is_some()
    }

    #[test]
    fn a_run_that_did_not_finish_judges_nothing() {
        assert!(!judges(SIBLINGS, &["test_a"], false));
    }

    #[test]
    fn output_that_names_no_failing_test_judges_nothing() {
        assert!(!judges(SIBLINGS, &[], true));
    }

    #[test]
    fn a_command_that_is_its_own_neighbourhood_judges_nothing() {
        assert!(!judges(OF, &["test_a"], true));
    }

    #[test]
    fn only_tests_that_passed_at_the_start_are_broken() {
        let n = Neighbours::read(
            OF,
            SIBLINGS,
            &named(&["test_a"]),
            &set(&["test_a", "test_old"]),
            true,
        )
        .expect("readable");
        let later = set(&["test_old", "test_b", "test_c"]);
        assert_eq!(n.broken(&later), named(&["test_b", "test_c"]));
    }
}
