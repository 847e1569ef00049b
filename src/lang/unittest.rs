//! Python's unittest output cut to what a model needs to fix the code: every failing test is
//! a block (`FAIL: …` or `ERROR: …`) of the test's name, the traceback and the error, then
//! assertion details (`First differing element 0:`, a `- … / + …` diff) that repeat the
//! error line at length. The first failure is shown with its details only when its error line
//! was shortened (`[36 chars]`) or is no comparison, each later one only as its first
//! paragraph (name, line and error), and past a few of them only a count; the `Ran 3 tests in
//! 0.001s` line is left out (the `FAILED (failures=2)` line says the same). Which tests fail,
//! and how many ran, are read here too, and what each failed comparison checked.

use std::collections::{BTreeMap, BTreeSet};

/// Lines of the first failure block that are kept.
pub const FIRST_BLOCK_LINES: usize = 12;
/// Later failure blocks shown (as their first paragraph) before the rest are only counted.
pub const MORE_BLOCKS: usize = 3;

/// `out` with unittest's failure blocks trimmed (see the module doc); output without such
/// blocks (pytest, cargo, a crash) comes back as it is.
pub fn trim_failure_blocks(out: &str) -> String {
    without_test_names(&trim_blocks(out))
}

fn trim_blocks(out: &str) -> String {
    let mut kept: Vec<String> = Vec::new();
    // Which block a line is in: none yet, the n-th, or past the last (the `Ran …` summary).
    let mut block: Option<usize> = None;
    let mut in_block = 0usize; // lines of the current block seen so far
    let mut paragraph_done = false;
    let mut cut_lines = false;
    let mut left_out = 0usize;
    let mut ended = false;
    for line in out.lines() {
        let starts_block = !ended && header(line).is_some();
        if !ended && line.starts_with("Ran ") && line.contains(" test") {
            ended = true;
            if left_out > 0 {
                kept.push(format!("[… {left_out} more failing tests left out]"));
            }
            continue;
        }
        if starts_block {
            let n = block.map_or(0, |b| b + 1);
            block = Some(n);
            in_block = 0;
            paragraph_done = false;
            cut_lines = false;
            if n > MORE_BLOCKS {
                left_out += 1;
            } else if n > 0 && kept.last().is_some_and(|l| !l.is_empty()) {
                kept.push(String::new());
            }
        }
        match (block, ended) {
            (Some(0), false) => {
                in_block += 1;
                let ends_paragraph = line.trim().is_empty() && in_block > 1;
                if ends_paragraph && !paragraph_done {
                    paragraph_done = true;
                    // Details under an error line that states the whole comparison repeat it.
                    cut_lines = kept.last().is_some_and(|l| whole_comparison(l));
                }
                if cut_lines {
                    continue;
                }
                if in_block <= FIRST_BLOCK_LINES {
                    kept.push(line.to_string());
                } else {
                    cut_lines = true;
                    kept.push("[…]".into());
                }
            }
            (Some(n), false) => {
                if n <= MORE_BLOCKS && !paragraph_done {
                    if line.trim().is_empty() {
                        paragraph_done = true;
                    } else {
                        kept.push(line.to_string());
                    }
                }
            }
            _ => kept.push(line.to_string()),
        }
    }
    // Blank lines the cut left in a row read as one.
    kept.dedup_by(|a, b| a.trim().is_empty() && b.trim().is_empty());
    kept.join("\n")
}

