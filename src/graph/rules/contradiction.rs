//! When the repair loop's tests pull two ways, as pure rules over what each test run says
//! ([`TestSet`]): two tests that check one thing for two values, seen in a single trade-off
//! ([`mirrored`]), or [`TRADE_OFFS`] attempts that each made the failing tests pass and broke
//! another ([`contradiction`]), with the stop reason for each. The guards that stop the run on
//! them are in `graph::guards::contradicting_tests`.

use crate::graph::prompt::context::clip;
use crate::lang::unittest;
use kotef_tools::CommandResult;
use std::collections::{BTreeMap, BTreeSet};

/// Attempts that fix every test failing at the start but break another, needed before the
/// tests are called contradictory.
pub const TRADE_OFFS: usize = 3;

/// What one test run says of each test: which fail (by name), how many ran, and what each
/// failed comparison checked (unittest's output; nothing for other runners).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestSet {
    pub failing: BTreeSet<String>,
    pub ran: Option<u32>,
    pub comparisons: BTreeMap<String, unittest::Comparison>,
}

impl TestSet {
    pub fn of(r: &CommandResult) -> Self {
        let out = format!("{}\n{}", r.stdout, r.stderr);
        Self {
            failing: unittest::failing_tests(&out),
            ran: unittest::tests_ran(&out),
            comparisons: unittest::failed_comparisons(&out),
        }
    }
}

/// Whether the tests pull two ways: at least [`TRADE_OFFS`] attempts ran the same tests as the
/// start, made every test that failed at the start pass and made another fail, and none had
/// fewer failing tests than the start. Returns the tests that failed at the start and the
/// tests those attempts broke.
pub fn contradiction(start: &TestSet, attempts: &[TestSet]) -> Option<(Vec<String>, Vec<String>)> {
    if start.failing.is_empty() || start.ran.is_none() {
        return None;
    }
    let same_tests = |a: &&TestSet| a.ran == start.ran;
    if attempts
        .iter()
        .filter(same_tests)
        .any(|a| a.failing.len() < start.failing.len())
    {
        return None;
    }
    let trades: Vec<&TestSet> = attempts
        .iter()
        .filter(same_tests)
        .filter(|a| !a.failing.is_empty() && a.failing.is_disjoint(&start.failing))
        .collect();
    if trades.len() < TRADE_OFFS {
        return None;
    }
    let broken: BTreeSet<&String> = trades.iter().flat_map(|a| &a.failing).collect();
    Some((
        start.failing.iter().cloned().collect(),
        broken.into_iter().cloned().collect(),
    ))
}

/// Two tests that check one thing for two values, seen in a single trade-off: a test that
/// failed at the start passes, another broke, and their failed comparisons mirror each other
/// (`self.assertEqual(version(), "2.0")` got `'1.0'`, then `…"1.0")` got `'2.0'`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mirrored {
    pub wanted: unittest::Comparison,
    pub wanted_test: String,
    pub broken: unittest::Comparison,
    pub broken_test: String,
    /// The value each of the two checks expects (the start's failing test's, then the
    /// broken one's).
    pub values: (String, String),
}

/// The mirrored pair of `attempt`, a trade-off against `start` (the same tests ran, every test
/// that failed at the start passes, another fails); `None` otherwise.
pub fn mirrored(start: &TestSet, attempt: &TestSet) -> Option<Mirrored> {
    let traded = start.ran.is_some()
        && attempt.ran == start.ran
        && !attempt.failing.is_empty()
        && attempt.failing.is_disjoint(&start.failing);
    if !traded {
        return None;
    }
    start.comparisons.iter().find_map(|(wanted_test, wanted)| {
        attempt
            .comparisons
            .iter()
            .find_map(|(broken_test, broken)| {
                let (want, other) = wanted.expected_against(broken)?;
                Some(Mirrored {
                    wanted: wanted.clone(),
                    wanted_test: wanted_test.clone(),
                    broken: broken.clone(),
                    broken_test: broken_test.clone(),
                    values: (want.to_string(), other.to_string()),
                })
            })
    })
}

/// Characters of a test's source line or value quoted in a stop reason (the repository wrote
/// them; the reason goes into comments and reports).
pub const QUOTED_CHARS: usize = 200;

