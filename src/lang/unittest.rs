//! Python's unittest output cut to what a model needs to fix the code: every failing test is
//! a block (`FAIL: …` or `ERROR: …`) of the test's name, the traceback and the error, then
//! assertion details (`First differing element 0:`, a `- … / + …` diff) that repeat the
//! error line at length. The first failure is shown with its details, each later one only as
//! its first paragraph (name, line and error), and past a few of them only a count. Which
//! tests fail, and how many ran, are read here too.

use std::collections::BTreeSet;

/// Lines of the first failure block that are kept.
pub const FIRST_BLOCK_LINES: usize = 12;
/// Later failure blocks shown (as their first paragraph) before the rest are only counted.
pub const MORE_BLOCKS: usize = 3;

/// `out` with unittest's failure blocks trimmed (see the module doc); output without such
/// blocks (pytest, cargo, a crash) comes back as it is.
pub fn trim_failure_blocks(out: &str) -> String {
    let mut kept: Vec<String> = Vec::new();
    // Which block a line is in: none yet, the n-th, or past the last (the `Ran …` summary).
    let mut block: Option<usize> = None;
    let mut in_block = 0usize; // lines of the current block seen so far
    let mut paragraph_done = false;
    let mut cut_lines = false;
    let mut left_out = 0usize;
    let mut ended = false;
    for line in out.lines() {
        let starts_block = !ended && (line.starts_with("FAIL: ") || line.starts_with("ERROR: "));
        if !ended && line.starts_with("Ran ") && line.contains(" test") {
            ended = true;
            if left_out > 0 {
                kept.push(format!("[… {left_out} more failing tests left out]"));
            }
            kept.push(String::new());
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
            (Some(n), false) => {
                in_block += 1;
                if n == 0 {
                    if in_block <= FIRST_BLOCK_LINES {
                        kept.push(line.to_string());
                    } else if !cut_lines {
                        cut_lines = true;
                        kept.push("[…]".into());
                    }
                } else if n <= MORE_BLOCKS && !paragraph_done {
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

/// The tests unittest reports as failing or erroring (`FAIL: test_x (mod.Class.test_x)`), by
/// method name.
pub fn failing_tests(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter_map(|l| {
            l.strip_prefix("FAIL: ")
                .or_else(|| l.strip_prefix("ERROR: "))
        })
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect()
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
    fn the_first_failure_keeps_its_details_and_later_ones_their_first_paragraph() {
        let out = format!(
            "{}{}Ran 2 tests in 0.001s\n\nFAILED (failures=2)\n",
            failure(1),
            failure(2)
        );
        assert_eq!(
            trim_failure_blocks(&out),
            "FAIL: test_1 (test_a.T.test_1)\n  File \"test_a.py\", line 1, in test_1\n    self.assertEqual(f(1), [1])\nAssertionError: Lists differ: [] != [1]\n\nSecond list contains 1 additional elements.\nFirst extra element 0:\n1\n\n- []\n+ [1]\n\nFAIL: test_2 (test_a.T.test_2)\n  File \"test_a.py\", line 2, in test_2\n    self.assertEqual(f(2), [2])\nAssertionError: Lists differ: [] != [2]\n\nRan 2 tests in 0.001s\n\nFAILED (failures=2)"
        );
    }

    #[test]
    fn failures_past_the_first_few_are_only_counted() {
        let out: String =
            (1..=6).map(failure).collect::<String>() + "Ran 6 tests\n\nFAILED (failures=6)\n";
        let trimmed = trim_failure_blocks(&out);
        assert!(trimmed.contains("FAIL: test_4 "), "{trimmed}");
        assert!(!trimmed.contains("FAIL: test_5 "), "{trimmed}");
        assert!(
            trimmed.contains("[… 2 more failing tests left out]\n\nRan 6 tests"),
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
        assert_eq!(trimmed.lines().count(), FIRST_BLOCK_LINES + 3, "{trimmed}");
        assert!(trimmed.contains("[…]\n\nRan 1 test"), "{trimmed}");
    }

    #[test]
    fn output_of_other_runners_is_left_as_it_is() {
        let pytest = "____ test_a ____\n\n    def test_a():\n>       assert f() == 1\nE       assert 0 == 1\n\ntest_a.py:3: AssertionError\n1 failed in 0.01s";
        assert_eq!(trim_failure_blocks(pytest), pytest);
    }
}
