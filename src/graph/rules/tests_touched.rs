//! What a run's change did to the tests' own code. The test command's files cannot be changed
//! (they are refused), but the code the tests lean on can: a `conftest.py`, a helper under
//! `tests/`, a `testutil.py` whose `check()` no longer checks. A run whose tests pass after
//! it changed such a file, one that was there at the start and that the goal does not name,
//! may pass because the tests test less; it ends with a check for the reviewer, as a pass
//! that copied the tests' expected value does (`graph::nodes::repair::fitted`). Files the
//! run added (new tests) are not doubted.

use crate::graph::prompt::context;
use std::collections::BTreeMap;

/// The phrase every finding of a change to the tests' own code holds, so one is given once.
pub const PHRASE: &str = "the tests' own code";

/// Whether a change to `path` is doubted: it is the tests' own code
/// ([`context::tests_code`]) and the goal does not name it (a user who asks for
/// `conftest.py` to be fixed gets it fixed).
pub fn doubted(goal: &str, path: &String) -> bool {
    context::tests_code(path) && context::named_files(goal, [path]).is_empty()
}

/// The files of the tests' own code a run changed or removed of those there at the start
/// (`initial`; `now` is the tree at the end), but those the goal names ([`doubted`]).
pub fn changed(
    goal: &str,
    initial: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
) -> Vec<String> {
    initial
        .iter()
        .filter(|(p, hash)| now.get(*p) != Some(*hash) && doubted(goal, p))
        .map(|(p, _)| p.clone())
        .collect()
}

/// The check a run whose tests pass (`passed`) leaves when it changed the tests' own code
/// ([`changed`]); none when `checks` already say so.
pub fn finding(
    goal: &str,
    initial: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
    passed: bool,
    checks: &[String],
) -> Option<String> {
    if !passed || checks.iter().any(|c| c.contains(PHRASE)) {
        return None;
    }
    let files = changed(goal, initial, now);
    let first = files.first()?;
    let more = match files.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(format!(
        "the change edits {PHRASE} (`{first}`{more}); check that the tests still test what \
         they did"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(p, h)| (p.to_string(), h.to_string()))
            .collect()
    }

    const START: &[(&str, &str)] = &[
        ("pkg/stats.py", "a"),
        ("tests/helpers.py", "b"),
        ("conftest.py", "c"),
    ];

    #[test]
    fn a_passing_run_that_edited_a_test_helper_is_doubted() {
        let end = tree(&[
            ("pkg/stats.py", "a"),
            ("tests/helpers.py", "B"),
            ("conftest.py", "c"),
        ]);
        assert_eq!(
            finding("fix mean()", &tree(START), &end, true, &[]).as_deref(),
            Some(
                "the change edits the tests' own code (`tests/helpers.py`); check that the \
                 tests still test what they did"
            )
        );
    }

    #[test]
    fn a_removed_conftest_is_a_change_to_the_tests_code() {
        let end = tree(&[("pkg/stats.py", "A"), ("tests/helpers.py", "b")]);
        assert_eq!(
            changed("fix mean()", &tree(START), &end),
            vec!["conftest.py".to_string()]
        );
    }

    #[test]
    fn new_tests_a_file_the_goal_names_and_the_projects_code_are_not_doubted() {
        let end = tree(&[
            ("pkg/stats.py", "A"),
            ("tests/helpers.py", "B"),
            ("conftest.py", "c"),
            ("tests/test_new.py", "d"),
        ]);
        assert!(changed("tests/helpers.py is wrong", &tree(START), &end).is_empty());
    }

    #[test]
    fn a_failing_run_or_one_already_doubted_gets_no_second_check() {
        let end = tree(&[("tests/helpers.py", "B")]);
        let said = vec![format!("it passes only with {PHRASE} changed")];
        assert_eq!(finding("g", &tree(START), &end, false, &[]), None);
        assert_eq!(finding("g", &tree(START), &end, true, &said), None);
    }
}