/// `out` with each failing test named once: the header `FAIL: test_2 (test_a.TestA.test_2)`
/// reads `FAIL: test_2`, and the traceback's frame line in the test itself (`File
/// "test_a.py", line 12, in test_2`) is left out; the test's source line under it stays, as
/// do frames in the code.
fn without_test_names(out: &str) -> String {
    let mut test = String::new();
    let mut kept = Vec::new();
    for line in out.lines() {
        if let Some((kind, name)) = header(line) {
            test = name.to_string();
            kept.push(format!("{kind}{test}"));
            continue;
        }
        let frame = line.trim_start();
        let in_test = frame.starts_with("File \"") && frame.ends_with(&format!(", in {test}"));
        if !test.is_empty() && in_test {
            continue;
        }
        kept.push(line.to_string());
    }
    let mut text = kept.join("\n");
    if out.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// A unittest block header's kind (`FAIL: ` or `ERROR: `) and test name, from
/// `FAIL: test_2 (test_a.TestA.test_2)`; `None` for other lines that start alike (pip's
/// `ERROR: Could not find …`).
fn header(line: &str) -> Option<(&'static str, &str)> {
    let (kind, rest) = ["FAIL: ", "ERROR: "]
        .into_iter()
        .find_map(|kind| Some((kind, line.strip_prefix(kind)?)))?;
    let (name, qualified) = rest.split_once(' ')?;
    let qualified = qualified.strip_prefix('(')?.strip_suffix(')')?;
    let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    (word(name) && qualified.split('.').all(word)).then_some((kind, name))
}

/// Whether an error line states both sides of a comparison in full (`AssertionError: Lists
/// differ: [5, 4] != [4, 3]`), so the details under it only repeat it; unittest writes
/// `[36 chars]` where it shortened a side.
fn whole_comparison(line: &str) -> bool {
    let shortened = line.split('[').skip(1).any(|rest| {
        rest.split_once(" chars]")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    });
    line.contains("Error") && line.contains(" != ") && !shortened
}

/// The tests unittest reports as failing or erroring (`FAIL: test_x (mod.Class.test_x)`), by
/// method name.
pub fn failing_tests(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter_map(header)
        .map(|(_, name)| name.to_string())
        .collect()
}

/// One failed equality check of a test: the assertion's source line as the traceback shows it
/// (`self.assertEqual(version(), "2.0")`) and the two sides the error line states
/// (`AssertionError: '1.0' != '2.0'`, unittest's `first != second`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    pub source: String,
    pub first: String,
    pub second: String,
}

impl Comparison {
    /// The source line with one compared value blanked (`self.assertEqual(version(), …)`),
    /// each way it can be, with the value blanked; double quotes read as single ones, as
    /// Python's repr writes strings.
    fn blanked(&self) -> Vec<(String, &str)> {
        let line = self.source.replace('"', "'");
        let mut out = Vec::new();
        for side in [self.first.as_str(), self.second.as_str()] {
            for (at, _) in line.match_indices(side) {
                let text = format!("{}…{}", &line[..at], &line[at + side.len()..]);
                out.push((text, side));
            }
        }
        out
    }

    /// Whether `other` checks the same thing and wants it the other way round: the two
    /// failures state the same two values swapped (`'1.0' != '2.0'` and `'2.0' != '1.0'`), and
    /// the two source lines are one line but for the value each expects (code that passes one
    /// such test fails the other). Then the values the two expect (this one's, then
    /// `other`'s), the value blanked in each line.
    pub fn expected_against<'a>(&'a self, other: &'a Comparison) -> Option<(&'a str, &'a str)> {
        if self.first != other.second || self.second != other.first || self.first == self.second {
            return None;
        }
        let theirs = other.blanked();
        self.blanked().into_iter().find_map(|(line, value)| {
            theirs
                .iter()
                .find(|(their_line, their_value)| line == *their_line && value != *their_value)
                .map(|(_, their_value)| (value, *their_value))
        })
    }
}

/// Each failing test's failed equality check, by method name: the block's source line just
/// above its `AssertionError: a != b` line (unittest's `Lists differ: ` and the like
/// stripped). Tests that failed otherwise (an exception, a message of their own) are absent.
pub fn failed_comparisons(out: &str) -> BTreeMap<String, Comparison> {
    let mut found = BTreeMap::new();
    let mut test: Option<&str> = None;
    let mut source: Option<&str> = None;
    for line in out.lines() {
        if let Some((_, name)) = header(line) {
            test = Some(name);
            source = None;
            continue;
        }
        let trimmed = line.trim();
        if let Some(error) = trimmed.strip_prefix("AssertionError: ") {
            if let (Some(name), Some(src)) = (test.take(), source.take()) {
                if let Some((first, second)) = compared(error) {
                    found.insert(
                        name.to_string(),
                        Comparison {
                            source: src.to_string(),
                            first,
                            second,
                        },
                    );
                }
            }
            continue;
        }
        let carets = !trimmed.is_empty() && trimmed.chars().all(|c| matches!(c, '^' | '~'));
        if !trimmed.is_empty()
            && !carets
            && !trimmed.starts_with("File \"")
            && !trimmed.starts_with("Traceback ")
        {
            source = Some(trimmed);
        }
    }
    found
}

