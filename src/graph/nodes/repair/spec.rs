//! The failing test as the repair loop's specification: the test function the traceback
//! passes through, shown (read-only) above the failure. A unittest traceback quotes one line
//! of the test (`None,` of a call over three lines), which says neither what was called nor
//! what was expected; the test's body says both. Pytest quotes the test itself, so a failure
//! that already holds the test's `def` line gets nothing more.

use crate::graph::prompt::code_view::Traceback;
use crate::graph::prompt::messages::RepairTest;

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Lines of a long test shown before the failing line (after its `def` line).
const BEFORE: usize = 20;
/// Lines of a test shown after the failing line.
const AFTER: usize = 8;

/// [`failing_test`] read from the work tree.
pub(super) fn in_tree(
    ctx: &crate::graph::GraphContext,
    trace: &Traceback,
    protected: &[String],
    failure: &str,
) -> Option<String> {
    let tree = ctx.tools.workdir().tree();
    failing_test(trace, protected, failure, |p| {
        tree.read_text(p, kotef_tools::file_tools::READ_CAP_BYTES as u64)
            .ok()
    })
}

/// The first protected test frame of `trace` whose function `read` can show, rendered; `None`
/// when there is none or `failure` quotes it already.
pub(super) fn failing_test(
    trace: &Traceback,
    protected: &[String],
    failure: &str,
    read: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    let (path, line) = trace.repo.iter().find(|(p, _)| protected.contains(p))?;
    let text = read(path)?;
    let def = kotef_tools::outline::enclosing(&text, *line)?;
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.get(def.first - 1)?;
    if failure.contains(header.trim()) {
        return None;
    }
    let last = def.last.min(line + AFTER);
    let from = if line.saturating_sub(def.first) > BEFORE {
        line - BEFORE
    } else {
        def.first
    };
    let mut shown: Vec<String> = Vec::new();
    if from > def.first {
        shown.push(header.to_string());
        shown.push(format!("{}    …", " ".repeat(indent_of(header))));
    }
    shown.extend(lines.get(from - 1..last)?.iter().map(|l| l.to_string()));
    let code = dedent(&shown);
    Some(
        RepairTest {
            path,
            first: &def.first.to_string(),
            last: &last.to_string(),
            code: &code,
        }
        .to_string(),
    )
}

/// The lines with their common indent taken off (a method's body starts at the margin).
fn dedent(lines: &[String]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l))
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST_FILE: &str = "import unittest\n\n\nclass TestUrlConcat(unittest.TestCase):\n    def test_url_concat_none_params(self):\n        url = url_concat(\n            \"https://localhost/path?r=1&t=2\",\n            None,\n        )\n        self.assertEqual(url, \"https://localhost/path?r=1&t=2\")\n\n    def test_other(self):\n        pass\n";

    fn trace() -> Traceback {
        Traceback {
            repo: vec![
                ("tornado/httputil.py".into(), 616),
                ("tornado/test/httputil_test.py".into(), 8),
            ],
            outside: Vec::new(),
        }
    }

    fn protected() -> Vec<String> {
        vec!["tornado/test/httputil_test.py".into()]
    }

    #[test]
    fn a_unittest_failure_shows_the_test_function_it_passes_through() {
        let shown = failing_test(&trace(), &protected(), "    None,\nTypeError: x", |_| {
            Some(TEST_FILE.to_string())
        })
        .unwrap();
        insta::assert_snapshot!(shown, @r#"
        # The failing test: `tornado/test/httputil_test.py` lines 5-10 (it says what the code must do; it is not changed)
        ```
        def test_url_concat_none_params(self):
            url = url_concat(
                "https://localhost/path?r=1&t=2",
                None,
            )
            self.assertEqual(url, "https://localhost/path?r=1&t=2")
        ```
        "#);
    }

    #[test]
    fn a_failure_that_quotes_the_test_already_gets_nothing_more() {
        let pytest = "    def test_url_concat_none_params(self):\n>       url = url_concat(\n";
        assert_eq!(
            failing_test(&trace(), &protected(), pytest, |_| Some(
                TEST_FILE.to_string()
            )),
            None
        );
    }

    #[test]
    fn a_long_test_is_shown_from_its_def_line_and_the_lines_before_the_failing_one() {
        let mut file = String::from("def test_dates(self):\n");
        for i in 0..40 {
            file.push_str(&format!("    self.assertEqual(f({i}), {i})\n"));
        }
        let trace = Traceback {
            repo: vec![("test/test_utils.py".into(), 35)],
            outside: Vec::new(),
        };
        let shown = failing_test(&trace, &["test/test_utils.py".into()], "", |_| {
            Some(file.clone())
        })
        .unwrap();
        assert!(shown.contains("lines 1-41"), "{shown}");
        assert!(
            shown.contains("def test_dates(self):\n    …\n    self.assertEqual(f(13), 13)"),
            "{shown}"
        );
        assert!(
            shown
                .trim_end()
                .ends_with("    self.assertEqual(f(39), 39)\n```"),
            "{shown}"
        );
    }
}