/// The stop reason for a mirrored pair of tests.
pub fn mirrored_reason(m: &Mirrored, command: &str) -> String {
    let q = |text: &str| clip(text, QUOTED_CHARS);
    format!(
        "The tests contradict each other: `{}` checks `{}` and `{}` checks `{}`, the same thing \
         wanting {} and {}. A change that made `{}` pass made `{}` fail, which passed before; no \
         change to the code can pass both. Decide which test is right (`{command}`).",
        m.wanted_test,
        q(&m.wanted.source),
        m.broken_test,
        q(&m.broken.source),
        q(&m.values.0),
        q(&m.values.1),
        m.wanted_test,
        m.broken_test,
    )
}

/// The stop reason for tests that contradict each other.
pub fn contradiction_reason(wanted: &[String], broken: &[String], command: &str) -> String {
    let names = |v: &[String]| {
        v.iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "The tests seem to contradict each other: {TRADE_OFFS} changes that made {} pass each \
         made {} fail, which passed before. No change to the code can pass both; check what \
         the tests demand (`{command}`).",
        names(wanted),
        names(broken)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(failing: &[&str], ran: u32) -> TestSet {
        TestSet {
            failing: failing.iter().map(|s| s.to_string()).collect(),
            ran: Some(ran),
            comparisons: BTreeMap::new(),
        }
    }

    fn compared(test: &str, source: &str, got: &str, want: &str) -> TestSet {
        let mut t = set(&[test], 2);
        t.comparisons.insert(
            test.into(),
            unittest::Comparison {
                source: source.into(),
                first: got.into(),
                second: want.into(),
            },
        );
        t
    }

    #[test]
    fn one_trade_off_between_mirrored_checks_is_a_contradiction() {
        let start = compared(
            "test_is_two",
            "self.assertEqual(version(), \"2.0\")",
            "'1.0'",
            "'2.0'",
        );
        let after = compared(
            "test_is_one",
            "self.assertEqual(version(), \"1.0\")",
            "'2.0'",
            "'1.0'",
        );
        let m = mirrored(&start, &after).expect("mirrored");
        assert_eq!(
            mirrored_reason(&m, "python3 -m unittest"),
            "The tests contradict each other: `test_is_two` checks `self.assertEqual(version(), \"2.0\")` \
             and `test_is_one` checks `self.assertEqual(version(), \"1.0\")`, the same thing wanting \
             '2.0' and '1.0'. A change that made `test_is_two` pass made `test_is_one` fail, which \
             passed before; no change to the code can pass both. Decide which test is right \
             (`python3 -m unittest`)."
        );
    }

    #[test]
    fn a_broken_test_checking_another_call_is_no_mirror() {
        let start = compared("test_a", "self.assertEqual(f(7, 34, 12), 34)", "12", "34");
        let after = compared("test_b", "self.assertEqual(f(15, 8, 34), 12)", "34", "12");
        assert_eq!(mirrored(&start, &after), None);
        let still_failing = compared(
            "test_a",
            "self.assertEqual(version(), \"1.0\")",
            "'2.0'",
            "'1.0'",
        );
        let start = compared(
            "test_a",
            "self.assertEqual(version(), \"2.0\")",
            "'1.0'",
            "'2.0'",
        );
        assert_eq!(mirrored(&start, &still_failing), None);
    }

    #[test]
    fn tests_that_trade_places_attempt_after_attempt_contradict_each_other() {
        let start = set(&["test_is_two"], 2);
        let flipped = vec![set(&["test_is_one"], 2); TRADE_OFFS];
        assert_eq!(
            contradiction(&start, &flipped),
            Some((vec!["test_is_two".into()], vec!["test_is_one".into()]))
        );
        assert_eq!(contradiction(&start, &flipped[1..]), None);
    }

    #[test]
    fn a_contradiction_is_reported_with_both_sides_and_the_command() {
        assert_eq!(
            contradiction_reason(
                &["test_is_two".into()],
                &["test_is_one".into()],
                "python3 -m unittest"
            ),
            "The tests seem to contradict each other: 3 changes that made `test_is_two` pass each \
             made `test_is_one` fail, which passed before. No change to the code can pass both; \
             check what the tests demand (`python3 -m unittest`)."
        );
    }

    #[test]
    fn an_attempt_with_fewer_failures_or_a_broken_import_is_no_contradiction() {
        let start = set(&["test_a", "test_b"], 3);
        let mut attempts = vec![set(&["test_c"], 3); TRADE_OFFS];
        attempts.push(set(&["test_a"], 3));
        assert_eq!(contradiction(&start, &attempts), None);
        let import_errors = vec![set(&["test_mod"], 1); TRADE_OFFS + 1];
        assert_eq!(contradiction(&start, &import_errors), None);
    }
}