/// The two sides of `a != b`, after a `Lists differ: `-like prefix; `None` when the error
/// line is no single comparison.
fn compared(error: &str) -> Option<(String, String)> {
    let error = match error.split_once(" differ: ") {
        Some((kind, rest)) if !kind.contains(' ') => rest,
        _ => error,
    };
    let (first, second) = error.split_once(" != ")?;
    (!second.contains(" != ") && !first.is_empty() && !second.is_empty())
        .then(|| (first.to_string(), second.to_string()))
}

/// How many tests unittest ran (`Ran 4 tests in 0.001s`); `None` when it did not say.
pub fn tests_ran(out: &str) -> Option<u32> {
    out.lines().find_map(|l| {
        l.strip_prefix("Ran ")?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_tests_are_named_and_the_tests_run_counted() {
        let out = "FAIL: test_is_two (test_version.T.test_is_two)\nAssertionError: '1.0' != '2.0'\n\nERROR: test_x (t.T.test_x)\n\nRan 3 tests in 0.001s\n\nFAILED (failures=1, errors=1)\n";
        assert_eq!(
            failing_tests(out).into_iter().collect::<Vec<_>>(),
            ["test_is_two", "test_x"]
        );
        assert_eq!(tests_ran(out), Some(3));
        assert_eq!(tests_ran("1 failed in 0.01s"), None);
    }

    fn failure(n: usize) -> String {
        format!(
            "FAIL: test_{n} (test_a.T.test_{n})\n  File \"test_a.py\", line {n}, in test_{n}\n    self.assertEqual(f({n}), [{n}])\nAssertionError: Lists differ: [] != [{n}]\n\nSecond list contains 1 additional elements.\nFirst extra element 0:\n{n}\n\n- []\n+ [{n}]\n\n"
        )
    }

    #[test]
    fn every_failure_is_its_first_paragraph_when_the_error_states_the_whole_comparison() {
        let out = format!(
            "{}{}Ran 2 tests in 0.001s\n\nFAILED (failures=2)\n",
            failure(1),
            failure(2)
        );
        assert_eq!(
            trim_failure_blocks(&out),
            "FAIL: test_1\n    self.assertEqual(f(1), [1])\nAssertionError: Lists differ: [] != [1]\n\nFAIL: test_2\n    self.assertEqual(f(2), [2])\nAssertionError: Lists differ: [] != [2]\n\nFAILED (failures=2)"
        );
    }

    #[test]
    fn the_first_failure_keeps_its_details_when_unittest_shortened_the_error() {
        let out = "FAIL: test_1 (t.T.test_1)\n    self.assertEqual(f(), [1, 2])\nAssertionError: Lists differ: [1, 2, 3, [30 chars] 9] != [1, 2]\n\nFirst list contains 7 additional elements.\n\nRan 1 test in 0.001s\n\nFAILED (failures=1)\n";
        assert_eq!(
            trim_failure_blocks(out),
            "FAIL: test_1\n    self.assertEqual(f(), [1, 2])\nAssertionError: Lists differ: [1, 2, 3, [30 chars] 9] != [1, 2]\n\nFirst list contains 7 additional elements.\n\nFAILED (failures=1)"
        );
    }

    #[test]
    fn failures_past_the_first_few_are_only_counted() {
        let out: String =
            (1..=6).map(failure).collect::<String>() + "Ran 6 tests\n\nFAILED (failures=6)\n";
        let trimmed = trim_failure_blocks(&out);
        assert!(trimmed.contains("FAIL: test_4\n"), "{trimmed}");
        assert!(!trimmed.contains("FAIL: test_5\n"), "{trimmed}");
        assert!(
            trimmed.contains("[… 2 more failing tests left out]\n\nFAILED (failures=6)"),
            "{trimmed}"
        );
    }

    #[test]
    fn a_long_first_failure_is_cut_with_a_mark() {
        let long = format!(
            "ERROR: test_1 (t.T.test_1)\n{}Ran 1 test\n",
            "  line\n".repeat(30)
        );
        let trimmed = trim_failure_blocks(&long);
        assert_eq!(trimmed.lines().count(), FIRST_BLOCK_LINES + 1, "{trimmed}");
        assert!(trimmed.ends_with("[…]"), "{trimmed}");
        assert!(!trimmed.contains("Ran 1 test"), "{trimmed}");
    }

    #[test]
    fn frames_in_the_code_are_kept_and_lines_only_like_a_header_left_alone() {
        let out = "ERROR: test_1 (t.T.test_1)\n  File \"t.py\", line 3, in test_1\n    f()\n  File \"m.py\", line 2, in f\n    return 1 / 0\nZeroDivisionError: division by zero\nERROR: Could not find a version (from versions: none)\n";
        assert_eq!(
            trim_failure_blocks(out),
            "ERROR: test_1\n    f()\n  File \"m.py\", line 2, in f\n    return 1 / 0\nZeroDivisionError: division by zero\nERROR: Could not find a version (from versions: none)"
        );
    }

    const SWAPPED: &str = "FAIL: test_is_two (test_version.TestVersion.test_is_two)\n----\nTraceback (most recent call last):\n  File \"/w/test_version.py\", line 11, in test_is_two\n    self.assertEqual(version(), \"2.0\")\nAssertionError: '1.0' != '2.0'\n- 1.0\n? ^\n+ 2.0\n? ^\n\n";

    #[test]
    fn a_failed_comparison_is_read_with_its_source_line_and_both_sides() {
        let found = failed_comparisons(SWAPPED);
        let c = &found["test_is_two"];
        assert_eq!(c.source, "self.assertEqual(version(), \"2.0\")");
        assert_eq!((c.first.as_str(), c.second.as_str()), ("'1.0'", "'2.0'"));
    }

    #[test]
    fn the_same_check_wanting_the_other_value_mirrors_it() {
        let two = failed_comparisons(SWAPPED)["test_is_two"].clone();
        let one = Comparison {
            source: "self.assertEqual(version(), \"1.0\")".into(),
            first: "'2.0'".into(),
            second: "'1.0'".into(),
        };
        assert_eq!(two.expected_against(&one), Some(("'2.0'", "'1.0'")));
        let other_call = Comparison {
            source: "self.assertEqual(other(), \"1.0\")".into(),
            ..one.clone()
        };
        assert!(two.expected_against(&other_call).is_none());
        let other_arguments = |source: &str, first: &str, second: &str| Comparison {
            source: source.into(),
            first: first.into(),
            second: second.into(),
        };
        let (f1, f2) = (
            other_arguments("self.assertEqual(f(1), 1)", "2", "1"),
            other_arguments("self.assertEqual(f(2), 2)", "1", "2"),
        );
        assert!(f1.expected_against(&f2).is_none());
        let same_way = Comparison {
            first: "'1.0'".into(),
            second: "'2.0'".into(),
            ..one
        };
        assert!(two.expected_against(&same_way).is_none());
    }

    #[test]
    fn the_expected_values_are_those_the_lines_write_whatever_the_argument_order() {
        let check = |source: &str, first: &str, second: &str| Comparison {
            source: source.into(),
            first: first.into(),
            second: second.into(),
        };
        let two = check("self.assertEqual(\"2.0\", version())", "'2.0'", "'1.0'");
        let one = check("self.assertEqual(\"1.0\", version())", "'1.0'", "'2.0'");
        assert_eq!(two.expected_against(&one), Some(("'2.0'", "'1.0'")));
    }

    #[test]
    fn failures_that_are_no_single_comparison_are_not_read() {
        let out = "ERROR: test_a (t.T.test_a)\n    f()\nZeroDivisionError: division by zero\nFAIL: test_b (t.T.test_b)\n    self.assertTrue(f())\nAssertionError: False is not true\n";
        assert!(failed_comparisons(out).is_empty());
        let lists = "FAIL: test_c (t.T.test_c)\n    self.assertEqual(f(), [2])\nAssertionError: Lists differ: [1] != [2]\n";
        assert_eq!(failed_comparisons(lists)["test_c"].first, "[1]");
    }

    #[test]
    fn output_of_other_runners_is_left_as_it_is() {
        let pytest = "____ test_a ____\n\n    def test_a():\n>       assert f() == 1\nE       assert 0 == 1\n\ntest_a.py:3: AssertionError\n1 failed in 0.01s";
        assert_eq!(trim_failure_blocks(pytest), pytest);
    }
}
